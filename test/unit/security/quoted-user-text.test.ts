/**
 * Issue 23.7: error messages quote at most 200 characters of user data. A 50 MB header
 * line was echoed whole into the error on stdout and stderr, and a preview returned 58 MB
 * of JSON. Checked through the real CLI (runCli, in this process) with the 50 MB line, a
 * header of millions of columns, long column names and long cells.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/main/cli';
import { MAX_QUOTED_CHARS, quoteUserList, quoteUserText } from '../../../src/shared/quote';

const dir = mkdtempSync(join(tmpdir(), 'equivox-quote-'));
process.env.EQUIVOX_HOME = join(dir, 'home');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
  return { code, out, err, message: (JSON.parse(out) as { error: { message: string } }).error.message };
}

describe('quoteUserText', () => {
  it('keeps short text, cuts long text to 200 characters ending in …, never inside a surrogate pair', () => {
    expect(quoteUserText('speaker')).toBe('speaker');
    expect(quoteUserText('x'.repeat(200))).toBe('x'.repeat(200));
    const cut = quoteUserText('y'.repeat(50_000_000));
    expect(cut).toHaveLength(MAX_QUOTED_CHARS);
    expect(cut.endsWith('…')).toBe(true);
    const emoji = quoteUserText(`${'a'.repeat(198)}😀😀😀`);
    expect(emoji).toBe(`${'a'.repeat(198)}…`);
    expect(quoteUserList(['a', 'b'])).toBe('a, b');
    const many = quoteUserList(Array.from({ length: 1_000_000 }, (_, i) => `column_${i}`));
    expect(many.length).toBeLessThanOrEqual(MAX_QUOTED_CHARS);
    expect(many.startsWith('column_0, column_1, ')).toBe(true);
    expect(many.endsWith('…')).toBe(true);
  });
});

describe('the CLI never echoes a 50 MB line', () => {
  const hugeName = join(dir, 'huge-name.csv');
  writeFileSync(hugeName, `id,group,reference,${'h'.repeat(50_000_000)}\n1,a,b,c\n`);

  it.each([
    ['stats wer --input', ['stats', 'wer', '--input', hugeName]],
    ['stats fdi --input', ['stats', 'fdi', '--input', hugeName, '--threshold', '0.5']],
    ['datasets preview --manifest', ['datasets', 'preview', '--manifest', hugeName]],
  ])('%s: a header cell of 50,000,000 characters is refused in a message of a few hundred', async (_name, argv) => {
    const r = await cli(argv);
    expect(r.code).toBe(1);
    expect(r.message).toMatch(/column 4 of the header is 50,000,000 characters long \("h+…"\); a column name has at most 1,000: does the file start with a header row\?$/);
    expect(r.out.length + r.err.length).toBeLessThan(1500);
  }, 120_000);

  it('a 50 MB header of millions of short columns: refused as no spreadsheet, without the columns', async () => {
    const wide = join(dir, 'wide.csv');
    writeFileSync(wide, `${Array.from({ length: 5_000_000 }, (_, i) => `c${i}`).join(',')}\n`);
    const r = await cli(['stats', 'wer', '--input', wide]);
    expect(r.code).toBe(1);
    expect(r.message).toMatch(/the header has 5,000,000 columns, more than a spreadsheet holds \(16,384\)/);
    expect(r.out.length + r.err.length).toBeLessThan(1000);
  }, 120_000);

  it('a missing column among 10,000: the list found is quoted within 200 characters', async () => {
    const many = join(dir, 'many.csv');
    writeFileSync(many, `id,group,reference,${Array.from({ length: 10_000 }, (_, i) => `extra_${i}`).join(',')}\n`);
    const r = await cli(['stats', 'wer', '--input', many]);
    const found = /\(found: (.*)\)$/.exec(r.message)![1]!;
    expect(found.startsWith('id, group, reference, extra_0, ')).toBe(true);
    expect(found.length).toBeLessThanOrEqual(MAX_QUOTED_CHARS);
    expect(found.endsWith('…')).toBe(true);
  });

  it('a column name of 900 characters given twice, and a cell of 100,000: quoted at 200', async () => {
    const twice = join(dir, 'twice.csv');
    const name = 'n'.repeat(900);
    writeFileSync(twice, `id,group,${name},${name}\n`);
    const dup = await cli(['stats', 'wer', '--input', twice]);
    expect(dup.message).toContain(`the header names column "${'n'.repeat(199)}…" twice`);
    expect(JSON.stringify(JSON.parse(dup.out)).length).toBeLessThan(1000);

    const cell = join(dir, 'cell.csv');
    writeFileSync(cell, `group,label,score\na,${'7'.repeat(100_000)},0.5\n`);
    const bad = await cli(['stats', 'fdi', '--input', cell, '--threshold', '0.5']);
    expect(bad.message).toBe(`line 2: label must be 0 or 1, got "${'7'.repeat(199)}…"`);
  });
});
