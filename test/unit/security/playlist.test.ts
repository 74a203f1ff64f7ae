/**
 * ffmpeg reads only what was granted. The probe from the issue: an `.m3u8` playlist next
 * to a manifest, pointing at an mp3 outside the granted folder, used to be imported as
 * an ok clip and played through clips.audio. Here, through the web host's policy (a
 * granted folder), every reference format is refused at import with a reason naming
 * the format, whatever its extension; the whitelist alone (without the sniffing) also
 * stops ffmpeg; clips.audio refuses refused rows and re-checks the path when it plays.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/main/api';
import { decodeAudio, ffmpegPath } from '../../../src/main/audio';
import { ffmpegInputArgs, whitelistRefusal } from '../../../src/main/audio/ffmpeg-input';
import { createEngine } from '../../../src/main/engine';
import { waitForImport } from '../../../src/main/handlers/datasets';
import type { ImportResult } from '../../../src/shared/api/datasets';
import { makeTone } from '../../fixtures/data/make-audio';

const root = mkdtempSync(join(tmpdir(), 'equivox-playlist-'));
const granted = join(root, 'granted');
const outside = join(root, 'outside');
const secret = join(outside, 'secret.mp3');
const engine = createEngine({ host: 'web', pathPolicy: 'granted', dataDir: join(root, 'data') });
const api = createApi(engine);
let projectId: string;
let result: ImportResult;
const clipIds = new Map<string, { id: string; status: string }>();

const hls = `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:1.0,\n../outside/secret.mp3\n#EXT-X-ENDLIST\n`;

beforeAll(async () => {
  mkdirSync(granted, { recursive: true });
  mkdirSync(outside, { recursive: true });
  makeTone(secret, { freq: 660, seconds: 1 });
  makeTone(join(granted, 'ok.wav'), { freq: 440, seconds: 1 });
  writeFileSync(join(granted, 'list.m3u8'), hls);
  writeFileSync(join(granted, 'disguised.wav'), hls); // the same playlist under an audio name
  writeFileSync(join(granted, 'concat.ogg'), "ffconcat version 1.0\nfile '../outside/secret.mp3'\n");
  writeFileSync(join(granted, 'stream.mp3'), 'v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nt=0 0\nm=audio 5004 RTP/AVP 0\n');
  symlinkSync(secret, join(granted, 'link.mp3'));
  writeFileSync(join(granted, 'manifest.csv'), ['path,speaker', 'ok.wav,s1', 'list.m3u8,s2', 'disguised.wav,s3', 'concat.ogg,s4', 'stream.mp3,s5', 'link.mp3,s6', ''].join('\n'));

  await api.invoke('files.grant', { path: granted, purpose: 'folder' });
  const project = await api.invoke('projects.create', { name: 'Playlist probe' });
  projectId = project.id;
  const { jobId } = await api.invoke('datasets.import', { projectId, source: { kind: 'manifest', manifest: join(granted, 'manifest.csv') }, role: 'target', mapping: { path: 'path', speaker: 'speaker', groups: [], ignore: [] } });
  result = await waitForImport(jobId);
  const rows = engine.store.db(projectId).prepare('SELECT id, rel_path, status FROM clips').all() as { id: string; rel_path: string; status: string }[];
  for (const r of rows) clipIds.set(r.rel_path, { id: r.id, status: r.status });
}, 120_000);

afterAll(async () => {
  await engine.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the playlist probe', () => {
  it('imports the real recording and refuses every reference format at import, naming the format', () => {
    const reasons = Object.fromEntries(result.failed.map((f) => [f.path, `${f.code}: ${f.reason}`]));
    expect(clipIds.get('ok.wav')?.status).toBe('ok');
    expect(reasons['list.m3u8']).toMatch(/^not_audio: .*an M3U\/HLS playlist, which points to other files/);
    expect(reasons['disguised.wav']).toMatch(/^not_audio: .*an M3U\/HLS playlist/);
    expect(reasons['concat.ogg']).toMatch(/^not_audio: .*an ffmpeg concat list/);
    expect(reasons['stream.mp3']).toMatch(/^not_audio: .*an SDP stream description/);
    expect(reasons['link.mp3']).toMatch(/^outside_folder: /);
    for (const p of ['list.m3u8', 'disguised.wav', 'concat.ogg', 'stream.mp3', 'link.mp3']) expect(clipIds.get(p)?.status, p).toBe('excluded');
  });

  it('hashes the file that was decoded: the accepted clip carries the SHA-256 of its own bytes', () => {
    const row = engine.store.db(projectId).prepare("SELECT sha256 FROM clips WHERE rel_path = 'ok.wav'").get() as { sha256: string };
    expect(row.sha256).toBe(createHash('sha256').update(readFileSync(join(granted, 'ok.wav'))).digest('hex'));
  });

  it('stops ffmpeg by the demuxer whitelist alone, without the sniffing in front of it', () => {
    // Without the whitelist ffmpeg follows the playlist and decodes the outside mp3.
    const open = spawnSync(ffmpegPath(), ['-hide_banner', '-nostdin', '-loglevel', 'error', '-i', join(granted, 'list.m3u8'), '-f', 'f32le', '-'], { maxBuffer: 1 << 26 });
    expect(open.status).toBe(0);
    expect(open.stdout.length).toBeGreaterThan(16000 * 4 * 0.9);
    const closed = spawnSync(ffmpegPath(), ['-hide_banner', '-nostdin', '-loglevel', 'error', ...ffmpegInputArgs(join(granted, 'list.m3u8')), '-f', 'f32le', '-'], { encoding: 'utf8' });
    expect(closed.status).not.toBe(0);
    expect(closed.stdout.length).toBe(0);
    expect(whitelistRefusal(closed.stderr)).toMatch(/its format \(hls\) is not one Equivox reads/);
  });

  it('decodes the supported containers through the whitelist (WAV, FLAC, MP3, Ogg/Opus, M4A, WebM)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equivox-formats-'));
    const files = {
      'a.flac': [],
      'a.mp3': [],
      'a.opus': ['-c:a', 'libopus'],
      'a.m4a': ['-c:a', 'aac'],
      'a.webm': ['-c:a', 'libopus'],
      'a.aiff': [],
    } as Record<string, string[]>;
    for (const [name, args] of Object.entries(files)) {
      makeTone(join(dir, name), { freq: 440, seconds: 0.5, rate: 48000, args });
      const audio = await decodeAudio(join(dir, name));
      expect(audio.durationS, name).toBeGreaterThan(0.45);
    }
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('clips.audio', () => {
  it('plays the accepted clip', async () => {
    const audio = await api.invoke('clips.audio', { projectId, clipId: clipIds.get('ok.wav')!.id });
    expect(audio.durationS).toBeCloseTo(1, 2);
  });

  it.each(['list.m3u8', 'disguised.wav', 'link.mp3'])('refuses the refused row %s', async (rel) => {
    await expect(api.invoke('clips.audio', { projectId, clipId: clipIds.get(rel)!.id })).rejects.toMatchObject({ code: 'user', field: 'clipId', message: expect.stringMatching(/refused when it was imported/) });
  });

  it('re-checks the path when it plays: an accepted clip swapped for a link outside is refused', async () => {
    const id = clipIds.get('ok.wav')!.id;
    rmSync(join(granted, 'ok.wav'));
    symlinkSync(secret, join(granted, 'ok.wav'));
    await expect(api.invoke('clips.audio', { projectId, clipId: id })).rejects.toMatchObject({ code: 'user', field: 'clipId', message: expect.stringMatching(/outside its dataset's folder/) });
  });
});
