import { realpathSync, statSync } from 'node:fs';
import { decodeAudio } from '../audio';
import { encodeWav16 } from '../audio/wav';
import { CLIP_AUDIO_MAX_S, type ClipAudio, type ClipInfo } from '../../shared/api/clips';
import type { ClipIssue } from '../../shared/api/datasets';
import { NotFoundError, UserError } from '../../shared/errors';
import { datasetRootDir } from '../data/sources';
import { isEqualOrInside } from '../paths/same-path';
import { dataFolderProblem } from '../security/path-policy';
import { clipInfoRows, playableClipRow, type PlayableClipRow } from '../store/clips';
import type { HandlerMap } from './types';

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

/**
 * The file behind a clip, checked again now rather than trusted from import time: only
 * clips the import accepted (status ok or warning; a refused row keeps whatever path it
 * was given, a symlink's outside target included), only while the file's real path is
 * still inside its dataset's folder, and never inside the Equivox data folder.
 */
export function playableClipPath(row: PlayableClipRow, dataDir: string): string {
  if (row.status === 'excluded') {
    let reason = '';
    try {
      const errors = (JSON.parse(row.issues_json) as ClipIssue[]).filter((i) => i.severity === 'error');
      if (errors.length) reason = ` (${errors.map((e) => e.message).join('; ')})`;
    } catch {
      // The reason is a courtesy; the refusal stands without it.
    }
    throw new UserError(`this recording was refused when it was imported${reason}, so it is not played`, 'clipId');
  }
  let real: string;
  let root: string;
  try {
    real = realpathSync(row.path);
    root = realpathSync(datasetRootDir(row.source_kind, row.source_path));
  } catch {
    throw new NotFoundError(`the recording's file is no longer at ${row.path}`, 'clipId');
  }
  if (!isEqualOrInside(real, root)) throw new UserError(`the recording's file now leads outside its dataset's folder (${root}), so it is not played`, 'clipId');
  const problem = dataFolderProblem(real, dataDir);
  if (problem) throw new UserError(`the recording's file is not played: ${problem}`, 'clipId');
  if (!statSync(real).isFile()) throw new NotFoundError(`the recording's file is no longer at ${row.path}`, 'clipId');
  return real;
}

export const clipHandlers: HandlerMap<'clips.get' | 'clips.audio'> = {
  'clips.get': ({ projectId, clipIds }, { store }) => {
    if (clipIds.length === 0) return [];
    const db = store.db(projectId);
    const ids = [...new Set(clipIds)];
    const rows = clipInfoRows(db, ids);
    const byId = new Map(rows.map((r) => [r.id, r]));
    // In the order asked for; unknown ids are left out.
    return ids.flatMap((id): ClipInfo[] => {
      const r = byId.get(id);
      return r
        ? [{ id: r.id, relPath: r.rel_path, speaker: r.speaker, groups: parseGroups(r.groups_json), transcript: r.transcript, valence: r.valence, durationS: r.duration_s }]
        : [];
    });
  },
  'clips.audio': async ({ projectId, clipId }, { store, dataDir }): Promise<ClipAudio> => {
    const row = playableClipRow(store.db(projectId), clipId);
    if (!row) throw new NotFoundError(`no clip ${clipId} in this project`, 'clipId');
    const audio = await decodeAudio(playableClipPath(row, dataDir));
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
