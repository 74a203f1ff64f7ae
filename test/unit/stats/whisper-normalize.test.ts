/**
 * The Whisper normaliser ports against Whisper's own Python (openai/whisper v20250625):
 * test/golden/whisper_normalizers.json holds 4,267 sentences with EnglishTextNormalizer's and
 * BasicTextNormalizer's outputs and the rule counts, produced by
 *   /usr/bin/python3 test/golden/whisper_normalizers.py --whisper WHISPER/whisper/normalizers --out test/golden/whisper_normalizers.json
 * (Debian 12 python3 3.11.2 with python3-regex and python3-more-itertools; see the script).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  analyseWer,
  normalizedWords,
  normalizeText,
  werRuleChanges,
  whisperBasic,
  whisperEnglish,
  whisperRuleChanges,
  whisperSpellingMap,
  WHISPER_RULE_FAMILIES,
} from '../../../src/main/stats';
import { pyRegex, pySplit } from '../../../src/main/stats/python-text';

interface Golden {
  whisper: { commit: string; release: string };
  python: string;
  unicodedata: string;
  spellingMappingSha256: string;
  families: string[];
  counts: Record<string, number>;
  cases: [source: string, text: string, english: string, basic: string, counts: number[]][];
}
const golden = JSON.parse(readFileSync('test/golden/whisper_normalizers.json', 'utf8')) as Golden;

/** Every mismatch, so a failure lists them all rather than the first. */
function mismatches(f: (text: string) => string, column: 2 | 3): { source: string; text: string; python: string; port: string }[] {
  return golden.cases.filter((c) => f(c[1]) !== c[column]).map((c) => ({ source: c[0], text: c[1], python: c[column], port: f(c[1]) }));
}

