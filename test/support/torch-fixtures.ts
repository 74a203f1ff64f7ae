/**
 * Reference models from PyTorch's exporter (test/fixtures/models/export_torch.py), built
 * on first use and cached in test/fixtures/models/.torch-export/<hash>/, where the hash
 * covers the script and the log-mel reference it imports: editing either rebuilds them.
 * Needs Debian's python3-torch and python3-onnx (/usr/bin/python3; EQUIVOX_TORCH_PYTHON
 * names another interpreter). Without them the tests that need these models skip and say
 * why; .ci/run installs both.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');
const script = join(root, 'test/fixtures/models/export_torch.py');
const logmel = join(root, 'test/golden/whisper_logmel.py');

export interface TorchEncoderEntry {
  name: string;
  file: string;
  family: 'wav2vec2' | 'wavlm' | 'data2vec-audio' | 'whisper';
  opset: number;
  layout: 'pre-norm' | 'post-norm';
  blocks: number;
  input: string;
  frontEnd: 'raw-waveform' | 'whisper-logmel';
  /** Whisper: encoder frames covering the audio (the states hold only these). */
  frames?: number;
  metadataScopes?: boolean;
  states: { file: string; shape: [number, number] }[];
  config: Record<string, unknown>;
}

export interface TorchFixtures {
  dir: string;
  index: { torch: string; onnx: string; encoders: TorchEncoderEntry[]; whisperAsr: { folder: string; expected: string } };
}

export type TorchFixtureResult = { ok: true; fixtures: TorchFixtures } | { ok: false; reason: string };

function python(): string {
  return process.env.EQUIVOX_TORCH_PYTHON ?? '/usr/bin/python3';
}

let cached: TorchFixtureResult | undefined;

/** Why torch fixtures cannot be built here, or null when they can. */
export function torchUnavailable(): string | null {
  const py = python();
  if (!existsSync(py)) return `${py} does not exist (install Debian's python3-torch and python3-onnx)`;
  const r = spawnSync(py, ['-c', 'import torch, onnx'], { encoding: 'utf8' });
  if (r.status !== 0) return `${py} cannot import torch and onnx (install Debian's python3-torch and python3-onnx): ${(r.stderr ?? '').trim().split('\n').pop()}`;
  return null;
}

/** Build (or reuse) the fixtures; blocking, one builder at a time across test workers. */
export function torchFixtures(): TorchFixtureResult {
  if (cached) return cached;
  const hash = createHash('sha256').update(readFileSync(script)).update(readFileSync(logmel)).digest('hex').slice(0, 16);
  const base = join(root, 'test/fixtures/models/.torch-export');
  const dir = join(base, hash);
  const done = () => existsSync(join(dir, 'index.json'));
  if (!done()) {
    const why = torchUnavailable();
    if (why) return (cached = { ok: false, reason: why });
    mkdirSync(base, { recursive: true });
    const lock = `${dir}.lock`;
    const deadline = Date.now() + 15 * 60_000;
    for (;;) {
      if (done()) break;
      try {
        mkdirSync(lock);
      } catch {
        // Another worker is exporting; a lock older than 15 minutes belongs to a dead one.
        if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 15 * 60_000) rmSync(lock, { recursive: true, force: true });
        if (Date.now() > deadline) return (cached = { ok: false, reason: `timed out waiting for ${lock}` });
        spawnSync('sleep', ['1']);
        continue;
      }
      try {
        if (done()) break;
        const tmp = `${dir}.tmp-${process.pid}`;
        rmSync(tmp, { recursive: true, force: true });
        const r = spawnSync(python(), [script, tmp], { encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: '2' }, maxBuffer: 64 * 1024 * 1024 });
        if (r.status !== 0) throw new Error(`export_torch.py failed (exit ${r.status}):\n${(r.stderr ?? '').slice(-3000)}`);
        renameSync(tmp, dir);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
      break;
    }
  }
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as TorchFixtures['index'];
  return (cached = { ok: true, fixtures: { dir, index } });
}

/** A little-endian float32 file. */
export function readF32(file: string): Float32Array {
  const b = readFileSync(file);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}
