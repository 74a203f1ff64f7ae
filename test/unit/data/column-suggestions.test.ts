/**
 * Column suggestions: real-world header spellings (Common Voice, CORAAL-like,
 * LibriSpeech-like, spreadsheets with spaces, units and British spelling) map to the slot
 * a person would choose; content rules place the columns whose names say nothing; the
 * same column gets the same suggestion in every file; a manifest read by the real
 * importer carries the suggestions and their reasons.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { normaliseHeader, slotFromName, suggestColumns } from '../../../src/main/data/column-suggestions';
import { loadManifest } from '../../../src/main/data/sources';
import { rolesSupportedBy } from '../../../src/shared/roles';

// [header as found in the wild, the slot a person would map it to]
const SPELLINGS: [string, string][] = [
  // Common Voice (validated.tsv)
  ['client_id', 'speaker'],
  ['path', 'path'],
  ['sentence', 'transcript'],
  ['gender', 'group'],
  ['accents', 'group'],
  ['age', 'group'],
  ['variant', 'group'],
  // CORAAL-like metadata
  ['CORAAL.Spkr', 'speaker'],
  ['Spkr', 'speaker'],
  ['Content', 'transcript'],
  ['Age.Group', 'group'],
  ['Edu.Group', 'group'],
  ['Gender', 'group'],
  // LibriSpeech-like (SPEAKERS.TXT, transcripts)
  ['READER', 'speaker'],
  ['SEX', 'group'],
  ['TEXT', 'transcript'],
  ['speaker_id', 'speaker'],
  // NeMo / Hugging Face manifests
  ['audio_filepath', 'path'],
  ['audio', 'path'],
  ['text', 'transcript'],
  ['pred_text', 'hypothesis'],
  // spreadsheets people make
  ['File', 'path'],
  ['File name', 'path'],
  ['Audio file (WAV)', 'path'],
  ['Speaker ID', 'speaker'],
  ['SpeakerID', 'speaker'],
  ['Talker', 'speaker'],
  ['Participant code', 'speaker'],
  ['Accent', 'group'],
  ['What was said', 'transcript'],
  ['Reference transcript', 'transcript'],
  ['Recogniser output', 'hypothesis'],
  ['Recognizer Output', 'hypothesis'],
  ['ASR output', 'hypothesis'],
  ['ASR-Transcript', 'hypothesis'],
  ['recogniser_output', 'hypothesis'],
  ['Valence rating (1-9)', 'valence'],
  ['Valence (1–9 scale)', 'valence'],
  ['Rating', 'valence'],
  ['Pleasantness', 'valence'],
  ['Sex', 'group'],
  ['Age band', 'group'],
  ['First language (L1)', 'group'],
  ['Ethnicity', 'group'],
  ['Dialect region', 'group'],
];

describe('header names', () => {
  it.each(SPELLINGS)('%s → %s', (header, slot) => {
    expect(slotFromName(header)?.slot ?? null).toBe(slot);
  });

  it('covers at least 25 real-world spellings', () => {
    expect(SPELLINGS.length).toBeGreaterThanOrEqual(25);
  });

  it('normalises case, spacing, punctuation, units, camel case and British spelling', () => {
    expect(normaliseHeader('Valence rating (1-9)')).toBe('valence rating');
    expect(normaliseHeader('  Speaker_ID ')).toBe('speaker id');
    expect(normaliseHeader('SpeakerID')).toBe('speaker id');
    expect(normaliseHeader('Recogniser-Output')).toBe('recognizer output');
    expect(normaliseHeader('\uFEFFpath')).toBe('path');
    expect(normaliseHeader('Duration [s]')).toBe('duration');
  });

  it('leaves identifiers and bookkeeping unplaced: sentence_id is not the sentence, up_votes is not a rating', () => {
    for (const h of ['sentence_id', 'utterance ID', 'up_votes', 'down_votes', 'locale', 'segment', 'Duration (s)', 'voice']) expect(slotFromName(h), h).toBeNull();
  });
});

describe('the mapping the names make', () => {
  it('the issue’s two spreadsheets: every column placed, the same column the same way in both', () => {
    const clips = suggestColumns(['File', 'Speaker ID', 'Accent', 'Gender', 'What was said', 'Recogniser output']);
    expect(clips.mapping).toEqual({ path: 'File', speaker: 'Speaker ID', groups: ['Accent', 'Gender'], transcript: 'What was said', hypothesis: 'Recogniser output', ignore: [] });
    const ratings = suggestColumns(['File', 'Talker', 'Gender', 'Accent', 'Valence rating (1-9)']);
    expect(ratings.mapping).toEqual({ path: 'File', speaker: 'Talker', groups: ['Gender', 'Accent'], valence: 'Valence rating (1-9)', ignore: [] });
    const slotOf = (s: typeof clips, c: string) => s.suggestions.find((x) => x.column === c)?.slot;
    for (const c of ['File', 'Gender', 'Accent']) expect(slotOf(ratings, c)).toBe(slotOf(clips, c));
    // The roles these columns support (the Data step ticks them): FDI needs a speaker, which both have.
    expect(rolesSupportedBy(clips.mapping!)).toEqual(['target', 'asr', 'verification']);
    expect(rolesSupportedBy(ratings.mapping!)).toEqual(['target', 'attribute', 'verification']);
  });

  it('Common Voice’s header', () => {
    const cv = suggestColumns(['client_id', 'path', 'sentence_id', 'sentence', 'sentence_domain', 'up_votes', 'down_votes', 'age', 'gender', 'accents', 'variant', 'locale', 'segment']);
    expect(cv.mapping).toEqual({ path: 'path', speaker: 'client_id', transcript: 'sentence', groups: ['age', 'gender', 'accents', 'variant'], ignore: [] });
  });

  it('each suggestion says why, naming the column', () => {
    const s = suggestColumns(['Talker', 'wav']).suggestions;
    expect(s).toEqual([
      { column: 'Talker', slot: 'speaker', from: 'name', reason: 'the name “Talker” means the speaker' },
      { column: 'wav', slot: 'path', from: 'name', reason: 'the name “wav” means the audio file path' },
    ]);
  });

  it('the first of two columns for one slot wins; the second is left for the auditor', () => {
    const s = suggestColumns(['path', 'file', 'text', 'transcript']);
    expect(s.mapping).toMatchObject({ path: 'path', transcript: 'text' });
    expect(s.suggestions.map((x) => x.column)).toEqual(['path', 'text']);
  });

  it('no audio path: no mapping, but the other suggestions stay', () => {
    const s = suggestColumns(['Talker', 'Rating']);
    expect(s.mapping).toBeNull();
    expect(s.suggestions.map((x) => x.slot)).toEqual(['speaker', 'valence']);
  });
});

describe('content rules, for columns whose names say nothing', () => {
  const rows = [
    { a: 'clips/one.wav', b: '3.5', c: 'open the window please', d: '7', e: 'x' },
    { a: 'clips/two.wav', b: '8', c: 'bring me the red cup', d: '12', e: 'y' },
    { a: 'clips/three.wav', b: '1', c: 'the meeting starts at nine', d: '3', e: 'z' },
  ];
  const exists = (v: string) => v !== 'clips/gone.wav';

  it('audio files that exist → path; numbers within 1–9 → rating; sentences → transcript; others untouched', () => {
    const s = suggestColumns(['a', 'b', 'c', 'd', 'e'], rows, { audioExists: exists });
    expect(s.mapping).toEqual({ path: 'a', valence: 'b', transcript: 'c', groups: [], ignore: [] });
    expect(s.suggestions.map((x) => [x.column, x.slot, x.from])).toEqual([
      ['a', 'path', 'content'],
      ['b', 'valence', 'content'],
      ['c', 'transcript', 'content'],
    ]);
    expect(s.suggestions[0]!.reason).toBe('all 3 values read are audio files that exist');
    expect(s.suggestions[1]!.reason).toBe('all 3 values read are numbers within 1–9, like a rating scale');
    expect(s.suggestions[2]!.reason).toBe('its values are sentences of several words (5 words typically)');
  });

  it('one audio file missing: not suggested as the path', () => {
    const s = suggestColumns(['a'], [...rows, { a: 'clips/gone.wav' }], { audioExists: exists });
    expect(s.mapping).toBeNull();
  });

  it('a number above 9 or a single repeated number is not a rating', () => {
    expect(suggestColumns(['a', 'd'], rows).mapping).toEqual({ path: 'a', groups: [], ignore: [] });
    expect(suggestColumns(['a', 'b'], rows.map((r) => ({ ...r, b: '5' }))).mapping).toEqual({ path: 'a', groups: [], ignore: [] });
  });

  it('names decide before content: a column named as a group stays a group whatever its values', () => {
    const s = suggestColumns(['a', 'Age'], rows.map((r, i) => ({ ...r, Age: String(i + 2) })));
    expect(s.mapping).toEqual({ path: 'a', groups: ['Age'], ignore: [] });
  });

  it('identifiers are not read as ratings (Row ID of 1–9)', () => {
    const s = suggestColumns(['a', 'Row ID'], rows.map((r, i) => ({ ...r, 'Row ID': String(i + 1) })));
    expect(s.mapping).toEqual({ path: 'a', groups: [], ignore: [] });
  });
});

describe('a manifest read by the importer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'equivox-suggest-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('checks the audio paths on disk inside the manifest’s folder, and carries the reasons', () => {
    mkdirSync(join(dir, 'audio'));
    for (const f of ['a.wav', 'b.wav']) writeFileSync(join(dir, 'audio', f), 'RIFF');
    writeFileSync(join(dir, 'sheet.csv'), 'Clip ref,Talker,Score\r\naudio/a.wav,s1,2\r\naudio/b.wav,s2,6.5\r\n');
    const t = loadManifest(join(dir, 'sheet.csv'));
    expect(t.defaultMapping).toEqual({ path: 'Clip ref', speaker: 'Talker', valence: 'Score', groups: [], ignore: [] });
    expect(t.suggestions!.map((s) => [s.column, s.from])).toEqual([
      ['Clip ref', 'content'],
      ['Talker', 'name'],
      ['Score', 'content'],
    ]);
    // A path that leaves the folder is never probed, so it cannot make a column "existing audio".
    writeFileSync(join(dir, 'outside.csv'), `Clip ref,Talker\r\n${join(dir, 'audio', 'a.wav')},s1\r\n../x.wav,s2\r\n`);
    expect(loadManifest(join(dir, 'outside.csv')).defaultMapping).toBeNull();
  });
});
