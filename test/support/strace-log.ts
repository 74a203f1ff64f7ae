/**
 * Reading an `strace -f -y` log the way an outsider checks a privacy promise: every
 * network destination any thread or child process tried, and every file it created or
 * opened for writing. Native code (onnxruntime's telemetry client, ffmpeg, SQLite) is
 * seen here as well as JavaScript, because this is the kernel's view.
 *
 * Run the program with (see STRACE_ARGS):
 *   strace -f -qq -y --seccomp-bpf -e signal=none -e trace=<NETWORK + FILE calls> -o LOG cmd…
 *
 * A network attempt counts whether or not it succeeded (in a sandbox without network a
 * connect fails, yet the program still tried); a file write counts only when the call
 * did not return -1.
 */
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

const NETWORK_CALLS = ['connect', 'sendto', 'sendmsg', 'sendmmsg'];
const FILE_CALLS = ['open', 'openat', 'creat', 'mkdir', 'mkdirat', 'rename', 'renameat', 'renameat2', 'link', 'linkat', 'symlink', 'symlinkat'];

/** strace's options for a log this module can read; append `-o LOG` and the command. */
export const STRACE_ARGS = ['-f', '-qq', '-y', '--seccomp-bpf', '-e', 'signal=none', '-e', `trace=${[...NETWORK_CALLS, ...FILE_CALLS].join(',')}`];

export interface NetworkAttempt {
  pid: number;
  syscall: string;
  family: 'AF_INET' | 'AF_INET6' | 'AF_UNIX';
  /** IP address, or the socket path for AF_UNIX. */
  address: string;
  port: number | null;
  line: string;
}

export type ViolationKind = 'remote' | 'dns' | 'name-service';

export interface NetworkViolation extends NetworkAttempt {
  kind: ViolationKind;
  reason: string;
}

export interface FileWrite {
  pid: number;
  syscall: string;
  path: string;
  line: string;
}

export interface StraceLog {
  /** Lines that were system calls (a log with none was not written by strace -f). */
  calls: number;
  network: NetworkAttempt[];
  writes: FileWrite[];
}

/** A quoted C string as strace prints it (escapes kept as written). */
const QUOTED = /"((?:[^"\\]|\\.)*)"/g;

function unescape(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)/g, (_, e: string) => {
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]+$/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ({ n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\' } as Record<string, string>)[e] ?? e;
  });
}

/** Socket addresses written as strace structures: {sa_family=AF_INET, …}. */
function sockaddrs(line: string): Omit<NetworkAttempt, 'pid' | 'syscall' | 'line'>[] {
  const out: Omit<NetworkAttempt, 'pid' | 'syscall' | 'line'>[] = [];
  for (const m of line.matchAll(/\{sa_family=(AF_INET6?|AF_UNIX)([^{}]*)\}/g)) {
    const body = m[2]!;
    if (m[1] === 'AF_UNIX') {
      const p = /sun_path=(@?)"((?:[^"\\]|\\.)*)"/.exec(body);
      out.push({ family: 'AF_UNIX', address: p ? `${p[1]}${unescape(p[2]!)}` : '', port: null });
    } else if (m[1] === 'AF_INET') {
      const port = /sin_port=htons\((\d+)\)/.exec(body);
      const addr = /sin_addr=inet_addr\("([^"]*)"\)/.exec(body);
      out.push({ family: 'AF_INET', address: addr?.[1] ?? '', port: port ? Number(port[1]) : null });
    } else {
      const port = /sin6_port=htons\((\d+)\)/.exec(body);
      const addr = /inet_pton\(AF_INET6, "([^"]*)"/.exec(body);
      out.push({ family: 'AF_INET6', address: addr?.[1] ?? '', port: port ? Number(port[1]) : null });
    }
  }
  // With -y a connected socket shows its peer: 12<UDP:[10.0.0.2:40000->10.0.0.53:53]>.
  for (const m of line.matchAll(/<(TCP|UDP|TCPv6|UDPv6):\[[^\]]*?->(\[[^\]]*\]|[^:\]]+):(\d+)\]>/g)) {
    const host = m[2]!.replace(/^\[|\]$/g, '');
    out.push({ family: m[1]!.endsWith('v6') ? 'AF_INET6' : 'AF_INET', address: host, port: Number(m[3]) });
  }
  return out;
}

/** A directory file descriptor as `-y` prints it: AT_FDCWD</cwd> or 5</some/dir>. */
function dirOf(arg: string | undefined, cwd: string): string {
  const m = /<([^>]*)>/.exec(arg ?? '');
  return m ? m[1]! : cwd;
}

