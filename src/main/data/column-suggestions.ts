/**
 * Which column of an auditor's spreadsheet holds what, guessed the way a person reads a
 * header: first from the column's name (normalised for case, spacing, punctuation, units
 * in parentheses, "ID" suffixes and British spelling, then looked up among synonyms), and
 * only for the columns whose names say nothing, from a sample of their values (existing
 * audio files, ratings within 1–9, sentences of several words).
 *
 * Names decide before content so that the same column gets the same suggestion in every
 * file: "Gender" is a group label in the clips sheet and in the ratings sheet alike,
 * whatever rows each happens to hold. The module is pure (no file system): whether a
 * value names an existing audio file is asked of the caller.
 */
import type { ColumnMapping, ColumnSuggestion, SuggestedSlot } from '../../shared/api/datasets';

export type { ColumnSuggestion, SuggestedSlot };

export interface ColumnSuggestions {
  /** The mapping the suggestions make, or null when no column can be the audio path. */
  mapping: ColumnMapping | null;
  suggestions: ColumnSuggestion[];
}

export interface SuggestOptions {
  /** Whether a cell's value names an audio file that exists (relative paths resolved by the caller). */
  audioExists?: (value: string) => boolean;
}

const SLOT_PLAIN: Record<SuggestedSlot, string> = {
  path: 'the audio file path',
  speaker: 'the speaker',
  transcript: 'the reference transcript (what was said)',
  valence: 'the pleasantness (valence) rating',
  hypothesis: 'the recogniser output (what the recogniser heard)',
  group: 'a group label',
};

/** British spellings an auditor may write, mapped to the one the synonym table uses. */
const SPELLING: Record<string, string> = {
  recogniser: 'recognizer',
  recognisers: 'recognizer',
  recognised: 'recognized',
  recognise: 'recognize',
  normalised: 'normalized',
  normalise: 'normalize',
  labelled: 'labeled',
  utterances: 'utterance',
  transcripts: 'transcript',
  transcriptions: 'transcription',
  accents: 'accent',
  files: 'file',
  ratings: 'rating',
  sentences: 'sentence',
};

/**
 * A header as a plain lower-case phrase: "Valence rating (1-9)" → "valence rating",
 * "SpeakerID" → "speaker id", "client_id" → "client id", "Recogniser output" →
 * "recognizer output". Units and ranges in brackets are dropped: they qualify a column,
 * they do not name it.
 */
export function normaliseHeader(header: string): string {
  const words = header
    .replace(/^\uFEFF/, '')
    .replace(/[([{][^)\]}]*[)\]}]/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
  return words.map((w) => SPELLING[w] ?? w).join(' ');
}

/** Normalised names and what they mean. Order matters only within a slot (earlier wins a tie). */
const SYNONYMS: Record<Exclude<SuggestedSlot, 'group'>, string[]> = {
  path: ['path', 'file', 'filename', 'file name', 'file path', 'filepath', 'audio', 'audio file', 'audio path', 'audio filepath', 'audio filename', 'audio file path', 'wav', 'wav file', 'wav path', 'flac', 'recording', 'recording file', 'clip', 'clip path', 'sound file', 'location'],
  speaker: ['speaker', 'spk', 'spkr', 'client', 'talker', 'participant', 'subject', 'reader', 'respondent', 'interviewee', 'speaker name', 'participant name', 'worker'],
  transcript: ['transcript', 'transcription', 'sentence', 'text', 'reference', 'ref', 'reference transcript', 'reference text', 'reference transcription', 'what was said', 'prompt', 'utterance', 'orthography', 'words', 'content', 'ground truth', 'gold transcript', 'human transcript', 'human transcription', 'normalized text', 'normalized transcript', 'original text'],
  valence: ['valence', 'valence rating', 'valence score', 'mean valence', 'rating', 'pleasantness', 'pleasantness rating', 'emotion rating', 'affect rating', 'val'],
  hypothesis: ['hypothesis', 'hyp', 'asr', 'asr output', 'asr transcript', 'asr text', 'asr hypothesis', 'recognizer output', 'recognizer', 'recognizer transcript', 'recognizer text', 'recognized text', 'speech recognizer output', 'speech recognition output', 'prediction', 'predicted', 'pred', 'pred text', 'predicted text', 'predicted transcript', 'model output', 'system output', 'automatic transcript', 'stt output', 'whisper output', 'decoded', 'what the recognizer heard', 'what was heard'],
};

const GROUPS = ['gender', 'sex', 'age', 'age band', 'age group', 'age range', 'age bracket', 'accent', 'dialect', 'dialect region', 'ability', 'variant', 'group', 'race', 'ethnicity', 'race ethnicity', 'region', 'language', 'l1', 'native language', 'first language', 'mother tongue', 'rate', 'speech rate', 'education', 'edu group', 'socioeconomic status', 'ses', 'social class', 'nationality', 'country', 'disability', 'condition', 'speaker group'];

/** Names that say a column is something else (counts, durations, bookkeeping): content rules leave them alone. */
const OTHER = ['id', 'index', 'row', 'no', 'number', 'duration', 'length', 'seconds', 'secs', 'start', 'end', 'start time', 'end time', 'offset', 'up votes', 'down votes', 'segment', 'locale', 'sentence id', 'sentence domain', 'utterance id', 'file id', 'chapter', 'chapter id', 'sample rate', 'sampling rate', 'channels', 'size', 'bytes', 'date', 'time', 'timestamp', 'notes', 'comment', 'comments', 'polarity', 'engine', 'pitch shift', 'rate shift', 'line'];

