import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/main/api';
import { ffmpegPath } from '../../../src/main/audio';
import { createEngine } from '../../../src/main/engine';

const temp = (p: string) => mkdtempSync(join(tmpdir(), p));
const engine = createEngine({ host: 'test', dataDir: temp('equivox-clips-home-') });
const api = createApi(engine);
afterAll(() => engine.close());

function setup(): { projectId: string; clipId: string } {
  const project = engine.store.create('Clips', join(temp('equivox-clips-'), 'p'));
  const wav = join(temp('equivox-sine-'), 'x.wav');
  execFileSync(ffmpegPath(), ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-ar', '16000', wav]);
  const db = engine.store.db(project.id);
  const now = new Date().toISOString();
  db.prepare(
    `INSERT INTO datasets (id, name, role, source_kind, source_path, status, created_at, updated_at) VALUES ('ds1', 'Sines', 'target', 'folder', ?, 'ready', ?, ?)`,
  ).run(dirname(wav), now, now);
  db.prepare(
    `INSERT INTO clips (id, dataset_id, row_index, path, rel_path, duration_s, speaker, groups_json, transcript, valence)
     VALUES ('c1', 'ds1', 1, ?, 'x.wav', 1.0, 'spk1', '{"gender":"female"}', 'a tone', 0.5)`,
  ).run(wav);
  return { projectId: project.id, clipId: 'c1' };
}

describe('clips API', () => {
  const { projectId, clipId } = setup();

  it('clips.get returns the facts of known clips in the order asked, skipping unknown ids', async () => {
    const clips = await api.invoke<'clips.get'>('clips.get', { projectId, clipIds: ['nope', clipId] });
    expect(clips).toEqual([{ id: 'c1', relPath: 'x.wav', speaker: 'spk1', groups: { gender: 'female' }, transcript: 'a tone', valence: 0.5, durationS: 1 }]);
  });

  it('clips.get refuses more than 500 ids', async () => {
    await expect(api.invoke('clips.get', { projectId, clipIds: Array.from({ length: 501 }, (_, i) => `c${i}`) })).rejects.toMatchObject({ code: 'validation' });
  });

  it('clips.audio returns a valid 16 kHz mono 16-bit WAV of the clip', async () => {
    const audio = await api.invoke<'clips.audio'>('clips.audio', { projectId, clipId });
    expect(audio.mime).toBe('audio/wav');
    expect(audio.truncated).toBe(false);
    const buf = Buffer.from(audio.base64, 'base64');
    expect(buf.toString('ascii', 0, 4)).toBe('RIFF');
    expect(buf.readUInt32LE(4)).toBe(buf.length - 8);
    expect(buf.toString('ascii', 8, 12)).toBe('WAVE');
    expect(buf.toString('ascii', 12, 16)).toBe('fmt ');
    expect(buf.readUInt16LE(20)).toBe(1); // PCM
    expect(buf.readUInt16LE(22)).toBe(1); // mono
    expect(buf.readUInt32LE(24)).toBe(16000);
    expect(buf.readUInt16LE(34)).toBe(16);
    expect(buf.toString('ascii', 36, 40)).toBe('data');
    const samples = buf.readUInt32LE(40) / 2;
    expect(samples).toBe(16000);
    expect(buf.length).toBe(44 + samples * 2);
    expect(audio.durationS).toBeCloseTo(1, 3);
    // A 440 Hz sine at ffmpeg's default amplitude (1/8): not silence, not clipped.
    let peak = 0;
    for (let i = 0; i < samples; i++) peak = Math.max(peak, Math.abs(buf.readInt16LE(44 + i * 2)));
    expect(peak).toBeGreaterThan(2000);
    expect(peak).toBeLessThan(32767);
  });

  it('clips.audio says when a clip is unknown', async () => {
    await expect(api.invoke('clips.audio', { projectId, clipId: 'missing' })).rejects.toMatchObject({ code: 'not_found', field: 'clipId' });
  });
});
