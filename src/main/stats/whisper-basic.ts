/**
 * A port of openai/whisper's `whisper/normalizers/basic.py` (release v20250625, commit
 * c0d2f624c09dc18e709e37c2ad90c039a4eb72a2; the file is unchanged since tag commit
 * 31243bad), MIT License, Copyright (c) 2022 OpenAI: the licence text travels in
 * whisper-english-spelling.json.
 *
 * `whisperBasic` is `BasicTextNormalizer()` with its defaults (remove_diacritics=False,
 * split_letters=False): lowercase, drop [bracketed] / <angled> and (parenthesised) text,
 * NFKC, every mark, symbol and punctuation character (Unicode categories M, S, P) replaced
 * by a space, lowercase again, whitespace runs collapsed to one space. Diacritics survive
 * (NFKC composes them), but combining marks that do not compose, such as Devanagari vowel
 * signs, become spaces, as in the original. Leading and trailing spaces are kept.
 * Checked against the Python on test/golden/whisper_normalizers.json.
 */
import { pyRegex } from './python-text';

/** Non-ASCII letters that NFKD does not split into a base letter and a mark. */
export const ADDITIONAL_DIACRITICS: Readonly<Record<string, string>> = {
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  æ: 'ae',
  Æ: 'AE',
  ß: 'ss',
  ẞ: 'SS',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'th',
  ł: 'l',
  Ł: 'L',
};

const MN = /^\p{Mn}$/u;
const ADDITIONAL = Object.keys(ADDITIONAL_DIACRITICS).join('');
const SYMBOLS_AND_DIACRITICS = new RegExp(`[\\p{M}\\p{S}\\p{P}${ADDITIONAL}]`, 'gu');
const SYMBOLS = /[\p{M}\p{S}\p{P}]/gu;

/**
 * `remove_symbols_and_diacritics(s, keep)`: over the NFKD form, characters in `keep` stay,
 * the letters above are spelled in ASCII, nonspacing marks (Mn) are dropped and any other
 * mark, symbol or punctuation becomes a space.
 */
export function removeSymbolsAndDiacritics(s: string, keep = ''): string {
  return s.normalize('NFKD').replace(SYMBOLS_AND_DIACRITICS, (c) => {
    if (keep.includes(c)) return c;
    const a = ADDITIONAL_DIACRITICS[c];
    if (a !== undefined) return a;
    return MN.test(c) ? '' : ' ';
  });
}

/** `remove_symbols(s)`: over the NFKC form, every mark, symbol and punctuation becomes a space. */
export function removeSymbols(s: string): string {
  return s.normalize('NFKC').replace(SYMBOLS, ' ');
}

export const BRACKETED = pyRegex('[<\\[][^>\\]]*[>\\]]');
export const PARENTHESISED = pyRegex('\\(([^)]+?)\\)');
export const WHITESPACE_RUN = pyRegex('\\s+');

/** `BasicTextNormalizer()(s)`. */
export function whisperBasic(s: string): string {
  let t = s.toLowerCase();
  t = t.replace(BRACKETED, '');
  t = t.replace(PARENTHESISED, '');
  t = removeSymbols(t).toLowerCase();
  return t.replace(WHITESPACE_RUN, ' ');
}