/** A suffix that names an identifier of a thing: "Speaker ID", "client_id", "SpeakerNo". */
const ID_SUFFIX = /\s(id|ids|identifier|code|no|number|num|key)$/;

const lookup = new Map<string, SuggestedSlot>();
for (const [slot, names] of Object.entries(SYNONYMS) as [SuggestedSlot, string[]][]) for (const n of names) if (!lookup.has(n)) lookup.set(n, slot);
for (const n of GROUPS) if (!lookup.has(n)) lookup.set(n, 'group');

/** What a header's name alone says, with the reason, or null. */
export function slotFromName(header: string): { slot: SuggestedSlot; reason: string } | null {
  const n = normaliseHeader(header);
  const direct = lookup.get(n);
  if (direct) return { slot: direct, reason: `the name “${header}” means ${SLOT_PLAIN[direct]}` };
  // "Speaker ID", "client_id", "Participant code": an identifier of a speaker is the speaker.
  const stem = n.replace(ID_SUFFIX, '');
  if (stem !== n && lookup.get(stem) === 'speaker') return { slot: 'speaker', reason: `the name “${header}” identifies ${SLOT_PLAIN.speaker}` };
  // "CORAAL.Spkr", "meta:gender": a namespace before the name.
  const tail = /^[^.:]+[.:](.+)$/.exec(header.trim())?.[1];
  if (tail) {
    const t = slotFromName(tail);
    if (t) return { slot: t.slot, reason: `the name “${header}” means ${SLOT_PLAIN[t.slot]}` };
  }
  return null;
}

const AUDIO_EXT = /\.(wav|wave|flac|mp3|ogg|oga|opus|m4a|aac|webm|aif|aiff|sph|amr|wma)$/i;
const NUMBER = /^[+-]?(\d+([.,]\d*)?|[.,]\d+)$/;

function sampleValues(rows: readonly Record<string, string>[], column: string): string[] {
  return rows.map((r) => (r[column] ?? '').trim()).filter((v) => v !== '');
}

function contentSlot(column: string, values: string[], taken: Set<SuggestedSlot>, options: SuggestOptions): ColumnSuggestion | null {
  if (values.length === 0) return null;
  const n = values.length;
  if (!taken.has('path') && values.every((v) => AUDIO_EXT.test(v))) {
    const exist = options.audioExists ? values.filter((v) => options.audioExists!(v)).length : null;
    if (exist === null || exist === n)
      return { column, slot: 'path', from: 'content', reason: exist === null ? `all ${n} values read are audio file names` : `all ${n} values read are audio files that exist` };
  }
  if (!taken.has('valence') && values.every((v) => NUMBER.test(v))) {
    const nums = values.map((v) => Number(v.replace(',', '.')));
    const distinct = new Set(nums).size;
    if (nums.every((x) => x >= 1 && x <= 9) && distinct >= 2) return { column, slot: 'valence', from: 'content', reason: `all ${n} values read are numbers within 1–9, like a rating scale` };
  }
  if (!taken.has('transcript')) {
    const words = values.map((v) => v.split(/\s+/).length).sort((a, b) => a - b);
    const median = words[Math.floor(words.length / 2)]!;
    if (median >= 3 && new Set(values).size >= Math.min(2, n)) return { column, slot: 'transcript', from: 'content', reason: `its values are sentences of several words (${median} words typically)` };
  }
  return null;
}

/**
 * Suggestions for every column that can be placed, and the mapping they make. `sample`
 * is the first rows of the file (the content rules read them); without it only names count.
 */
export function suggestColumns(header: readonly string[], sample: readonly Record<string, string>[] = [], options: SuggestOptions = {}): ColumnSuggestions {
  const suggestions: ColumnSuggestion[] = [];
  const single = new Map<SuggestedSlot, string>();
  const groups: string[] = [];
  const undecided: string[] = [];
  for (const h of header) {
    const byName = slotFromName(h);
    if (!byName) {
      const n = normaliseHeader(h);
      // Identifiers and bookkeeping columns are never guessed from their values (a column of 1–9 counts is not a rating).
      if (!OTHER.includes(n) && !ID_SUFFIX.test(n)) undecided.push(h);
      continue;
    }
    if (byName.slot === 'group') {
      groups.push(h);
      suggestions.push({ column: h, slot: 'group', from: 'name', reason: byName.reason });
    } else if (!single.has(byName.slot)) {
      single.set(byName.slot, h);
      suggestions.push({ column: h, slot: byName.slot, from: 'name', reason: byName.reason });
    }
  }
  const taken = new Set(single.keys());
  for (const h of undecided) {
    const s = contentSlot(h, sampleValues(sample, h), taken, options);
    if (!s) continue;
    taken.add(s.slot);
    single.set(s.slot, h);
    suggestions.push(s);
  }
  const path = single.get('path');
  if (!path) return { mapping: null, suggestions };
  const opt = (slot: SuggestedSlot, key: 'speaker' | 'transcript' | 'valence' | 'hypothesis') => (single.has(slot) ? { [key]: single.get(slot)! } : {});
  return {
    mapping: { path, groups, ignore: [], ...opt('speaker', 'speaker'), ...opt('transcript', 'transcript'), ...opt('valence', 'valence'), ...opt('hypothesis', 'hypothesis') },
    suggestions: header.flatMap((h) => suggestions.filter((s) => s.column === h)),
  };
}
