import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Options, UsageError, type CliContext } from '../../../src/main/cli/args';
import { parseCommandLine } from '../../../src/main/cli/usage';
import { statsCommands } from '../../../src/main/cli/stats';
import { MIN_DRAWS_FOR_WORKERS } from '../../../src/main/cli/speat-threads';
import { UserError } from '../../../src/shared/errors';
import { fixture, golden } from './golden';

const ctx: CliContext = { log: () => {}, progress: () => {} };

async function cli(argv: string[]): Promise<Record<string, unknown>> {
  const args = parseCommandLine(argv);
  const cmd = statsCommands.find((c) => c.path.join(' ') === args.command);
  if (!cmd) throw new Error(`no command ${argv.join(' ')}`);
  const result = await cmd.run(new Options(args), args.positionals, ctx);
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
    await expect(cli(['stats', 'speat', '--input', fixture('nope.json')])).rejects.toMatchObject({ code: 'not_found', field: 'input', message: expect.stringMatching(/^no file at .*nope\.json$/) });
    await expect(cli(['stats', 'speat', '--input', fixture('speat_mid.json'), '--bootstrap', '10'])).rejects.toThrow(UsageError);
    await expect(cli(['stats', 'speat', '--input', fixture('speat_mid.json'), '--permutatoins', '10'])).rejects.toThrow(/unknown option/);
  });
});

describe('stats speat CLI: --associations (what a report attaches)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'equivox-speat-assoc-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, body: unknown): string => {
    const file = join(dir, name);
    writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body));
    return file;
  };

  it('on the associations the embeddings give, the golden d and exact p, and the same output as --input', async () => {
    const fromEmb = await cli(['stats', 'speat', '--input', fixture('speat_mid.json'), '--seed', '3', '--bootstrap', '200', '--sample-sizes', '2,8', '--paired']);
    const file = write('assoc.json', { testId: 't', modelId: 'm', ...(fromEmb.associations as object) });
    const r = await cli(['stats', 'speat', '--associations', file, '--seed', '3', '--bootstrap', '200', '--sample-sizes', '2,8', '--paired']);
    expect(r.effectSize).toBeCloseTo(golden('speat_mid.d'), 12);
    expect(r.pValue).toBeCloseTo(golden<number[]>('speat_mid.exact_p')[0]!, 14);
    expect(r).toEqual(fromEmb);
  });

  it('bad associations exit 1 naming the file and the entry; neither or both inputs is a usage error', async () => {
    await expect(cli(['stats', 'speat', '--associations', write('nan.json', '{"X":[0.1,"x"],"Y":[0.2]}')])).rejects.toThrow(/nan\.json: X\[1\] is not a finite number/);
    await expect(cli(['stats', 'speat', '--associations', write('noy.json', { X: [0.1, 0.2] })])).rejects.toMatchObject({ field: 'Y', message: expect.stringMatching(/noy\.json: "Y" must be a non-empty array/) });
    await expect(cli(['stats', 'speat', '--associations', write('bad.json', '{"X": [')])).rejects.toThrow(/bad\.json is not valid JSON/);
    await expect(cli(['stats', 'speat', '--associations', write('arr.json', [1, 2])])).rejects.toThrow(/must hold an object with keys X and Y/);
    await expect(cli(['stats', 'speat', '--associations', write('pair.json', { X: [0.1, 0.2, 0.3], Y: [0.1] }), '--bootstrap', '10', '--sample-sizes', '2', '--paired'])).rejects.toThrow(/--paired needs as many X rows as Y rows \(3 vs 1\)/);
    await expect(cli(['stats', 'speat'])).rejects.toThrow(UsageError);
    await expect(cli(['stats', 'speat', '--input', fixture('speat_mid.json'), '--associations', fixture('speat_mid.json')])).rejects.toThrow(/give one of --input/);
  });
});

