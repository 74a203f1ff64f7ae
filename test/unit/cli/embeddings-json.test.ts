/**
 * The fast reader of `stats speat` input files against JSON.parse, the independent
 * computation: every document it accepts must give exactly JSON.parse's numbers, and
 * every document it does not handle must be left to JSON.parse (null).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readEmbeddingSets } from '../../../src/main/cli/embeddings-json';
import { fixture } from '../stats/golden';

const enc = (text: string) => new TextEncoder().encode(text);

/** JSON.parse's reading of the same document, as plain arrays. */
function viaJson(text: string) {
  const doc = JSON.parse(text) as Record<'X' | 'Y' | 'A' | 'B', number[][]>;
  return { X: doc.X, Y: doc.Y, A: doc.A, B: doc.B };
}

function asArrays(sets: NonNullable<ReturnType<typeof readEmbeddingSets>>) {
  const rows = (r: Float64Array[]) => r.map((row) => Array.from(row));
  return { X: rows(sets.X), Y: rows(sets.Y), A: rows(sets.A), B: rows(sets.B) };
}

/** Equal number for number, telling 0 from −0. */
function expectSameNumbers(a: Record<string, number[][]>, b: Record<string, number[][]>): void {
  for (const key of ['X', 'Y', 'A', 'B']) {
    expect(a[key]!.length).toBe(b[key]!.length);
    a[key]!.forEach((row, i) => row.forEach((v, j) => expect(Object.is(v, b[key]![i]![j])).toBe(true)));
  }
}

describe('readEmbeddingSets (stats speat input) against JSON.parse', () => {
  it('reads the repository fixtures exactly as JSON.parse does', () => {
    for (const name of ['speat_small.json', 'speat_mid.json']) {
      const text = readFileSync(fixture(name), 'utf8');
      const sets = readEmbeddingSets(enc(text));
      expect(sets, name).not.toBeNull();
      expectSameNumbers(asArrays(sets!), viaJson(text));
    }
  });

  it('gives JSON.parse’s doubles for any finite doubles, however they are written (property)', () => {
    // Doubles from the whole range (JSON.stringify writes 17 digits, exponents, −0) and
    // short decimals (the usual embeddings files), in any of the formats JSON allows.
    const value = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer({ min: -9_999_999, max: 9_999_999 }).map((i) => i / 1e7),
      fc.constantFrom(0, -0, 1, -1, 1e-300, 5e-324, 1.7976931348623157e308, 123456789012345, 0.1, 1e21, 1e22, 1e23),
    );
    const format = fc.constantFrom<(v: number) => string>(
      (v) => JSON.stringify(v),
      (v) => (Object.is(v, -0) ? '-0' : String(v)),
      (v) => v.toPrecision(7),
      (v) => v.toExponential(),
      (v) => v.toExponential(3).replace('e', 'E'),
      (v) => (Math.abs(v) < 1e20 ? v.toFixed(12) : JSON.stringify(v)),
    );
    const rows = (dim: number) => fc.array(fc.array(fc.tuple(value, format), { minLength: dim, maxLength: dim }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((dim) => fc.tuple(rows(dim), rows(dim), rows(dim), rows(dim))),
        fc.constantFrom('', ' ', '\n  ', '\t', '\r\n'),
        (sets, ws) => {
          const write = (m: [number, (v: number) => string][][]) => `[${m.map((r) => `[${r.map(([v, f]) => `${ws}${f(v)}${ws}`).join(',')}]`).join(`,${ws}`)}]`;
          const [X, Y, A, B] = sets.map(write);
          const text = `${ws}{${ws}"X"${ws}:${ws}${X},"Y":${Y},${ws}"A":${A},"B"${ws}:${B}${ws}}${ws}`;
          const read = readEmbeddingSets(enc(text));
          const json = viaJson(text);
          // Rounding a huge double to few digits can overflow (1.798E+308): JSON.parse
          // gives Infinity, which the reader leaves to the checked path.
          if (Object.values(json).some((m) => m.some((r) => r.some((v) => !Number.isFinite(v))))) expect(read).toBeNull();
          else expectSameNumbers(asArrays(read!), json);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('accepts the keys in any order and keeps one buffer per row', () => {
    const text = '{"B":[[1,2]],"A":[[3,4]],"Y":[[5,6],[7,8]],"X":[[9,10]]}';
    const sets = readEmbeddingSets(enc(text))!;
    expect(sets.dim).toBe(2);
    expect(asArrays(sets)).toEqual(viaJson(text));
  });

  it('leaves everything else to JSON.parse: null, never a guess', () => {
    const ok = '"X":[[1,2]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]';
    const cases: [string, string][] = [
      ['other keys (strata)', `{${ok},"strata":{"X":["f"],"Y":["m"]}}`],
      ['a missing set', '{"X":[[1,2]],"Y":[[1,2]],"A":[[1,2]]}'],
      ['a repeated key', `{${ok},"X":[[1,2]]}`],
      ['an escaped key', '{"\\u0058":[[1,2]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['an empty set', '{"X":[],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['an empty row', '{"X":[[]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['rows of unequal length', '{"X":[[1,2],[1]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['sets of unequal width', '{"X":[[1,2]],"Y":[[1,2,3]],"A":[[1,2]],"B":[[1,2]]}'],
      ['a string value', '{"X":[[1,"2"]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['null', '{"X":[[1,null]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['NaN', '{"X":[[1,NaN]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['Infinity', '{"X":[[1,Infinity]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['an overflowing number', '{"X":[[1,1e400]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['a leading zero', '{"X":[[1,01]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['a bare point', '{"X":[[1,.5]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['a trailing point', '{"X":[[1,5.]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['a plus sign', '{"X":[[1,+5]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['an empty exponent', '{"X":[[1,5e]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['a trailing comma', '{"X":[[1,2,]],"Y":[[1,2]],"A":[[1,2]],"B":[[1,2]]}'],
      ['trailing text', `{${ok}} x`],
      ['a byte-order mark', `\ufeff{${ok}}`],
      ['truncation', `{${ok}`],
      ['an array at the top', '[[1,2]]'],
      ['nothing', ''],
    ];
    for (const [what, text] of cases) expect(readEmbeddingSets(enc(text)), what).toBeNull();
    // The control: the same document without the defect is read.
    expect(readEmbeddingSets(enc(`{${ok}}`))).not.toBeNull();
  });

  it('reads paper-scale files (4 × 60 rows of 1,024 numbers) as JSON.parse does', () => {
    let x = 1;
    const row = () => Array.from({ length: 1024 }, () => Number(((x = (x * 48271) % 2147483647) / 2147483647 - 0.5).toPrecision(7)));
    const doc = { X: Array.from({ length: 60 }, row), Y: Array.from({ length: 60 }, row), A: Array.from({ length: 60 }, row), B: Array.from({ length: 60 }, row) };
    const text = JSON.stringify(doc);
    const sets = readEmbeddingSets(enc(text))!;
    expect(sets.X).toHaveLength(60);
    expectSameNumbers(asArrays(sets), viaJson(text));
  });
});
