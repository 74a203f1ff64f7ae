/**
 * A port of openai/whisper's `whisper/normalizers/english.py` (release v20250625, commit
 * c0d2f624c09dc18e709e37c2ad90c039a4eb72a2; the file is unchanged since tag commit
 * 31243bad), MIT License, Copyright (c) 2022 OpenAI: the licence text travels in
 * whisper-english-spelling.json, which holds Whisper's english.json spelling map verbatim.
 *
 * `whisperEnglish` is `EnglishTextNormalizer()(s)`: the normaliser of Whisper's papers and
 * of the Open ASR Leaderboard. Statement for statement it follows the Python (Python's
 * regular expressions through pyRegex, its ints as BigInt, its Fraction parsing as in
 * Python 3.11), so the output is the same string, trailing spaces included; checked on
 * every sentence of test/golden/whisper_normalizers.json. One known difference: Python
 * refuses integers of more than 4,300 digits (ValueError), the port reads them.
 *
 * `off` switches rule families off, which the WER section uses to count the words each
 * family changes (whisperRuleChanges). With nothing switched off the output is Whisper's.
 */
import spelling from './whisper-english-spelling.json';
import { BRACKETED, PARENTHESISED, removeSymbolsAndDiacritics, WHITESPACE_RUN } from './whisper-basic';
import { pyInt, pyRegex, pySplit, pyStrip } from './python-text';

type Value = bigint | string | null;

const ONES_NAMES = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const ZEROS = new Set(['o', 'oh', 'zero']);
const ONES = new Map<string, bigint>(ONES_NAMES.map((n, i) => [n, BigInt(i + 1)]));
const ONES_PLURAL = new Map<string, [bigint, string]>([...ONES].map(([n, v]) => [n === 'six' ? 'sixes' : `${n}s`, [v, 's']]));
const ONES_ORDINAL = new Map<string, [bigint, string]>([
  ['zeroth', [0n, 'th']],
  ['first', [1n, 'st']],
  ['second', [2n, 'nd']],
  ['third', [3n, 'rd']],
  ['fifth', [5n, 'th']],
  ['twelfth', [12n, 'th']],
  ...[...ONES].filter(([, v]) => v > 3n && v !== 5n && v !== 12n).map(([n, v]): [string, [bigint, string]] => [n + (n.endsWith('t') ? 'h' : 'th'), [v, 'th']]),
]);
const ONES_SUFFIXED = new Map([...ONES_PLURAL, ...ONES_ORDINAL]);
const TENS = new Map<string, bigint>([
  ['twenty', 20n],
  ['thirty', 30n],
  ['forty', 40n],
  ['fifty', 50n],
  ['sixty', 60n],
  ['seventy', 70n],
  ['eighty', 80n],
  ['ninety', 90n],
]);
// Python's str.replace replaces every "y": "twenty" has one only, so this is the same.
const TENS_PLURAL = new Map<string, [bigint, string]>([...TENS].map(([n, v]) => [n.replaceAll('y', 'ies'), [v, 's']]));
const TENS_ORDINAL = new Map<string, [bigint, string]>([...TENS].map(([n, v]) => [n.replaceAll('y', 'ieth'), [v, 'th']]));
const TENS_SUFFIXED = new Map([...TENS_PLURAL, ...TENS_ORDINAL]);
const MULTIPLIERS = new Map<string, bigint>(
  (['hundred', 'thousand', 'million', 'billion', 'trillion', 'quadrillion', 'quintillion', 'sextillion', 'septillion', 'octillion', 'nonillion', 'decillion'] as const).map((n, i) => [n, i === 0 ? 100n : 1000n ** BigInt(i)]),
);
const MULTIPLIERS_PLURAL = new Map<string, [bigint, string]>([...MULTIPLIERS].map(([n, v]) => [`${n}s`, [v, 's']]));
const MULTIPLIERS_ORDINAL = new Map<string, [bigint, string]>([...MULTIPLIERS].map(([n, v]) => [`${n}th`, [v, 'th']]));
const MULTIPLIERS_SUFFIXED = new Map([...MULTIPLIERS_PLURAL, ...MULTIPLIERS_ORDINAL]);
const DECIMALS = new Set([...ONES.keys(), ...TENS.keys(), ...ZEROS]);
const PRECEDING_PREFIXERS = new Map([
  ['minus', '-'],
  ['negative', '-'],
  ['plus', '+'],
  ['positive', '+'],
]);
const FOLLOWING_PREFIXERS = new Map([
  ['pound', '£'],
  ['pounds', '£'],
  ['euro', '€'],
  ['euros', '€'],
  ['dollar', '$'],
  ['dollars', '$'],
  ['cent', '¢'],
  ['cents', '¢'],
]);
const PREFIXES = new Set([...PRECEDING_PREFIXERS.values(), ...FOLLOWING_PREFIXERS.values()]);
const SUFFIXERS = new Map<string, string | Map<string, string>>([
  ['per', new Map([['cent', '%']])],
  ['percent', '%'],
]);
const SPECIALS = new Set(['and', 'double', 'triple', 'point']);
const WORDS = new Set<string>([
  ...ZEROS,
  ...ONES.keys(),
  ...ONES_SUFFIXED.keys(),
  ...TENS.keys(),
  ...TENS_SUFFIXED.keys(),
  ...MULTIPLIERS.keys(),
  ...MULTIPLIERS_SUFFIXED.keys(),
  ...PRECEDING_PREFIXERS.keys(),
  ...FOLLOWING_PREFIXERS.keys(),
  ...SUFFIXERS.keys(),
  ...SPECIALS,
]);