describe('stats speat CLI: input paths and threads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'equivox-speat-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const doc = JSON.parse(readFileSync(fixture('speat_mid.json'), 'utf8')) as Record<string, unknown>;
  // R × Σ 2k just above MIN_DRAWS_FOR_WORKERS, so threads are used.
  const sizes = Array.from({ length: 20 }, (_, i) => 2 * (i + 1));
  const resamples = Math.ceil(MIN_DRAWS_FOR_WORKERS / sizes.reduce((s, k) => s + 2 * k, 0)) + 10;
  const args = ['--seed', '4', '--permutations', '2000', '--bootstrap', String(resamples), '--sample-sizes', sizes.join(',')];

  it('gives the same output for any --threads', async () => {
    const one = await cli(['stats', 'speat', '--input', fixture('speat_mid.json'), ...args, '--threads', '1']);
    expect(one.standardErrors as unknown[]).toHaveLength(20);
    for (const threads of ['2', '3']) expect(await cli(['stats', 'speat', '--input', fixture('speat_mid.json'), ...args, '--threads', threads])).toEqual(one);
    await expect(cli(['stats', 'speat', '--input', fixture('speat_mid.json'), '--threads', '0'])).rejects.toThrow(UsageError);
  }, 120_000);

  it('reads a plain file (fast reader) and any other JSON layout (JSON.parse) to the same result', async () => {
    // Pretty-printed: still the plain shape. With an extra key: the general path.
    const plain = join(dir, 'plain.json');
    const other = join(dir, 'other.json');
    writeFileSync(plain, JSON.stringify(doc, null, 2));
    writeFileSync(other, JSON.stringify({ note: 'the general path', ...doc }));
    const a = await cli(['stats', 'speat', '--input', plain, ...args.slice(0, 6), '--sample-sizes', '2,8']);
    const b = await cli(['stats', 'speat', '--input', other, ...args.slice(0, 6), '--sample-sizes', '2,8']);
    expect(b).toEqual(a);
    expect(a.effectSize).toBeCloseTo(golden('speat_mid.d'), 12);
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

describe('stats wer CLI: speakers, the mixed model and the primary test', () => {
  interface RFit { referenceGroup: string; groups: string[] | string; coefficients: number[] | number; standardErrors: number[] | number; pValues: number[] | number; ci95: [number, number][]; speakerVariance: number; logLikelihood: number; overall: { chi2: number; df: number; pValue: number } }
  const lme4 = JSON.parse(readFileSync(fileURLToPath(new URL('../../golden/glmm_wer.json', import.meta.url)), 'utf8')) as {
    datasets: { name: string; rows: { group: string[]; speaker: string[]; words: number[]; errors: number[] }; fits: { laplace: RFit } }[];
  };
  const werLr = JSON.parse(readFileSync(fileURLToPath(new URL('../../golden/wer_lr.json', import.meta.url)), 'utf8')) as { datasets: { name: string; lme4: { comparisons: { group: string; chi2: number }[] } }[] };
  const arr = <T,>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);
  // Transcripts with exactly `errors` word errors over `words` reference words: substitutions first, then insertions.
  const csvFrom = (rows: { group: string[]; speaker: string[]; words: number[]; errors: number[] }, withSpeaker: boolean): string => {
    const lines = [withSpeaker ? 'id,group,speaker,reference,hypothesis' : 'id,group,reference,hypothesis'];
    rows.words.forEach((w, i) => {
      const e = rows.errors[i]!;
      const ref = Array.from({ length: w }, (_, k) => `w${k}`);
      const hyp = ref.map((t, k) => (k < e ? `x${k}` : t)).concat(Array.from({ length: Math.max(0, e - w) }, (_, k) => `y${k}`));
      lines.push([`u${i}`, rows.group[i], ...(withSpeaker ? [rows.speaker[i]] : []), ref.join(' '), hyp.join(' ')].join(','));
    });
    return `${lines.join('\n')}\n`;
  };
  const dir = mkdtempSync(join(tmpdir(), 'equivox-wer-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const name of ['three-groups', 'unbalanced']) {
    it(`${name}: mixed {speakerVariance, logLikelihood, overall} and per comparison mixed + primary match lme4 (test/golden/glmm_wer.R)`, async () => {
      const ds = lme4.datasets.find((d) => d.name === name)!;
      const f = ds.fits.laplace;
      const file = join(dir, `${name}.csv`);
      writeFileSync(file, csvFrom(ds.rows, true));
      const r = (await cli(['stats', 'wer', '--input', file, '--reference-group', f.referenceGroup, '--bootstrap', '20', '--permutations', '200', '--lr-bootstrap', '39'])) as {
        by: string;
        mixed: { speakerVariance: number; logLikelihood: number; overall: { chi2: number; df: number; pValue: number } };
        comparisons: { group: string; errors?: number; mixed: { coefficient: number; standardError: number; pValue: number; rateRatio: number; ci95: [number, number] }; primary: { test: string; pValue: number; bootstrap: { statistic: number; maxReplicates: number } } }[];
        groups: Record<string, { errors: number }>;
      };
      expect(r.by).toBe('speaker');
      expect(Object.values(r.groups).reduce((s, g) => s + g.errors, 0)).toBe(ds.rows.errors.reduce((s, e) => s + e, 0));
      expect(Math.abs(r.mixed.speakerVariance / f.speakerVariance - 1)).toBeLessThan(0.02);
      expect(r.mixed.logLikelihood).toBeCloseTo(f.logLikelihood, 2);
      expect(r.mixed.overall.df).toBe(f.overall.df);
      expect(Math.abs(r.mixed.overall.chi2 / f.overall.chi2 - 1)).toBeLessThan(0.01);
      expect(Math.abs(r.mixed.overall.pValue - f.overall.pValue)).toBeLessThan(0.005);
      arr(f.groups).forEach((g, i) => {
        const c = r.comparisons.find((x) => x.group === g)!;
        const se = arr(f.standardErrors)[i]!;
        expect(Math.abs(c.mixed.coefficient - arr(f.coefficients)[i]!) / se).toBeLessThan(0.01);
        expect(Math.abs(c.mixed.standardError / se - 1)).toBeLessThan(0.01);
        expect(Math.abs(c.mixed.pValue - arr(f.pValues)[i]!)).toBeLessThan(0.005);
        expect(c.mixed.rateRatio).toBeCloseTo(Math.exp(c.mixed.coefficient), 12);
        expect(c.mixed.ci95[0]).toBeCloseTo(f.ci95[i]![0], 2);
        // Every group here has 5 to 19 speakers: the primary test is the mixed model's likelihood-ratio
        // test calibrated by parametric bootstrap; its statistic is lme4's (test/golden/wer_lr.R).
        const lr = werLr.datasets.find((d) => d.name === name)!.lme4.comparisons.find((x) => x.group === g)!;
        expect(c.primary).toMatchObject({ test: 'mixed-poisson-lr-bootstrap', bootstrap: { maxReplicates: 39 } });
        expect(Math.abs(c.primary.bootstrap.statistic - lr.chi2)).toBeLessThan(1e-5);
      });
    });
  }

  it('without a speaker column: no mixed model, the utterance-level permutation test is primary', async () => {
    const ds = lme4.datasets.find((d) => d.name === 'three-groups')!;
    const file = join(dir, 'no-speaker.csv');
    writeFileSync(file, csvFrom(ds.rows, false));
    const r = (await cli(['stats', 'wer', '--input', file, '--reference-group', 'en-us', '--bootstrap', '20', '--permutations', '200', '--seed', '3'])) as {
      by: string;
      mixed?: unknown;
      comparisons: { mixed?: unknown; permutationPValue: number; primary: { test: string; pValue: number } }[];
    };
    expect(r.by).toBe('utterance');
    expect(r.mixed).toBeUndefined();
    for (const c of r.comparisons) {
      expect(c.mixed).toBeUndefined();
      expect(c.primary).toMatchObject({ test: 'utterance-permutation', pValue: c.permutationPValue });
    }
  });

  it('fewer than 5 speakers in a compared group: no verdict; the exact speaker-level permutation test stays in the tables', async () => {
    // 4 speakers per group, 6 utterances each: C(8, 4) = 70 splits, all enumerated.
    const rows = { group: [] as string[], speaker: [] as string[], words: [] as number[], errors: [] as number[] };
    ['a', 'b'].forEach((g, gi) => {
      for (let s = 0; s < 4; s += 1) for (let u = 0; u < 6; u += 1) {
        rows.group.push(g);
        rows.speaker.push(`${g}${s}`);
        rows.words.push(8 + ((s + u) % 5));
        rows.errors.push((s + u + gi * 2) % 4);
      }
    });
    const file = join(dir, 'few.csv');
    writeFileSync(file, csvFrom(rows, true));
    const r = (await cli(['stats', 'wer', '--input', file, '--reference-group', 'a', '--bootstrap', '20', '--permutations', '1000'])) as {
      comparisons: { permutationPValue: number; permutationExact: boolean; primary: null }[];
      overallPrimary: null;
    };
    const c = r.comparisons[0]!;
    expect(c.permutationExact).toBe(true);
    expect(c.primary).toBeNull();
    expect(r.overallPrimary).toBeNull();
    // An exact p over 70 equally likely splits is a multiple of 1/70.
    expect(Math.abs(c.permutationPValue * 70 - Math.round(c.permutationPValue * 70))).toBeLessThan(1e-9);
  });

  it('a speaker column with an empty cell is refused, naming the line', async () => {
    const file = join(dir, 'empty-speaker.csv');
    writeFileSync(file, 'id,group,speaker,reference,hypothesis\n1,a,s1,a b,a b\n2,b,,a b,a c\n');
    await expect(cli(['stats', 'wer', '--input', file])).rejects.toThrow(/line 3: empty speaker/);
  });
});

describe('stats fdi CLI', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'equivox-fdi-cli-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
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
    await expect(cli(['stats', 'fdi', '--input', fixture('fdi_bad_score.csv'), '--threshold', '0.5'])).rejects.toThrow(/line 3: score "abc" is not a number/);
    await expect(cli(['stats', 'fdi', '--input', fixture('fdi_nan.csv'), '--threshold', '0.5'])).rejects.toThrow(/line 3: score/);
    await expect(cli(['stats', 'fdi', '--input', fixture('fdi_empty_group.csv'), '--threshold', '0.5'])).rejects.toThrow(/line 3: empty group/);
    // Without threshold options the sweep spans the observed scores (issue 21); both at once is a usage error.
    await expect(cli(['stats', 'fdi', '--input', fixture('fdi_small.csv'), '--threshold', '0.5', '--thresholds', '0:1:0.1'])).rejects.toThrow(UsageError);
    await expect(cli(['stats', 'fdi', '--input', fixture('fdi_small.csv'), '--threshold', '0.5', '--alpha', '2'])).rejects.toThrow(UsageError);
  });
  it('fixtures are what the golden script wrote', () => {
    expect(readFileSync(fixture('fdi_small.csv'), 'utf8').split('\n')[0]).toBe('group,label,score');
  });
  it('reads the scores as Excel saves them in Europe (";" and decimal commas, Windows-1252 or UTF-16 with a BOM) to the same FDI', async () => {
    const european = readFileSync(fixture('fdi_small.csv'), 'utf8').replace(/,/g, ';').replace(/(\d)\.(\d)/g, '$1,$2').replace(/\n/g, '\r\n');
    expect(european.split('\r\n')[1]).toBe('a;1;0,9');
    const files = {
      'fdi_eu_cp1252.csv': Buffer.from(european, 'latin1'),
      'fdi_eu_utf16.csv': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(european.replace(/;/g, '\t'), 'utf16le')]),
    };
    for (const [name, bytes] of Object.entries(files)) {
      const file = join(tmp, name);
      writeFileSync(file, bytes);
      const r = await cli(['stats', 'fdi', '--input', file, '--threshold', '0.5']);
      expect(r.fdi).toBeCloseTo(golden<number[]>('fdi_harm(0.5)')[0]!, 14);
    }
    // In a comma-separated file "0,9" would be split; quoted, it may be a thousands separator, and the message says so.
    const quoted = join(tmp, 'fdi_quoted_comma.csv');
    writeFileSync(quoted, 'group,label,score\na,1,"0,9"\nb,0,0.1\n');
    await expect(cli(['stats', 'fdi', '--input', quoted, '--threshold', '0.5'])).rejects.toThrow(/line 2: score "0,9" has a comma, which in a comma-separated file cannot be told from a thousands separator/);
  });
});
