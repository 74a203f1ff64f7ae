import { decodeAudio } from '../audio';
import { CLIP_AUDIO_MAX_S, type ClipAudio, type ClipInfo } from '../../shared/api/clips';
import { NotFoundError } from '../../shared/errors';
import type { HandlerMap } from './types';

interface ClipRow {
  id: string;
  path: string;
  rel_path: string;
  speaker: string | null;
  groups_json: string;
  transcript: string | null;
  valence: number | null;
  duration_s: number | null;
}

function parseGroups(json: string): Record<string, string> {
  try {
    const v = JSON.parse(json) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== null && x !== undefined) out[k] = String(x);
    return out;
  } catch {
    return {};
  }
}

/** 16-bit PCM mono WAV (RIFF) from float samples in [-1, 1] (clipped). */
export function encodeWav16(samples: Float32Array, sampleRate: number): Buffer {
  const dataBytes = samples.length * 2;
  const buf = Buffer.alloc(44 + dataBytes);
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + dataBytes, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(16, 16); // fmt chunk size
  buf.writeUInt16LE(1, 20); // PCM
  buf.writeUInt16LE(1, 22); // mono
  buf.writeUInt32LE(sampleRate, 24);
  buf.writeUInt32LE(sampleRate * 2, 28); // byte rate
  buf.writeUInt16LE(2, 32); // block align
  buf.writeUInt16LE(16, 34); // bits per sample
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]!));
    buf.writeInt16LE(Math.round(s < 0 ? s * 0x8000 : s * 0x7fff), 44 + i * 2);
  }
  return buf;
}

export const clipHandlers: HandlerMap<'clips.get' | 'clips.audio'> = {
  'clips.get': ({ projectId, clipIds }, { store }) => {
    if (clipIds.length === 0) return [];
    const db = store.db(projectId);
    const ids = [...new Set(clipIds)];
    const rows = db
      .prepare(
        `SELECT id, path, rel_path, speaker, groups_json, transcript, valence, duration_s FROM clips WHERE id IN (${ids.map(() => '?').join(',')})`,
      )
      .all(...ids) as ClipRow[];
    const byId = new Map(rows.map((r) => [r.id, r]));
    // In the order asked for; unknown ids are left out.
    return ids.flatMap((id): ClipInfo[] => {
      const r = byId.get(id);
      return r
        ? [{ id: r.id, relPath: r.rel_path, speaker: r.speaker, groups: parseGroups(r.groups_json), transcript: r.transcript, valence: r.valence, durationS: r.duration_s }]
        : [];
    });
  },
  'clips.audio': async ({ projectId, clipId }, { store }): Promise<ClipAudio> => {
    const row = store.db(projectId).prepare('SELECT path FROM clips WHERE id = ?').get(clipId) as { path: string } | undefined;
    if (!row) throw new NotFoundError(`no clip ${clipId} in this project`, 'clipId');
    const audio = await decodeAudio(row.path);
    const max = Math.round(CLIP_AUDIO_MAX_S * audio.sampleRate);
    const truncated = audio.samples.length > max;
    const samples = truncated ? audio.samples.subarray(0, max) : audio.samples;
    return {
      mime: 'audio/wav',
      base64: encodeWav16(samples, audio.sampleRate).toString('base64'),
      durationS: samples.length / audio.sampleRate,
      truncated,
    };
  },
};
