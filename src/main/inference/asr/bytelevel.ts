/**
 * GPT-2 byte-level BPE detokenisation (the scheme Whisper's tokenizer uses). Every byte is
 * written as a printable code point so tokens are plain strings: printable Latin-1 bytes
 * stand for themselves and the rest (space, control bytes …) map to U+0100 upwards, which
 * is why a leading space shows as "Ġ" (U+0120, byte 0x20).
 */

/** byte → code point, as bytes_to_unicode() in openai/gpt-2's encoder.py. */
export function bytesToUnicode(): Map<number, string> {
  const bs: number[] = [];
  for (let b = 0x21; b <= 0x7e; b += 1) bs.push(b);
  for (let b = 0xa1; b <= 0xac; b += 1) bs.push(b);
  for (let b = 0xae; b <= 0xff; b += 1) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b += 1) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n);
      n += 1;
    }
  }
  return new Map(bs.map((b, i) => [b, String.fromCodePoint(cs[i]!)]));
}

let reverse: Map<string, number> | null = null;

/** code point → byte (the reverse map). */
export function unicodeToBytes(): Map<string, number> {
  if (!reverse) reverse = new Map([...bytesToUnicode()].map(([b, c]) => [c, b]));
  return reverse;
}

/**
 * Token strings → text: each code point back to its byte, then UTF-8. A code point outside
 * the map (a malformed vocabulary) is kept as its own UTF-8; an incomplete UTF-8 sequence
 * becomes U+FFFD, as HF's errors="replace".
 */
export function decodeByteLevel(tokens: readonly string[]): string {
  const map = unicodeToBytes();
  const bytes: number[] = [];
  for (const t of tokens) {
    for (const ch of t) {
      const b = map.get(ch);
      if (b !== undefined) bytes.push(b);
      else bytes.push(...new TextEncoder().encode(ch));
    }
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Uint8Array.from(bytes));
}
