import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Options, parseArgs, UsageError, type CliContext } from '../../../src/main/cli/args';
import { statsCommands } from '../../../src/main/cli/stats';
import { UserError } from '../../../src/shared/errors';
import { fixture, golden } from './golden';

const ctx: CliContext = { log: () => {}, progress: () => {} };

async function cli(argv: string[]): Promise<Record<string, unknown>> {
  const args = parseArgs(argv);
  const cmd = statsCommands.find((c) => c.path.every((p, i) => args.positionals[i] === p));
  if (!cmd) throw new Error(`no command ${argv.join(' ')}`);
  const result = await cmd.run(new Options(args), args.positionals.slice(cmd.path.length), ctx);
  // What the CLI prints: JSON (NaN/Infinity become null).
  return JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
}

describe('stats speat CLI', () => {
  it('reports d, exact p, associations and bootstrap SEs', async () => {
    const r = await cli(['stats', 'speat', '--input', fixture('speat_mid.json'), '--seed', '3', '--bootstrap', '200', '--sample-sizes', '2,8', '--paired']);
    expect(r.effectSize).toBeCloseTo(golden('speat_mid.d'), 12);
    const [p, total] = golden<number[]>('speat_mid.exact_p');
    expect(r.pValue).toBeCloseTo(p!, 14);
    expect(r.exact).toBe(true);
    expect(r.permutations).toBe(total);
    expect((r.associations as { X: number[] }).X).toHaveLength(8);
    const se = r.standardErrors as { size: number; standardError: number }[];
    expect(se.map((s) => s.size)).toEqual([2, 8]);
    expect(se[0]!.standardError).toBeGreaterThan(se[1]!.standardError);
  });
  it('samples when --permutations is below C(n, n_X)', async () => {
    const r = await cli(['stats', 'speat', '--input', fixture('speat_mid.json'), '--permutations', '1000']);
    expect(r.exact).toBe(false);
    expect(r.permutations).toBe(1000);
  });
  it('input errors exit 1 naming the field; usage errors exit 2', async () => {
    await expect(cli(['stats', 'speat', '--input', fixture('speat_unequal.json')])).rejects.toThrow(UserError);
    await expect(cli(['stats', 'speat', '--input', fixture('speat_unequal.json')])).rejects.toThrow(/Y\[1\].*unequal length/);
    await expect(cli(['stats', 'speat', '--input', fixture('speat_nan.json')])).rejects.toThrow(/A\[0\]\[2\] is not a finite number/);
    await expect(cli(['stats', 'speat', '--input', fixture('nope.json')])).rejects.toThrow(UserError);
    await expect(cli(['stats', 'speat', '--input', fixture('speat_mid.json'), '--bootstrap', '10'])).rejects.toThrow(UsageError);
    await expect(cli(['stats', 'speat', '--input', fixture('speat_mid.json'), '--permutatoins', '10'])).rejects.toThrow(/unknown option/);
  });
});

describe('stats wer CLI', () => {
  it('reads a BOM, CRLF, quoted CSV and reports per-group rates and comparisons', async () => {
    const r = await cli(['stats', 'wer', '--input', fixture('wer_small.csv'), '--bootstrap', '100', '--permutations', '100', '--seed', '1']);
    const groups = r.groups as Record<string, Record<string, unknown>>;
    expect(groups.a).toMatchObject({ utterances: 2, referenceWords: 6, errors: 0, wer: 0, hits: 6, cer: 0 });
    // b: hello world/hello duck (1 S), "one two three"/"one three" (1 D), ""/"uh" (1 I): 3 errors over 5 words.
    expect(groups.b).toMatchObject({ utterances: 3, referenceWords: 5, errors: 3, substitutions: 1, deletions: 1, insertions: 1, hits: 3 });
    expect(groups.b!.wer).toBeCloseTo(0.6, 15);
    const [c] = r.comparisons as Record<string, unknown>[];
    expect(c).toMatchObject({ group: 'b', referenceGroup: 'a', absoluteDelta: 0.6, relativeDelta: null });
    // Reference group with zero errors: the coefficient is +∞, printed as null.
    expect((c!.poisson as Record<string, unknown>).coefficient).toBeNull();
    expect(r.overall).toMatchObject({ df: 1 });
  });
  it('--reference-group, --by speaker and --normalize none', async () => {
    const r = await cli(['stats', 'wer', '--input', fixture('wer_small.csv'), '--reference-group', 'b', '--by', 'speaker', '--normalize', 'none', '--bootstrap', '50', '--permutations', '50']);
    expect(r.referenceGroup).toBe('b');
    expect((r.groups as Record<string, { errors: number }>).a!.errors).toBe(5); // The/the, cat,/cat, sat./sat, She/she, "hi"/hi
  });
  it('errors: missing column (exit 1), bad options (exit 2), unknown reference group', async () => {
    await expect(cli(['stats', 'wer', '--input', fixture('wer_missing_column.csv')])).rejects.toThrow(/missing column "hypothesis"/);
    await expect(cli(['stats', 'wer', '--input', fixture('wer_small.csv'), '--normalize', 'fancy'])).rejects.toThrow(UsageError);
    await expect(cli(['stats', 'wer', '--input', fixture('wer_small.csv'), '--reference-group', 'zzz'])).rejects.toThrow(/reference group "zzz"/);
  });
});

describe('stats fdi CLI', () => {
  it('single threshold matches the golden FDI; threshold range gives a sweep', async () => {
    const r = await cli(['stats', 'fdi', '--input', fixture('fdi_small.csv'), '--threshold', '0.5']);
    expect(r.fdi).toBeCloseTo(golden<number[]>('fdi_harm(0.5)')[0]!, 14);
    expect(r.threshold).toBe(0.5);
    expect(Object.keys(r.wasserstein as object)).toEqual(['a|b', 'a|c', 'b|c']);
    const s = await cli(['stats', 'fdi', '--input', fixture('fdi_small.csv'), '--thresholds', '0.35:0.5:0.15', '--orientation', 'paper', '--bootstrap', '50']);
    expect(s.threshold).toBe(0.35);
    expect(s.fdi).toBeCloseTo(golden<number[]>('fdi_paper(0.35)')[0]!, 14);
    expect((s.sweep as unknown[]).length).toBe(2);
    expect(s.fdiCi95).toHaveLength(2);
  });
  it('errors name the line and field', async () => {
    await expect(cli(['stats', 'fdi', '--input', fixture('fdi_bad_score.csv'), '--threshold', '0.5'])).rejects.toThrow(/line 3: score is not a finite number/);
    await expect(cli(['stats', 'fdi', '--input', fixture('fdi_nan.csv'), '--threshold', '0.5'])).rejects.toThrow(/line 3: score/);
    await expect(cli(['stats', 'fdi', '--input', fixture('fdi_empty_group.csv'), '--threshold', '0.5'])).rejects.toThrow(/line 3: empty group/);
    await expect(cli(['stats', 'fdi', '--input', fixture('fdi_small.csv')])).rejects.toThrow(UsageError);
    await expect(cli(['stats', 'fdi', '--input', fixture('fdi_small.csv'), '--threshold', '0.5', '--alpha', '2'])).rejects.toThrow(UsageError);
  });
  it('fixtures are what the golden script wrote', () => {
    expect(readFileSync(fixture('fdi_small.csv'), 'utf8').split('\n')[0]).toBe('group,label,score');
  });
});