const NUMERIC = pyRegex('^\\d+(\\.\\d+)?$', 'u');

/** Python 3.11's fractions._RATIONAL_FORMAT (its "d*" for the decimals is in the original). */
const RATIONAL = pyRegex(
  '\\A\\s*([-+]?)(?=\\d|\\.\\d)(\\d*|\\d+(?:_\\d+)*)(?:(?:/(\\d+(?:_\\d+)*))?|(?:\\.(d*|\\d+(?:_\\d+)*))?(?:E([-+]?\\d+(?:_\\d+)*))?)\\s*\\Z',
  'iu',
);

interface Fraction {
  numerator: bigint;
  denominator: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function reduced(n: bigint, d: bigint): Fraction {
  const g = gcd(n, d);
  return { numerator: n / g, denominator: d / g };
}

/** `Fraction(s)` for an int or a str, or null where Python raises ValueError. */
function toFraction(v: bigint | string): Fraction | null {
  if (typeof v === 'bigint') return { numerator: v, denominator: 1n };
  const m = RATIONAL.exec(v);
  if (m === null) return null;
  // int() strips underscores between digits; a decimal of letters "d" fails, as in Python.
  const int = (s: string): bigint | null => (/^\p{Nd}+$/u.test(s.replaceAll('_', '')) ? pyInt(s.replaceAll('_', '')) : null);
  let numerator = int(m[2] || '0');
  if (numerator === null) return null;
  let denominator = 1n;
  if (m[3]) {
    const d = int(m[3]);
    if (d === null) return null;
    denominator = d;
  } else {
    const decimal = m[4];
    if (decimal) {
      const digits = decimal.replaceAll('_', '');
      const dv = int(digits);
      if (dv === null) return null;
      const scale = 10n ** BigInt([...digits].length);
      numerator = numerator * scale + dv;
      denominator *= scale;
    }
    if (m[5]) {
      const sign = m[5].startsWith('-') ? -1n : 1n;
      const e = int(m[5].replace(/^[-+]/, ''));
      if (e === null) return null;
      if (sign > 0n) numerator *= 10n ** e;
      else denominator *= 10n ** e;
    }
  }
  if (m[1] === '-') numerator = -numerator;
  // Python raises ZeroDivisionError here; it cannot happen: no "/" survives the symbol removal.
  if (denominator === 0n) return null;
  return reduced(numerator, denominator);
}

function times(f: Fraction, m: bigint): Fraction {
  return reduced(f.numerator * m, f.denominator);
}

/** Python's `str(value or "")`. */
function orEmpty(v: Value): string {
  return v === null || v === 0n || v === '' ? '' : String(v);
}

/** Python's `x // 1000 * 1000` and `x % 1000` (values here are never negative). */
function thousands(v: bigint): [bigint, bigint] {
  return [(v / 1000n) * 1000n, v % 1000n];
}

function pythonAssert(ok: boolean): void {
  if (!ok) throw new Error('AssertionError in EnglishNumberNormalizer');
}

/** `EnglishNumberNormalizer.process_words`. */
function processWords(words: readonly string[]): string[] {
  const out: string[] = [];
  let prefix: string | null = null;
  let value: Value = null;
  let skip = false;
  const output = (result: string | bigint): string => {
    let r = String(result);
    if (prefix !== null) r = prefix + r;
    value = null;
    prefix = null;
    return r;
  };
  if (words.length === 0) return out;
  const padded: (string | null)[] = [null, ...words, null];
  for (let i = 0; i + 2 < padded.length; i += 1) {
    const prev = padded[i] ?? null;
    const current = padded[i + 1]!;
    const next = padded[i + 2] ?? null;
    if (skip) {
      skip = false;
      continue;
    }
    const nextIsNumeric = next !== null && NUMERIC.test(next);
    const first = String.fromCodePoint(current.codePointAt(0)!);
    const hasPrefix = PREFIXES.has(first);
    const currentWithoutPrefix = hasPrefix ? current.slice(first.length) : current;
    if (NUMERIC.test(currentWithoutPrefix)) {
      // arabic numbers (potentially with signs and fractions)
      const f = toFraction(currentWithoutPrefix);
      pythonAssert(f !== null);
      if (value !== null) {
        if (typeof value === 'string' && value.endsWith('.')) {
          // concatenate decimals / ip address components
          value = value + current;
          continue;
        } else {
          out.push(output(value));
        }
      }
      prefix = hasPrefix ? first : prefix;
      value = f!.denominator === 1n ? f!.numerator : currentWithoutPrefix;
    } else if (!WORDS.has(current)) {
      // non-numeric words
      if (value !== null) out.push(output(value));
      out.push(output(current));
    } else if (ZEROS.has(current)) {
      value = orEmpty(value) + '0';
    } else if (ONES.has(current)) {
      const ones = ONES.get(current)!;
      if (value === null) value = ones;
      else if (typeof value === 'string' || (prev !== null && ONES.has(prev))) {
        if (prev !== null && TENS.has(prev) && ones < 10n) {
          // replace the last zero with the digit
          const s: string = value as string;
          pythonAssert(s.endsWith('0'));
          value = s.slice(0, -1) + String(ones);
        } else value = String(value) + String(ones);
      } else if (ones < 10n) {
        if (value % 10n === 0n) value += ones;
        else value = String(value) + String(ones);
      } else {
        // eleven to nineteen
        if (value % 100n === 0n) value += ones;
        else value = String(value) + String(ones);
      }
    } else if (ONES_SUFFIXED.has(current)) {
      // ordinal or cardinal; yield the number right away
      const [ones, suffix] = ONES_SUFFIXED.get(current)!;
      if (value === null) out.push(output(String(ones) + suffix));
      else if (typeof value === 'string' || (prev !== null && ONES.has(prev))) {
        if (prev !== null && TENS.has(prev) && ones < 10n) {
          const s: string = value as string;
          pythonAssert(s.endsWith('0'));
          out.push(output(s.slice(0, -1) + String(ones) + suffix));
        } else out.push(output(String(value) + String(ones) + suffix));
      } else if (ones < 10n) {
        if (value % 10n === 0n) out.push(output(String(value + ones) + suffix));
        else out.push(output(String(value) + String(ones) + suffix));
      } else {
        if (value % 100n === 0n) out.push(output(String(value + ones) + suffix));
        else out.push(output(String(value) + String(ones) + suffix));
      }
      value = null;
    } else if (TENS.has(current)) {
      const tens = TENS.get(current)!;
      if (value === null) value = tens;
      else if (typeof value === 'string') value = value + String(tens);
      else if (value % 100n === 0n) value += tens;
      else value = String(value) + String(tens);
    } else if (TENS_SUFFIXED.has(current)) {
      // ordinal or cardinal; yield the number right away
      const [tens, suffix] = TENS_SUFFIXED.get(current)!;
      if (value === null) out.push(output(String(tens) + suffix));
      else if (typeof value === 'string') out.push(output(value + String(tens) + suffix));
      else if (value % 100n === 0n) out.push(output(String(value + tens) + suffix));
      else out.push(output(String(value) + String(tens) + suffix));
    } else if (MULTIPLIERS.has(current)) {
      const multiplier = MULTIPLIERS.get(current)!;
      if (value === null) value = multiplier;
      else if (typeof value === 'string' || value === 0n) {
        const f = toFraction(value);
        const p = f !== null ? times(f, multiplier) : null;
        if (p !== null && p.denominator === 1n) value = p.numerator;
        else {
          out.push(output(value));
          value = multiplier;
        }
      } else {
        const [before, residual] = thousands(value);
        value = before + residual * multiplier;
      }
    } else if (MULTIPLIERS_SUFFIXED.has(current)) {
      const [multiplier, suffix] = MULTIPLIERS_SUFFIXED.get(current)!;
      if (value === null) out.push(output(String(multiplier) + suffix));
      else if (typeof value === 'string') {
        const f = toFraction(value);
        const p = f !== null ? times(f, multiplier) : null;
        if (p !== null && p.denominator === 1n) out.push(output(String(p.numerator) + suffix));
        else {
          out.push(output(value));
          out.push(output(String(multiplier) + suffix));
        }
      } else {
        const [before, residual] = thousands(value);
        value = before + residual * multiplier;
        out.push(output(String(value) + suffix));
      }
      value = null;
    } else if (PRECEDING_PREFIXERS.has(current)) {
      // apply prefix (positive, minus, etc.) if it precedes a number
      if (value !== null) out.push(output(value));
      if ((next !== null && WORDS.has(next)) || nextIsNumeric) prefix = PRECEDING_PREFIXERS.get(current)!;
      else out.push(output(current));
    } else if (FOLLOWING_PREFIXERS.has(current)) {
      // apply prefix (dollars, cents, etc.) only after a number
      if (value !== null) {
        prefix = FOLLOWING_PREFIXERS.get(current)!;
        out.push(output(value));
      } else out.push(output(current));
    } else if (SUFFIXERS.has(current)) {
      // apply suffix symbols (percent -> '%')
      if (value !== null) {
        const suffix = SUFFIXERS.get(current)!;
        if (suffix instanceof Map) {
          if (next !== null && suffix.has(next)) {
            out.push(output(String(value) + suffix.get(next)!));
            skip = true;
          } else {
            out.push(output(value));
            out.push(output(current));
          }
        } else out.push(output(String(value) + suffix));
      } else out.push(output(current));
    } else if (SPECIALS.has(current)) {
      if (!(next !== null && WORDS.has(next)) && !nextIsNumeric) {
        // apply special handling only if the next word can be numeric
        if (value !== null) out.push(output(value));
        out.push(output(current));
      } else if (current === 'and') {
        // ignore "and" after hundreds, thousands, etc.
        if (!(prev !== null && MULTIPLIERS.has(prev))) {
          if (value !== null) out.push(output(value));
          out.push(output(current));
        }
      } else if (current === 'double' || current === 'triple') {
        if (next !== null && (ONES.has(next) || ZEROS.has(next))) {
          const repeats = current === 'double' ? 2 : 3;
          const ones = ONES.get(next) ?? 0n;
          value = orEmpty(value) + String(ones).repeat(repeats);
          skip = true;
        } else {
          if (value !== null) out.push(output(value));
          out.push(output(current));
        }
      } else if (current === 'point') {
        if ((next !== null && DECIMALS.has(next)) || nextIsNumeric) value = orEmpty(value) + '.';
      } else throw new Error(`Unexpected token: ${current}`);
    } else throw new Error(`Unexpected token: ${current}`);
  }
  if (value !== null) out.push(output(value));
  return out;
}

const AND_A_HALF = pyRegex('\\band\\s+a\\s+half\\b');
const LETTER_DIGIT = pyRegex('([a-z])([0-9])');
const DIGIT_LETTER = pyRegex('([0-9])([a-z])');
const DIGIT_SUFFIX = pyRegex('([0-9])\\s+(st|nd|rd|th|s)\\b');
const CENTS = pyRegex('([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})\\b');
const ONLY_CENTS = pyRegex('[€£$]0.([0-9]{1,2})\\b');
const ONE = pyRegex('\\b1(s?)\\b');

function preprocessNumbers(s: string): string {
  // replace "<number> and a half" with "<number> point five"
  const results: string[] = [];
  const segments = s.split(AND_A_HALF);
  segments.forEach((segment, i) => {
    if (pyStrip(segment).length === 0) return;
    results.push(segment);
    if (i === segments.length - 1) return;
    const lastWord = pySplit(segment).at(-1)!;
    results.push(DECIMALS.has(lastWord) || MULTIPLIERS.has(lastWord) ? 'point five' : 'and a half');
  });
  let t = results.join(' ');
  // put a space at number/letter boundary
  t = t.replace(LETTER_DIGIT, '$1 $2');
  t = t.replace(DIGIT_LETTER, '$1 $2');
  // but remove spaces which could be a suffix
  return t.replace(DIGIT_SUFFIX, '$1$2');
}

function postprocessNumbers(s: string): string {
  // apply currency postprocessing; "$2 and ¢7" -> "$2.07"
  let t = s.replace(CENTS, (_m, currency: string, integer: string, cents: string) => `${currency}${integer}.${String(Number(cents)).padStart(2, '0')}`);
  t = t.replace(ONLY_CENTS, (_m, cents: string) => `¢${Number(cents)}`);
  // write "one(s)" instead of "1(s)", just for the readability
  return t.replace(ONE, 'one$1');
}

/** `EnglishNumberNormalizer()(s)`: spelled-out numbers to digits, currencies and % after them. */
export function whisperEnglishNumbers(s: string): string {
  const t = preprocessNumbers(s);
  return postprocessNumbers(processWords(pySplit(t)).join(' '));
}

const SPELLING = new Map(Object.entries((spelling as { mapping: Record<string, string> }).mapping));

/** The spelling map's entries (British → American), as vendored from Whisper. */
export function whisperSpellingMap(): ReadonlyMap<string, string> {
  return SPELLING;
}

/** `EnglishSpellingNormalizer()(s)`: British to American spellings, word by word. */
export function whisperEnglishSpelling(s: string): string {
  return pySplit(s)
    .map((w) => SPELLING.get(w) ?? w)
    .join(' ');
}

/**
 * Rule families of whisperEnglish that the WER section counts: each can be switched off
 * alone. Brackets: [..], <..> and (..) dropped. Fillers: hmm, mm, mhm, mmm, uh, um.
 * Contractions: won't, can't, ain't, gonna, wanna, y'all, 's been, n't, 're, 's, 'd … and
 * the joining of a space before an apostrophe. Abbreviations: mr, mrs, st, dr and the other
 * titles. Numbers: commas between digits and the number normaliser. Spellings: the
 * British → American map. Diacritics: nonspacing marks dropped and æ ø ß ð þ ł … spelled
 * in ASCII (switched off, they stay; other marks, symbols and punctuation still go).
 */
export const WHISPER_RULE_FAMILIES = ['brackets', 'fillers', 'contractions', 'abbreviations', 'numbers', 'spellings', 'diacritics'] as const;
export type WhisperRuleFamily = (typeof WHISPER_RULE_FAMILIES)[number];

const IGNORE_PATTERNS = pyRegex('\\b(hmm|mm|mhm|mmm|uh|um)\\b');
const SPACE_APOSTROPHE = pyRegex("\\s+'");

const COMMON_CONTRACTIONS: [string, string][] = [
  ["\\bwon't\\b", 'will not'],
  ["\\bcan't\\b", 'can not'],
  ["\\blet's\\b", 'let us'],
  ["\\bain't\\b", 'aint'],
  ["\\by'all\\b", 'you all'],
  ['\\bwanna\\b', 'want to'],
  ['\\bgotta\\b', 'got to'],
  ['\\bgonna\\b', 'going to'],
  ["\\bi'ma\\b", 'i am going to'],
  ['\\bimma\\b', 'i am going to'],
  ['\\bwoulda\\b', 'would have'],
  ['\\bcoulda\\b', 'could have'],
  ['\\bshoulda\\b', 'should have'],
  ["\\bma'am\\b", 'madam'],
];
const TITLES: [string, string][] = [
  ['\\bmr\\b', 'mister '],
  ['\\bmrs\\b', 'missus '],
  ['\\bst\\b', 'saint '],
  ['\\bdr\\b', 'doctor '],
  ['\\bprof\\b', 'professor '],
  ['\\bcapt\\b', 'captain '],
  ['\\bgov\\b', 'governor '],
  ['\\bald\\b', 'alderman '],
  ['\\bgen\\b', 'general '],
  ['\\bsen\\b', 'senator '],
  ['\\brep\\b', 'representative '],
  ['\\bpres\\b', 'president '],
  ['\\brev\\b', 'reverend '],
  ['\\bhon\\b', 'honorable '],
  ['\\basst\\b', 'assistant '],
  ['\\bassoc\\b', 'associate '],
  ['\\blt\\b', 'lieutenant '],
  ['\\bcol\\b', 'colonel '],
  ['\\bjr\\b', 'junior '],
  ['\\bsr\\b', 'senior '],
  ['\\besq\\b', 'esquire '],
];
const PERFECT_AND_GENERAL: [string, string][] = [
  // prefect tenses, ideally it should be any past participles, but it's harder..
  ["'d been\\b", ' had been'],
  ["'s been\\b", ' has been'],
  ["'d gone\\b", ' had gone'],
  ["'s gone\\b", ' has gone'],
  ["'d done\\b", ' had done'], // "'s done" is ambiguous
  ["'s got\\b", ' has got'],
  // general contractions
  ["n't\\b", ' not'],
  ["'re\\b", ' are'],
  ["'s\\b", ' is'],
  ["'d\\b", ' would'],
  ["'ll\\b", ' will'],
  ["'t\\b", ' not'],
  ["'ve\\b", ' have'],
  ["'m\\b", ' am'],
];
// Whisper's replacers dict, in its order: common contractions, titles, perfect tenses, general.
const REPLACERS: { re: RegExp; to: string; family: WhisperRuleFamily }[] = [
  ...COMMON_CONTRACTIONS.map(([p, to]) => ({ re: pyRegex(p), to, family: 'contractions' as const })),
  ...TITLES.map(([p, to]) => ({ re: pyRegex(p), to, family: 'abbreviations' as const })),
  ...PERFECT_AND_GENERAL.map(([p, to]) => ({ re: pyRegex(p), to, family: 'contractions' as const })),
];
const DIGIT_COMMA_DIGIT = pyRegex('(\\d),(\\d)');
const PERIOD = pyRegex('\\.([^0-9]|$)');
const LONE_PREFIX_SYMBOL = pyRegex('[.$¢€£]([^0-9])');
const LONE_SUFFIX_SYMBOL = pyRegex('([^0-9])%');
const KEEP = '.%$¢€£';
const MN = /^\p{Mn}$/u;
const SYMBOLS = /[\p{M}\p{S}\p{P}]/gu;

/** remove_symbols_and_diacritics with the diacritic rules off: Mn marks and æ, ø … stay. */
function removeSymbolsKeepingDiacritics(s: string, keep: string): string {
  return s.normalize('NFKD').replace(SYMBOLS, (c) => (keep.includes(c) || MN.test(c) ? c : ' '));
}

/**
 * `EnglishTextNormalizer()(s)`, with the rule families in `off` switched off. `changed`, when
 * given, collects the families whose steps changed the text: a family that did not leaves
 * the output as it is when switched off (the later steps see the same input).
 */
export function whisperEnglish(s: string, off?: ReadonlySet<WhisperRuleFamily>, changed?: Set<WhisperRuleFamily>): string {
  const on = (f: WhisperRuleFamily): boolean => off === undefined || !off.has(f);
  const step = (f: WhisperRuleFamily, before: string, after: string): string => {
    if (changed && before !== after) changed.add(f);
    return after;
  };
  let t = s.toLowerCase();
  if (on('brackets')) {
    // remove words between brackets, then between parenthesis
    t = step('brackets', t, t.replace(BRACKETED, '').replace(PARENTHESISED, ''));
  }
  if (on('fillers')) t = step('fillers', t, t.replace(IGNORE_PATTERNS, ''));
  if (on('contractions')) t = step('contractions', t, t.replace(SPACE_APOSTROPHE, "'")); // when there's a space before an apostrophe
  for (const r of REPLACERS) if (on(r.family)) t = step(r.family, t, t.replace(r.re, r.to));
  if (on('numbers')) t = step('numbers', t, t.replace(DIGIT_COMMA_DIGIT, '$1$2')); // remove commas between digits
  t = t.replace(PERIOD, ' $1'); // remove periods not followed by numbers
  if (on('diacritics')) {
    const kept = changed ? removeSymbolsKeepingDiacritics(t, KEEP) : '';
    t = removeSymbolsAndDiacritics(t, KEEP); // keep numeric symbols
    if (changed && kept !== t) changed.add('diacritics');
  } else t = removeSymbolsKeepingDiacritics(t, KEEP);
  // Both steps split on whitespace: a change of spacing alone changes no later step's words.
  const spaced = (x: string): string => (changed ? pySplit(x).join(' ') : x);
  if (on('numbers')) t = step('numbers', spaced(t), whisperEnglishNumbers(t));
  if (on('spellings')) t = step('spellings', spaced(t), whisperEnglishSpelling(t));
  // now remove prefix/suffix symbols that are not preceded/followed by numbers
  t = t.replace(LONE_PREFIX_SYMBOL, ' $1');
  t = t.replace(LONE_SUFFIX_SYMBOL, '$1 ');
  return t.replace(WHITESPACE_RUN, ' '); // replace any successive whitespaces with a space
}

/** whisperEnglish's output and the words each rule family changes in it (see whisperRuleChanges). */
export function whisperEnglishWithChanges(text: string): { text: string; changes: Record<WhisperRuleFamily, number> } {
  const changed = new Set<WhisperRuleFamily>();
  const full = whisperEnglish(text, undefined, changed);
  const have = new Map<string, number>();
  for (const w of pySplit(full)) have.set(w, (have.get(w) ?? 0) + 1);
  const changes = {} as Record<WhisperRuleFamily, number>;
  for (const family of WHISPER_RULE_FAMILIES) {
    changes[family] = 0;
    if (!changed.has(family)) continue;
    const left = new Map(have);
    for (const w of pySplit(whisperEnglish(text, new Set([family])))) {
      const n = left.get(w) ?? 0;
      if (n > 0) left.set(w, n - 1);
      else changes[family] += 1;
    }
  }
  return { text: full, changes };
}

/**
 * Words each rule family changes in one text: the words of whisperEnglish's output with
 * that family alone switched off that are missing from the full output (a multiset
 * difference, so word order and alignment do not matter). "Twenty one dollars" → "$21"
 * counts 3 for numbers; "gonna" → "going to" 1 for contractions; "um" 1 for fillers.
 * Families overlap (a bracketed filler counts under both), so counts do not add up to a total.
 */
export function whisperRuleChanges(text: string): Record<WhisperRuleFamily, number> {
  return whisperEnglishWithChanges(text).changes;
}
