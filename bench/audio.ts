/**
 * Decoding speed: seconds of audio decoded per second of wall time, one ffmpeg at a time
 * (so per core). `npx tsx bench/audio.ts` — prints figures, asserts nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyseAudio, decodeAudio } from '../src/main/audio';

const dir = mkdtempSync(join(tmpdir(), 'equivox-bench-'));
const make = (name: string, seconds: number, rate: number, channels: number) => {
  const f = join(dir, name);
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `anoisesrc=d=${seconds}:c=pink:r=${rate}:a=0.3`, '-ac', String(channels), f]);
  return f;
};

async function bench(label: string, file: string, seconds: number, runs: number, fn: (f: string) => Promise<unknown>) {
  await fn(file);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < runs; i += 1) await fn(file);
  const wall = Number(process.hrtime.bigint() - t0) / 1e9 / runs;
  console.log(`${label.padEnd(44)} ${(wall * 1000).toFixed(1).padStart(8)} ms/file  ${(seconds / wall).toFixed(0).padStart(6)}x real time`);
}

try {
  const cases: [string, number, number, number][] = [
    ['wav 44.1 kHz stereo 60 s', 60, 44100, 2],
    ['wav 16 kHz mono 60 s', 60, 16000, 1],
    ['flac 48 kHz mono 60 s', 60, 48000, 1],
    ['wav 16 kHz mono 3 s (short clip)', 3, 16000, 1],
  ];
  for (const [label, seconds, rate, ch] of cases) {
    const file = make(`${label.split(' ')[0]}-${rate}-${ch}-${seconds}.${label.startsWith('flac') ? 'flac' : 'wav'}`, seconds, rate, ch);
    await bench(`decode ${label}`, file, seconds, 5, (f) => decodeAudio(f));
    await bench(`analyse ${label}`, file, seconds, 5, (f) => analyseAudio(f));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
