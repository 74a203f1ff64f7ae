/**
 * The record of the SpEAT attribute selection the report carries (issue 34.6): every
 * valence-rated clip the selection saw, in row order, with its SHA-256, rating, duration, the
 * pole it went to and, for a clip left out, why (a speaker with too few rated clips, no speaker
 * id, or a rating between the poles; a tie at A's edge goes to the earlier row, at B's edge to
 * the later one, as attributeSets sorts, and the reason says so). The speakers are pseudonyms R01, R02, … numbered in the order of the real
 * ids, so sorting either gives the same order and the selection can be redone from the
 * record alone.
 */
import type { AttributeStimuli } from '../../shared/results';
import type { Clip } from '../data/repository';
import { attributeSets } from '../data/speat-design';

export function speakerPseudonymsSorted(speakers: Iterable<string>, prefix: string): Map<string, string> {
  const ids = [...new Set(speakers)].sort();
  const width = Math.max(2, String(ids.length).length);
  return new Map(ids.map((s, i) => [s, `${prefix}${String(i + 1).padStart(width, '0')}`]));
}

export function attributeStimuliRecord(datasetId: string, clips: readonly Clip[], k: number): AttributeStimuli {
  const sets = attributeSets(clips, k);
  const poleOf = new Map<string, 'A' | 'B'>([...sets.A.map((c) => [c.id, 'A'] as const), ...sets.B.map((c) => [c.id, 'B'] as const)]);
  const skipped = new Map(sets.skipped.map((s) => [s.speaker, s.reason]));
  const rated = clips.filter((c) => c.valence !== null).sort((a, b) => a.rowIndex - b.rowIndex);
  const pseudonym = speakerPseudonymsSorted(rated.flatMap((c) => (c.speaker ? [c.speaker] : [])), 'R');
  // The ratings at each pole's edge, per speaker: a left-out clip rated the same lost a tie on row order.
  const edge = new Map<string, { a: number; b: number }>();
  for (const s of sets.speakers) edge.set(s.speaker, { a: Math.min(...s.high), b: Math.max(...s.low) });
  return {
    datasetId,
    perSpeaker: k,
    clips: rated.map((c) => {
      const pole = poleOf.get(c.id) ?? null;
      let reason: string | null = null;
      if (pole === null) {
        if (!c.speaker) reason = 'no speaker id';
        else if (skipped.has(c.speaker)) reason = `speaker left out: ${skipped.get(c.speaker)!}`;
        else {
          const e = edge.get(c.speaker)!;
          // Clips are sorted by rating, highest first, then by row: A takes the first k, B the last k.
          if (c.valence === e.a) reason = `tied at ${c.valence} with a clip of this speaker in A; at the high pole the earlier row is taken`;
          else if (c.valence === e.b) reason = `tied at ${c.valence} with a clip of this speaker in B; at the low pole the later row is taken`;
          else reason = `rated between the speaker's ${k} highest and ${k} lowest`;
        }
      }
      return { id: c.id, row: c.rowIndex, speaker: c.speaker ? pseudonym.get(c.speaker)! : null, valence: c.valence!, sha256: c.sha256, durationS: c.durationS, pole, reason };
    }),
  };
}