function splitArgs(args: string): string[] {
  // Top-level commas only (structures and strings hold commas of their own).
  const out: string[] = [];
  let depth = 0;
  let inString = false;
  let cur = '';
  for (let i = 0; i < args.length; i += 1) {
    const c = args[i]!;
    if (inString) {
      cur += c;
      if (c === '\\') cur += args[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[' || c === '(' || c === '<') depth += 1;
    else if (c === '}' || c === ']' || c === ')' || c === '>') depth -= 1;
    else if (c === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

function pathArg(arg: string | undefined): string | null {
  if (!arg) return null;
  QUOTED.lastIndex = 0;
  const m = QUOTED.exec(arg);
  return m ? unescape(m[1]!) : null;
}

const WRITE_FLAGS = /\b(O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND|O_TMPFILE)\b/;

/** The file a call creates or opens for writing, or null. */
function writtenPath(syscall: string, args: string[], cwd: string): string | null {
  const at = (dirArg: string | undefined, p: string | null) => (p === null ? null : isAbsolute(p) ? p : join(dirOf(dirArg, cwd), p));
  switch (syscall) {
    case 'open':
      return WRITE_FLAGS.test(args[1] ?? '') ? at(undefined, pathArg(args[0])) : null;
    case 'openat':
      return WRITE_FLAGS.test(args[2] ?? '') ? at(args[0], pathArg(args[1])) : null;
    case 'creat':
    case 'mkdir':
      return at(undefined, pathArg(args[0]));
    case 'mkdirat':
      return at(args[0], pathArg(args[1]));
    case 'rename':
    case 'link':
    case 'symlink':
      return at(undefined, pathArg(args[1]));
    case 'renameat':
    case 'renameat2':
    case 'linkat':
      return at(args[2], pathArg(args[3]));
    case 'symlinkat':
      return at(args[1], pathArg(args[2]));
    default:
      return null;
  }
}

/** Parse a log written with STRACE_ARGS. `cwd` resolves relative paths when -y gave none. */
export function parseStraceLog(text: string, cwd = '/'): StraceLog {
  const log: StraceLog = { calls: 0, network: [], writes: [] };
  for (const raw of text.split('\n')) {
    const m = /^(\d+)\s+(\w+)\((.*)$/.exec(raw);
    if (!m) continue; // "<... resumed>" tails, exits and signals carry no new arguments
    log.calls += 1;
    const [, pidText, syscall, rest] = m as unknown as [string, string, string, string];
    const pid = Number(pidText);
    if (NETWORK_CALLS.includes(syscall)) {
      for (const a of sockaddrs(rest)) log.network.push({ pid, syscall, ...a, line: raw });
      continue;
    }
    if (!FILE_CALLS.includes(syscall)) continue;
    if (/\)\s*=\s*-1\b/.test(rest)) continue; // failed: nothing was written
    const unfinished = rest.indexOf(' <unfinished ...>');
    const close = unfinished >= 0 ? rest.length : rest.lastIndexOf(') = ');
    const path = writtenPath(syscall, splitArgs(rest.slice(0, close >= 0 ? close : rest.length)), cwd);
    if (path !== null) log.writes.push({ pid, syscall, path: resolve(path), line: raw });
  }
  return log;
}

function isLoopback(family: NetworkAttempt['family'], address: string): boolean {
  if (family === 'AF_INET') return /^127\./.test(address) || address === '0.0.0.0';
  const a = address.toLowerCase();
  return a === '::1' || a === '::' || /^::ffff:127\./.test(a) || a === '0:0:0:0:0:0:0:1';
}

/** glibc's name-service cache and systemd-resolved's socket: a name lookup without port 53. */
const NAME_SERVICE_SOCKETS = [/\/nscd\/socket$/, /\/systemd\/resolve\/io\.systemd\.Resolve$/];

/** Attempts that break "nothing leaves the machine": any non-loopback IP, any DNS, any name-service lookup. */
export function networkViolations(attempts: readonly NetworkAttempt[]): NetworkViolation[] {
  const out: NetworkViolation[] = [];
  for (const a of attempts) {
    if (a.family === 'AF_UNIX') {
      if (NAME_SERVICE_SOCKETS.some((re) => re.test(a.address))) out.push({ ...a, kind: 'name-service', reason: `name lookup through ${a.address}` });
      continue;
    }
    if (a.port === 53) out.push({ ...a, kind: 'dns', reason: `DNS query to ${a.address}:53` });
    else if (!isLoopback(a.family, a.address)) out.push({ ...a, kind: 'remote', reason: `connection to ${a.address}${a.port !== null ? `:${a.port}` : ''}` });
  }
  return out;
}

function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Written paths that lie outside every allowed folder. Creating a folder above an allowed
 * one (mkdir -p of the data folder makes ~/.local/share) is part of making it; character
 * devices such as /dev/null are not files.
 */
export function writesOutside(writes: readonly FileWrite[], allowed: readonly string[]): FileWrite[] {
  return writes.filter(
    (w) =>
      !w.path.startsWith('/dev/') &&
      !allowed.some((root) => inside(w.path, root) || (/^mkdir/.test(w.syscall) && inside(root, w.path))),
  );
}

/** Entries of listTree(home) that are neither an allowed folder, inside one, nor a folder above one. */
export function entriesOutside(home: string, entries: readonly string[], allowed: readonly string[]): string[] {
  return entries.filter((e) => {
    const abs = join(home, e);
    return !allowed.some((root) => inside(abs, root) || (inside(root, abs) && lstatSync(abs).isDirectory()));
  });
}

/** Every file and folder under `dir`, as paths relative to it. */
export function listTree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel))) {
      const r = rel ? join(rel, name) : name;
      out.push(r);
      if (lstatSync(join(dir, r)).isDirectory()) walk(r);
    }
  };
  walk('');
  return out.sort();
}
