/**
 * The strace-log reader behind the native offline test (test/support/strace-log.ts) must
 * be able to say "violation": checked on a log recorded from a real demo run with the
 * telemetry defence removed (the CLI's telemetry-off import and the check in
 * src/main/inference/ort.ts commented out, HOME=/tmp/w12/home3, output /tmp/w12/out3),
 * trimmed to its first 300 lines plus every network call and every line naming HOME or
 * the report. Recorded with:
 *   env -u ORT_DISABLE_TELEMETRY -u EQUIVOX_HOME HOME=/tmp/w12/home3 strace <STRACE_ARGS> \
 *     -o LOG -- node --import tsx src/main/cli.ts demo --fast --out /tmp/w12/out3
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { networkViolations, parseStraceLog, writesOutside } from '../../support/strace-log';

const recorded = readFileSync(resolve(import.meta.dirname, '..', '..', 'fixtures', 'strace', 'demo-without-telemetry-off.log'), 'utf8');
const HOME = '/tmp/w12/home3';
const OUT = '/tmp/w12/out3';
const DATA = join(HOME, '.local', 'share', 'equivox');

describe('the strace log reader', () => {
  it("finds onnxruntime's DNS queries and name-service lookups in the recorded run without the telemetry switch", () => {
    const log = parseStraceLog(recorded, '/work/wt-12');
    const v = networkViolations(log.network);
    const dns = v.filter((x) => x.kind === 'dns');
    expect(dns.length).toBe(8);
    expect(new Set(dns.map((x) => `${x.address}:${x.port}`))).toEqual(new Set(['10.255.255.53:53']));
    expect(v.filter((x) => x.kind === 'name-service').map((x) => x.address)).toContain('/var/run/nscd/socket');
    // tsx's own local pipe is an AF_UNIX socket and no violation.
    expect(log.network.some((a) => a.family === 'AF_UNIX' && a.address.includes('/tsx-'))).toBe(true);
    expect(v.some((x) => x.address.includes('/tsx-'))).toBe(false);
  });

  it('finds the device id written under ~/.cache, and nothing else outside the allowed folders', () => {
    const log = parseStraceLog(recorded, '/work/wt-12');
    expect(log.writes.some((w) => w.path === join(OUT, 'project', 'project.sqlite'))).toBe(true);
    const outside = writesOutside(log.writes, [OUT, DATA]).map((w) => w.path);
    expect(outside).toContain(join(HOME, '.cache/Microsoft/DeveloperTools/.onnxruntime/deviceid'));
    expect(outside.every((p) => p.startsWith(join(HOME, '.cache')))).toBe(true);
    // Making the data folder's parents (mkdir -p) is allowed; failed calls wrote nothing.
    expect(outside).not.toContain(join(HOME, '.local'));
  });

  it('reads IPv4, IPv6, sendmsg destinations, connected-socket peers and relative paths', () => {
    const log = parseStraceLog(
      [
        '101 connect(3<socket:[1]>, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("93.184.216.34")}, 16) = -1 ENETUNREACH (Network is unreachable)',
        '101 connect(4<socket:[2]>, {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
        '102 connect(5<socket:[3]>, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2606:4700::6810:85e5", &sin6_addr), sin6_scope_id=0}, 28 <unfinished ...>',
        '102 <... connect resumed>) = -1 ENETUNREACH (Network is unreachable)',
        '102 connect(6<socket:[4]>, {sa_family=AF_INET6, sin6_port=htons(9000), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0',
        '103 sendmsg(7<socket:[5]>, {msg_name={sa_family=AF_INET, sin_port=htons(123), sin_addr=inet_addr("10.1.2.3")}, msg_namelen=16, msg_iov=[{iov_base="x", iov_len=1}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = 1',
        '104 sendto(8<UDP:[10.0.0.2:40000->10.0.0.53:53]>, "abc", 3, MSG_NOSIGNAL, NULL, 0) = 3',
        '105 openat(AT_FDCWD</work/repo>, "out/x.json", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 9</work/repo/out/x.json>',
        '105 openat(11</home/u/.config>, "tracker.json", O_RDWR|O_CREAT, 0644) = 12</home/u/.config/tracker.json>',
        '105 openat(AT_FDCWD</work/repo>, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 13</etc/passwd>',
        '105 renameat2(AT_FDCWD</work/repo>, "out/x.json.tmp", AT_FDCWD</work/repo>, "out/y.json", RENAME_NOREPLACE) = 0',
        '105 openat(AT_FDCWD</work/repo>, "/home/u/nope", O_WRONLY|O_CREAT, 0666) = -1 EACCES (Permission denied)',
      ].join('\n'),
    );
    const v = networkViolations(log.network);
    expect(v.map((x) => `${x.kind} ${x.address}:${x.port}`)).toEqual(['remote 93.184.216.34:443', 'remote 2606:4700::6810:85e5:443', 'remote 10.1.2.3:123', 'dns 10.0.0.53:53']);
    expect(log.writes.map((w) => w.path)).toEqual(['/work/repo/out/x.json', '/home/u/.config/tracker.json', '/work/repo/out/y.json']);
    expect(writesOutside(log.writes, ['/work/repo/out']).map((w) => w.path)).toEqual(['/home/u/.config/tracker.json']);
  });
});
