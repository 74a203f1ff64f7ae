import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { downloadFile, downloadModel, type CatalogueEntry } from '../../../src/main/inference/download';
import { buildWhisperFixture, hfConfigs } from '../../fixtures/models/build';
import { tempDir } from './helpers';

const files = new Map<string, Buffer>();
let server: Server;
let base: string;
/** Paths whose first full (non-Range) request is cut off half way. */
const cutOnce = new Set<string>();
const rangeSeen: string[] = [];

beforeAll(async () => {
  const cfg = hfConfigs('whisper', { dim: 32, layers: 2 });
  files.set('/org/tiny-whisper/resolve/main/config.json', Buffer.from(JSON.stringify(cfg.config)));
  files.set('/org/tiny-whisper/resolve/main/preprocessor_config.json', Buffer.from(JSON.stringify(cfg.preprocessor)));
  files.set('/org/tiny-whisper/resolve/main/onnx/encoder_model.onnx', Buffer.from(buildWhisperFixture({ seed: 9 })));
  files.set('/blob.bin', Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7) % 251)));
  cutOnce.add('/blob.bin');
  cutOnce.add('/org/tiny-whisper/resolve/main/onnx/encoder_model.onnx');
  server = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (range) {
      rangeSeen.push(req.url!);
      const start = Number(range[1]);
      res.writeHead(206, { 'Content-Length': String(body.length - start), 'Content-Range': `bytes ${start}-${body.length - 1}/${body.length}` });
      res.end(body.subarray(start));
      return;
    }
    if (cutOnce.has(req.url!)) {
      cutOnce.delete(req.url!);
      res.writeHead(200, { 'Content-Length': String(body.length) });
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
      return;
    }
    res.writeHead(200, { 'Content-Length': String(body.length) });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('hub download', () => {
  it('refuses without allowDownloads and makes no network call', async () => {
    const spy = vi.fn();
    const dir = tempDir('dl');
    await expect(downloadFile(`${base}/blob.bin`, join(dir, 'b'), { allowDownloads: false, fetchImpl: spy as unknown as typeof fetch })).rejects.toThrow(/Downloads are off/);
    await expect(downloadModel(dir, 'wavlm-base', { allowDownloads: false, fetchImpl: spy as unknown as typeof fetch })).rejects.toThrow(/Downloads are off/);
    expect(spy).not.toHaveBeenCalled();
  });

  it('resumes an interrupted download with a Range request and checks SHA-256', async () => {
    const dir = tempDir('dl');
    const dest = join(dir, 'blob.bin');
    const body = files.get('/blob.bin')!;
    await expect(downloadFile(`${base}/blob.bin`, dest, { allowDownloads: true, expectedSha256: sha(body) })).rejects.toThrow();
    expect(existsSync(`${dest}.part`)).toBe(true);
    const progress: number[] = [];
    const got = await downloadFile(`${base}/blob.bin`, dest, { allowDownloads: true, expectedSha256: sha(body), onProgress: (p) => progress.push(p.received) });
    expect(got).toBe(sha(body));
    expect(rangeSeen).toContain('/blob.bin');
    expect(readFileSync(dest).equals(body)).toBe(true);
    expect(progress[progress.length - 1]).toBe(body.length);
  });

  it('rejects a file whose SHA-256 does not match and removes it', async () => {
    const dir = tempDir('dl');
    const dest = join(dir, 'cfg.json');
    await expect(downloadFile(`${base}/org/tiny-whisper/resolve/main/config.json`, dest, { allowDownloads: true, expectedSha256: '0'.repeat(64) })).rejects.toThrow(/SHA-256 mismatch/);
    expect(existsSync(dest) || existsSync(`${dest}.part`)).toBe(false);
  });

  it('downloads a catalogue model (resuming) into the store and imports it with its licence', async () => {
    const home = tempDir('home');
    mkdirSync(home, { recursive: true });
    const onnx = files.get('/org/tiny-whisper/resolve/main/onnx/encoder_model.onnx')!;
    const entry: CatalogueEntry = {
      id: 'tiny-whisper',
      name: 'Tiny Whisper (test)',
      repository: 'org/tiny-whisper',
      revision: 'main',
      files: [
        { path: 'config.json', sha256: null, bytes: null },
        { path: 'preprocessor_config.json', sha256: null, bytes: null },
        { path: 'onnx/encoder_model.onnx', sha256: sha(onnx), bytes: onnx.length },
      ],
      licence: 'MIT',
      approxMB: 1,
    };
    await expect(downloadModel(home, 'tiny-whisper', { allowDownloads: true, baseUrl: base, catalogue: [entry] })).rejects.toThrow();
    const m = await downloadModel(home, 'tiny-whisper', { allowDownloads: true, baseUrl: base, catalogue: [entry] });
    expect(m.id).toBe(sha(onnx));
    expect(m.family).toBe('whisper');
    expect(m.licence).toBe('MIT');
    expect(m.exposure.status).toBe('exposed');
    expect(m.source).toContain('org/tiny-whisper');
    writeFileSync(join(home, 'x'), '');
  });
});
