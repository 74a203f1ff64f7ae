import { z } from 'zod';
import { Id } from './common';

/** A clip's facts for a dashboard's stimulus list (no absolute paths leave the engine). */
export interface ClipInfo {
  id: string;
  relPath: string;
  speaker: string | null;
  groups: Record<string, string>;
  transcript: string | null;
  valence: number | null;
  durationS: number | null;
}

/** A clip decoded for playback: 16 kHz mono 16-bit PCM WAV, at most 30 s. */
export interface ClipAudio {
  mime: 'audio/wav';
  base64: string;
  durationS: number;
  /** True when the clip was longer than the 30 s cap and was cut. */
  truncated: boolean;
}

/** Longest stretch of a clip sent for playback. */
export const CLIP_AUDIO_MAX_S = 30;

export const clipOperations = {
  'clips.get': {
    input: z.strictObject({ projectId: Id, clipIds: z.array(Id).max(500, 'at most 500 clips at once') }),
    result: null as unknown as ClipInfo[],
    summary: 'Facts of clips by id (path relative to its source, speaker, groups, transcript, valence, duration)',
  },
  'clips.audio': {
    input: z.strictObject({ projectId: Id, clipId: Id }),
    result: null as unknown as ClipAudio,
    summary: 'A clip decoded to a 16 kHz mono WAV (first 30 s) for playback',
  },
} as const;
