/**
 * Checks over a report's text as `pdftotext -layout` reads it back (issue 34.3): no word of
 * the strings the report drew is broken across lines, and no number outside the appendix's
 * raw tables carries more than 6 significant digits.
 */

/** Words (letters, apostrophes inside) of a text; hyphenated compounds count as their parts, where a line may break. */
export function words(text: string): string[] {
  return text.match(/\p{L}+(?:['’]\p{L}+)*/gu) ?? [];
}

function counts(list: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const w of list) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
}

/**
 * The words of the drawn strings that pdftotext does not read back whole as often as they were
 * drawn: a word broken mid-word ("Compare|d") reads back as two pieces, so its count falls short.
 * Words of 4 letters or more (shorter ones occur inside chart labels and ticks too often to count).
 */
export function brokenWords(drawn: string[], extracted: string): { word: string; drawn: number; read: number }[] {
  const want = counts(drawn.flatMap(words).filter((w) => w.length >= 4));
  const got = counts(words(extracted));
  return [...want.entries()].filter(([w, n]) => (got.get(w) ?? 0) < n).map(([word, n]) => ({ word, drawn: n, read: got.get(word) ?? 0 }));
}

/** Significant digits of a decimal number as printed ("0.8619640767605488" → 16, "1,204.5" → 5). */
export function significantDigits(number: string): number {
  return number.replace(/[^0-9]/g, '').replace(/^0+/, '').length;
}

/**
 * Numbers with a decimal point and more than `max` significant digits, outside the pages from
 * `rawFrom` on (the appendix's raw tables) and outside identifiers (a number joined to letters
 * or to other digits by '-', as in hashes, UUIDs and version tags, is not a quantity).
 * Integers (counts, seeds) are not checked.
 */
export function overlongNumbers(extracted: string, max = 6, rawFrom?: string): { number: string; line: string }[] {
  const cut = rawFrom ? extracted.indexOf(rawFrom) : -1;
  const text = cut >= 0 ? extracted.slice(0, cut) : extracted;
  const out: { number: string; line: string }[] = [];
  for (const line of text.split('\n')) {
    for (const m of line.matchAll(/(?<![\p{L}\p{N}_.-])[−+-]?\d[\d,]*\.\d+(?![\p{L}\p{N}_-])/gu)) {
      if (significantDigits(m[0]) > max) out.push({ number: m[0], line: line.trim() });
    }
  }
  return out;
}

/**
 * Cells of a fixed-decimal column (2 decimals: plain, signed, percent, percentage points) that
 * do not print exactly 2 decimals, or print a signed zero: "−0.0095" or "+0.00022" among
 * "0.42"s (issue 34.3), or "−0.00". "–" (no value) is fine.
 */
export function offPrecision(cells: string[]): string[] {
  return cells.filter((c) => c !== '–' && (!/^[−+-]?\d+\.\d{2}(?:%| pp)?$/.test(c) || /^[−+-]0\.00(?:%| pp)?$/.test(c)));
}
