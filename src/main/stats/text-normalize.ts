/**
 * Transcript normalisation (METHODS.md § WER and CER), applied identically to reference
 * and hypothesis.
 * - `none`: text as given (only split on whitespace for words).
 * - `basic` (default): Unicode NFKC; lowercase; typographic apostrophes (’ ʼ) mapped to ';
 *   every punctuation character (Unicode category P) replaced by a space, except an
 *   apostrophe with a letter or digit on both sides; whitespace collapsed to single spaces
 *   and trimmed. Replacing (not deleting) punctuation splits "well-known" into two words,
 *   which matches how the `english` rules spell "twenty-one".
 * - `english`: `basic` plus common contractions expanded (don't → do not, it's → it is …)
 *   and digits spelled out (42 → forty two, 3.5 → three point five, 1,000 → one thousand).
 * - `whisper-english`: openai/whisper's EnglishTextNormalizer (whisper-english.ts), the one
 *   the Open ASR Leaderboard and Whisper's papers use: spelled-out numbers to digits,
 *   British to American spellings, contractions, titles, fillers and diacritics removed.
 * - `whisper-basic`: Whisper's BasicTextNormalizer (whisper-basic.ts), for other languages.
 * The Whisper modes split words as Python's str.split() does (normalizedWords).
 */
import { pySplit } from './python-text';
import { whisperBasic } from './whisper-basic';
import { whisperEnglish } from './whisper-english';

export type NormalizeMode = 'basic' | 'none' | 'english' | 'whisper-english' | 'whisper-basic';

export const NORMALIZE_MODES: readonly NormalizeMode[] = ['basic', 'none', 'english', 'whisper-english', 'whisper-basic'];

export function normalizeText(text: string, mode: NormalizeMode = 'basic'): string {
  if (mode === 'none') return text;
  if (mode === 'whisper-english') return whisperEnglish(text);
  if (mode === 'whisper-basic') return whisperBasic(text);
  let t = text.normalize('NFKC').toLowerCase().replace(/[\u2019\u02bc]/g, "'");
  if (mode === 'english') t = spellNumbers(expandContractions(t));
  t = t.replace(/(?<![\p{L}\p{N}])'|'(?![\p{L}\p{N}])/gu, ' ');
  t = t.replace(/(?!')\p{P}/gu, ' ');
  return t.replace(/\s+/gu, ' ').trim();
}

/** Words of an already-normalised text (split on whitespace; empty text has no words). */
export function words(text: string): string[] {
  const t = text.trim();
  return t === '' ? [] : t.split(/\s+/u);
}

/** Words of a text normalised with `mode`: the Whisper modes split as Python's str.split() does. */
export function normalizedWords(text: string, mode: NormalizeMode): string[] {
  return mode === 'whisper-english' || mode === 'whisper-basic' ? pySplit(text) : words(text);
}

const CONTRACTIONS: [RegExp, string][] = [
  [/\bwon't\b/g, 'will not'],
  [/\bcan't\b/g, 'can not'],
  [/\bshan't\b/g, 'shall not'],
  [/\bain't\b/g, 'is not'],
  [/\blet's\b/g, 'let us'],
  [/\by'all\b/g, 'you all'],
  [/\b(\p{L}+)n't\b/gu, '$1 not'],
  [/\b(i)'m\b/g, '$1 am'],
  [/\b(\p{L}+)'re\b/gu, '$1 are'],
  [/\b(\p{L}+)'ve\b/gu, '$1 have'],
  [/\b(\p{L}+)'ll\b/gu, '$1 will'],
  [/\b(\p{L}+)'d\b/gu, '$1 would'],
  [/\b(it|that|there|here|what|where|who|how|he|she)'s\b/g, '$1 is'],
];

function expandContractions(t: string): string {
  for (const [re, rep] of CONTRACTIONS) t = t.replace(re, rep);
  return t;
}

const ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES: [bigint, string][] = [
  [1_000_000_000_000n, 'trillion'],
  [1_000_000_000n, 'billion'],
  [1_000_000n, 'million'],
  [1_000n, 'thousand'],
];

function below1000(n: number): string[] {
  const out: string[] = [];
  if (n >= 100) {
    out.push(ONES[Math.floor(n / 100)]!, 'hundred');
    n %= 100;
  }
  if (n >= 20) {
    out.push(TENS[Math.floor(n / 10)]!);
    if (n % 10) out.push(ONES[n % 10]!);
  } else if (n > 0) out.push(ONES[n]!);
  return out;
}

/** Cardinal in words; numbers with more than 15 digits are read digit by digit. */
export function integerToWords(digits: string): string {
  const clean = digits.replace(/^0+(?=\d)/, '');
  if (clean.length > 15) return [...digits].map((d) => ONES[Number(d)]).join(' ');
  let n = BigInt(clean);
  if (n === 0n) return 'zero';
  const out: string[] = [];
  for (const [scale, name] of SCALES) {
    if (n >= scale) {
      out.push(...below1000(Number(n / scale)), name);
      n %= scale;
    }
  }
  out.push(...below1000(Number(n)));
  return out.join(' ');
}

function spellNumbers(t: string): string {
  return t.replace(/\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?/g, (m) => {
    const [int, frac] = m.replace(/,/g, '').split('.');
    const head = integerToWords(int!);
    const tail = frac ? ` point ${[...frac].map((d) => ONES[Number(d)]).join(' ')}` : '';
    return ` ${head}${tail} `;
  });
}
