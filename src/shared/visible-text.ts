/**
 * Characters a reader cannot see but that change what they see: the bidi controls
 * (U+202A–202E embeddings and overrides, U+2066–2069 isolates, U+200E/F marks, U+061C)
 * reorder the text around them, so a group named "men\u202E..." can make a table or a
 * sentence read backwards; other format characters (zero-width spaces, U+FEFF, tag
 * characters) and control characters hide or split text.
 *
 * ZWNJ and ZWJ (U+200C, U+200D) are format characters too, but Persian, the Indic
 * scripts and emoji need them to spell words correctly and they reorder nothing, so they
 * are kept.
 */

/** Every invisible character, line breaks and tabs included (for names, where none belongs). */
const INVISIBLE = /(?![\u200C\u200D])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
/** The same without tab, line feed and carriage return, which tables and paragraphs may hold. */
const INVISIBLE_IN_TEXT = /(?![\t\n\r\u200C\u200D])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** U+202E → "U+202E" (at least four hex digits, upper case). */
export function codePointLabel(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The distinct invisible characters in `s`, as "U+XXXX" labels, in order of first appearance. */
export function invisibleCharacters(s: string): string[] {
  return [...new Set([...s.matchAll(INVISIBLE)].map((m) => codePointLabel(m[0])))];
}

/**
 * `s` with every invisible character except tab and line breaks written out visibly as
 * "<U+202E>", so exports and reports show a name exactly as given without letting it
 * reorder what is around it. Plain text stays as it is; applying it twice changes nothing.
 */
export function showInvisible(s: string): string {
  return s.replace(INVISIBLE_IN_TEXT, (ch) => `<${codePointLabel(ch)}>`);
}