describe('Whisper normalisers against the Python original', () => {
  it('the golden set is the one described: thousands of sentences from every source, made with v20250625', () => {
    expect(golden.whisper.release).toBe('v20250625');
    expect(golden.whisper.commit).toBe('c0d2f624c09dc18e709e37c2ad90c039a4eb72a2');
    expect(golden.cases.length).toBeGreaterThan(4000);
    for (const source of ['edge', 'demo', 'en_GB', 'locale', 'changelog', 'man', 'spelling', 'generated']) expect(golden.counts[source]).toBeGreaterThan(100);
    expect(golden.families).toEqual([...WHISPER_RULE_FAMILIES]);
    // Non-Latin scripts, British spellings and numbers are really in it.
    const texts = golden.cases.map((c) => c[1]).join('\n');
    for (const re of [/\p{Script=Cyrillic}/u, /\p{Script=Greek}/u, /\p{Script=Arabic}/u, /\p{Script=Hebrew}/u, /\p{Script=Devanagari}/u, /\p{Script=Han}/u, /\p{Script=Hangul}/u, /\p{Script=Thai}/u, /colour/, /£\d/, /\d+%/, /ain't/, /\bum\b/i]) {
      expect(texts).toMatch(re);
    }
  });

  it('whisper-english equals EnglishTextNormalizer on every sentence (exact string equality)', () => {
    expect(mismatches(whisperEnglish, 2)).toEqual([]);
  });

  it('whisper-basic equals BasicTextNormalizer() on every sentence (exact string equality)', () => {
    expect(mismatches(whisperBasic, 3)).toEqual([]);
  });

  it('normalizeText dispatches to the ports', () => {
    for (const c of golden.cases.slice(0, 400)) {
      expect(normalizeText(c[1], 'whisper-english')).toBe(c[2]);
      expect(normalizeText(c[1], 'whisper-basic')).toBe(c[3]);
    }
  });

  it('the vendored spelling map is the one the golden was made with', () => {
    const map = Object.fromEntries([...whisperSpellingMap()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    // Python: json.dumps(mapping, ensure_ascii=False, sort_keys=True, separators=(",", ":")); ASCII keys sort alike.
    expect(createHash('sha256').update(JSON.stringify(map), 'utf8').digest('hex')).toBe(golden.spellingMappingSha256);
    expect(whisperSpellingMap().size).toBe(1739);
    expect(whisperSpellingMap().get('colour')).toBe('color');
  });

  it('rule counts equal the Python ablation on every sentence', () => {
    const bad = golden.cases.filter((c) => {
      const got = whisperRuleChanges(c[1]);
      return WHISPER_RULE_FAMILIES.some((f, i) => got[f] !== c[4][i]);
    });
    expect(bad.map((c) => ({ text: c[1], python: c[4], port: whisperRuleChanges(c[1]) }))).toEqual([]);
  });

  it('Python re semantics: Unicode \\b and \\d, Python whitespace', () => {
    // \b sees letters of any script as word characters; JavaScript's \b does not.
    expect('élan um ümlaut'.replace(pyRegex('\\bum\\b'), 'X')).toBe('élan X ümlaut');
    expect('éum'.replace(pyRegex('\\bum\\b'), 'X')).toBe('éum');
    expect('٣,٤'.replace(pyRegex('(\\d),(\\d)'), '$1$2')).toBe('٣٤');
    // U+001C is whitespace to Python's str.split(), U+FEFF is not.
    expect(pySplit('a\x1cb\ufeffc  d')).toEqual(['a', 'b\ufeffc', 'd']);
    expect(normalizedWords(whisperEnglish('a\ufeffb c'), 'whisper-english')).toEqual(['a\ufeffb', 'c']);
  });
});

describe('rule counts, hand-checked', () => {
  // Each count worked out by hand from english.py, then confirmed with
  //   /usr/bin/python3 test/golden/whisper_normalizers.py --whisper WHISPER/whisper/normalizers --counts "<text>" ...
  const cases: { text: string; normalised: string; counts: Partial<Record<(typeof WHISPER_RULE_FAMILIES)[number], number>> }[] = [
    // Without fillers "um" stays (1); without contractions ain't → "ain t" and gonna stays (ain, t, gonna: 3);
    // without numbers "twenty dollars" stays (2).
    { text: "Um, I ain't gonna pay twenty dollars.", normalised: 'i aint going to pay $20', counts: { fillers: 1, contractions: 3, numbers: 2 } },
    // laughter (brackets), mr (titles), "smith s" (contractions: s), "£1 500" (numbers: £1, 500), colour (spellings).
    { text: "Mr. Smith's colour TV cost £1,500 [laughter].", normalised: 'mister smith is color tv cost £1500', counts: { brackets: 1, contractions: 1, abbreviations: 1, numbers: 2, spellings: 1 } },
    // hmm (fillers); café and são keep their accents (diacritics: 2); "nine o clock" → "90 clock" (numbers: nine, o).
    { text: "Hmm, the café in São Paulo opens at nine o'clock.", normalised: 'the cafe in sao paulo opens at 90 clock', counts: { fillers: 1, numbers: 2, diacritics: 2 } },
  ];

  it('counts the words each family changes in each utterance', () => {
    for (const c of cases) {
      expect(whisperEnglish(c.text)).toBe(c.normalised);
      const want = Object.fromEntries(WHISPER_RULE_FAMILIES.map((f) => [f, c.counts[f] ?? 0]));
      expect(whisperRuleChanges(c.text)).toEqual(want);
    }
  });

  it('per group, the counts are the sums over its utterances, references and hypotheses apart', () => {
    const rows = [
      { group: 'a', reference: cases[0]!.text, hypothesis: cases[1]!.text },
      { group: 'a', reference: cases[2]!.text, hypothesis: 'i aint going to pay $20' },
      { group: 'b', reference: cases[1]!.text, hypothesis: cases[2]!.text },
    ];
    const rc = werRuleChanges(rows);
    expect(Object.keys(rc.groups)).toEqual(['a', 'b']);
    const a = rc.groups.a!;
    expect(a.utterances).toBe(2);
    expect(a.reference).toEqual({ brackets: 0, fillers: 2, contractions: 3, abbreviations: 0, numbers: 4, spellings: 0, diacritics: 2 });
    expect(a.hypothesis).toEqual({ brackets: 1, fillers: 0, contractions: 1, abbreviations: 1, numbers: 2, spellings: 1, diacritics: 0 });
    expect(a.referenceWords).toBe(pySplit(cases[0]!.normalised).length + pySplit(cases[2]!.normalised).length);
    expect(a.hypothesisWords).toBe(pySplit(cases[1]!.normalised).length + 6);
    expect(rc.groups.b!.reference).toEqual({ brackets: 1, fillers: 0, contractions: 1, abbreviations: 1, numbers: 2, spellings: 1, diacritics: 0 });
    expect(rc.groups.b!.hypothesis).toEqual({ brackets: 0, fillers: 1, contractions: 0, abbreviations: 0, numbers: 2, spellings: 0, diacritics: 2 });
  });

  it('stats wer reports rule counts only when whisper-english is in use', () => {
    const rows = [
      { id: '1', group: 'a', reference: cases[0]!.text, hypothesis: 'i aint going to pay $20' },
      { id: '2', group: 'b', reference: cases[1]!.text, hypothesis: 'mister smith is color tv cost £1500' },
    ];
    expect(analyseWer(rows, { bootstrap: 10, permutations: 10 }).ruleChanges).toBeUndefined();
    const both = analyseWer(rows, { normalize: 'basic', secondaryNormalize: 'whisper-english', bootstrap: 10, permutations: 10 });
    expect(both.ruleChanges!.groups.a!.reference.contractions).toBe(3);
    expect(both.secondary!.groups.a!.wer).toBe(0);
    expect(both.secondary!.groups.b!.wer).toBe(0);
    expect(analyseWer(rows, { normalize: 'whisper-english', bootstrap: 10, permutations: 10 }).groups.a!.wer).toBe(0);
  });
});
