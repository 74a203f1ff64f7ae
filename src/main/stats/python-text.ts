/**
 * Python 3 string semantics that the Whisper normaliser ports depend on, in JavaScript.
 *
 * Python's `re` on str patterns is Unicode-aware where JavaScript's RegExp is not, even
 * with the `u` flag: `\w` is any character for which `str.isalnum()` holds, or `_`; `\b` is
 * a boundary between such a character and another; `\d` is any decimal digit (category Nd);
 * `\s` and `str.split()` use `str.isspace()`, which includes U+001C–U+001F and U+0085 but
 * not U+FEFF (JavaScript's `\s` is the other way round); `.` excludes only "\n"; `$`
 * matches at the end or before a final "\n". `pyRegex` rewrites a Python pattern into an
 * equivalent JavaScript one.
 *
 * Checked over every code point Python 3.11 (Unicode 14.0) assigns: `[\p{L}\p{N}_]` is
 * exactly Python's `\w`, `\p{Nd}` its `\d`, PY_SPACE its `\s`, and `toLowerCase()`, NFKC,
 * NFKD and the M/S/P/Mn categories agree with `str.lower()` and `unicodedata`, except
 * U+1171E (Mn in Unicode 14, Mc since 15). Characters assigned after Unicode 14 follow the
 * JavaScript runtime's Unicode version, as they would follow a newer Python's.
 */

/** The characters for which Python's `str.isspace()` is true. */
export const PY_SPACE = '[\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const PY_WORD = '[\\p{L}\\p{N}_]';
const PY_BOUNDARY = `(?:(?<=${PY_WORD})(?!${PY_WORD})|(?<!${PY_WORD})(?=${PY_WORD}))`;

const SPACE_RUN = new RegExp(`${PY_SPACE}+`, 'u');
const LEADING_SPACE = new RegExp(`^${PY_SPACE}+`, 'u');
const TRAILING_SPACE = new RegExp(`${PY_SPACE}+$`, 'u');

/**
 * A Python `re` pattern (str, no flags) as a global Unicode JavaScript RegExp. Handles the
 * constructs whose meaning differs (`\b \B \w \W \d \D \s \S \A \Z . $`; never with the m flag); anything else must mean
 * the same in both (the patterns here are Whisper's, all plain).
 */
export function pyRegex(pattern: string, flags = 'gu'): RegExp {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i]!;
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === undefined) throw new Error(`pattern ends in a backslash: ${pattern}`);
      i += 1;
      const inside: Record<string, string> = { d: '\\p{Nd}', D: '\\P{Nd}' };
      const outside: Record<string, string> = { A: '^', Z: '$', b: PY_BOUNDARY, B: `(?!${PY_BOUNDARY})`, w: PY_WORD, W: `[^\\p{L}\\p{N}_]`, d: '\\p{Nd}', D: '\\P{Nd}', s: PY_SPACE, S: `(?!${PY_SPACE})[^]` };
      const lit = /^[A-Za-z0-9_]$/;
      if (!inClass && n === 'b' && lit.test(pattern[i + 1] ?? '') && !'?*+{'.includes(pattern[i + 2] ?? '.')) {
        // A boundary before a word character: no word character before it. Matching the
        // character first and looking behind lets the engine scan for it (25 times faster).
        const c = pattern[i + 1]!;
        out += `${c}(?<!${PY_WORD}${c})`;
        i += 1;
      } else if (!inClass && n === 'b' && lit.test(pattern[i - 2] ?? '') && pattern[i - 3] !== '\\') {
        // A boundary after a word character: no word character after it.
        out += `(?!${PY_WORD})`;
      } else if (inClass && inside[n] !== undefined) out += inside[n];
      else if (inClass && 'bBwWsS'.includes(n)) throw new Error(`\\${n} inside a character class is not supported: ${pattern}`);
      else if (!inClass && outside[n] !== undefined) out += outside[n];
      else out += `\\${n}`;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      // Python reads a "]" right after "[" or "[^" literally, JavaScript does not.
      if (pattern[i + 1] === ']' || pattern.startsWith('^]', i + 1)) throw new Error(`a class starting with "]" is not supported: ${pattern}`);
      inClass = true;
      out += c;
    } else if (c === '.') out += '[^\\n]';
    else if (c === '$') out += '(?=\\n?$)';
    else out += c;
  }
  return new RegExp(out, flags);
}

/** Python's `str.split()` with no arguments: runs of whitespace separate, none at either end. */
export function pySplit(s: string): string[] {
  const t = pyStrip(s);
  return t === '' ? [] : t.split(SPACE_RUN);
}

/** Python's `str.strip()` with no arguments. */
export function pyStrip(s: string): string {
  return s.replace(LEADING_SPACE, '').replace(TRAILING_SPACE, '');
}

const ND = /\p{Nd}/u;

/**
 * The value of a decimal digit (category Nd), as Python's `int()` reads it. Unicode
 * encodes every decimal digit set as ten consecutive code points from 0 to 9, so a digit's
 * value is its distance from the start of its run of Nd characters, modulo 10.
 */
export function digitValue(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp >= 0x30 && cp <= 0x39) return cp - 0x30;
  let start = cp;
  while (start > 0 && ND.test(String.fromCodePoint(start - 1))) start -= 1;
  return (cp - start) % 10;
}

/** Python's `int()` of a string of decimal digits (no sign, no underscores). */
export function pyInt(digits: string): bigint {
  if (/^[0-9]+$/.test(digits)) return BigInt(digits);
  let v = 0n;
  for (const ch of digits) v = v * 10n + BigInt(digitValue(ch));
  return v;
}
