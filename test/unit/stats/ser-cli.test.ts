/**
 * `stats ser --input FILE.json`: the output contract of issue 13 on a small planted file,
 * and input errors that name the file, the byte and the item.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Options, type CliContext } from '../../../src/main/cli/args';
import { parseCommandLine } from '../../../src/main/cli/usage';
import { readSerInput } from '../../../src/main/cli/ser-input';
import { statsCommands } from '../../../src/main/cli/stats';
import { UserError } from '../../../src/shared/errors';
import { plantedSer } from '../../support/ser-planted';

const progress: string[] = [];
const ctx: CliContext = { log: () => {}, progress: (stage, done, total) => progress.push(`${stage}: ${done}/${total}`) };
async function cli(argv: string[]): Promise<Record<string, unknown>> {
  const args = parseCommandLine(argv);
  const cmd = statsCommands.find((c) => c.path.join(' ') === args.command)!;
  return JSON.parse(JSON.stringify(await cmd.run(new Options(args), args.positionals, ctx))) as Record<string, unknown>;
}

const dir = mkdtempSync(join(tmpdir(), 'equivox-ser-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stats ser CLI', () => {
  const p = plantedSer({ items: 600, layers: 3, dim: 24, planted: 1, attainableR2: 0.8, rho: 0, shiftD: 1, targetsPerGroup: 80, seed: 3 });
  const states = (f: Float32Array) => Array.from({ length: 3 }, (_, l) => Array.from(f.subarray(l * 24, (l + 1) * 24)));
  const item = (i: number) => ({ id: `clip-${i}`, features: states(p.features[i]!), valence: p.ratings[i] });
  const doc = {
    train: Array.from(p.split.train, item),
    validation: Array.from(p.split.validation, item),
    test: Array.from(p.split.test, item),
    targets: { X: p.targets.X.map(states), Y: p.targets.Y.map(states) },
  };
  const file = join(dir, 'planted.json');
  writeFileSync(file, JSON.stringify(doc));

  it('prints regressors, the selected learning rate and Cohen’s d (selected and pooled)', async () => {
    const r = (await cli(['stats', 'ser', '--input', file, '--learning-rates', '1e-3,1e-4', '--steps', '1500', '--seed', '2'])) as {
      regressors: { learningRate: number; steps: number; bestStep: number; validationMse: number; testR2: number; testRmse: number; layerWeights: number[] }[];
      selected: { learningRate: number };
      cohensD: { selected: number; pooled: number };
      items: Record<string, number>;
    };
    expect(r.regressors.map((x) => x.learningRate)).toEqual([1e-3, 1e-4]);
    for (const x of r.regressors) {
      expect(Object.keys(x).sort()).toEqual(['bestStep', 'layerWeights', 'learningRate', 'steps', 'testR2', 'testRmse', 'validationMse']);
      expect(x.steps).toBe(1500);
      expect(x.layerWeights).toHaveLength(3);
      expect(x.layerWeights.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
    }
    const best = r.regressors.reduce((a, b) => (b.validationMse < a.validationMse ? b : a));
    expect(r.selected.learningRate).toBe(best.learningRate);
    expect(best.testR2).toBeGreaterThan(0.5);
    expect(best.layerWeights.indexOf(Math.max(...best.layerWeights))).toBe(1);
    expect(r.cohensD.selected).toBeGreaterThan(0);
    expect(Number.isFinite(r.cohensD.pooled)).toBe(true);
    expect(r.items).toEqual({ train: p.split.train.length, validation: p.split.validation.length, test: p.split.test.length, X: 80, Y: 80 });
    // No speaker ids in the file: the comparison is over recordings, and says so.
    expect((r as unknown as { comparison: { unit: string; units: { x: number; y: number } } }).comparison).toMatchObject({ unit: 'clip', units: { x: 80, y: 80 } });
    expect(progress.some((s) => s.startsWith('SER training, learning rate 0.001: 1500/1500'))).toBe(true);
    // Same seed, same numbers.
    const again = await cli(['stats', 'ser', '--input', file, '--learning-rates', '1e-3,1e-4', '--steps', '1500', '--seed', '2']);
    expect(again.regressors).toEqual(r.regressors);
  }, 120_000);

  it('targets.speakersX / speakersY: predicted valence compared on speaker means (two recordings per speaker: 40 and 40 speakers)', async () => {
    const withSpeakers = join(dir, 'speakers.json');
    writeFileSync(withSpeakers, JSON.stringify({ ...doc, targets: { ...doc.targets, speakersX: doc.targets.X.map((_, i) => `x${i >> 1}`), speakersY: doc.targets.Y.map((_, i) => `y${i >> 1}`) } }));
    expect(readSerInput(withSpeakers).targets!.speakersX).toHaveLength(80);
    const r = (await cli(['stats', 'ser', '--input', withSpeakers, '--learning-rates', '1e-3', '--steps', '200', '--seed', '2'])) as { comparison: { unit: string; units: { x: number; y: number }; clips: { x: number; y: number }; df: number; ci95: [number, number]; difference: number } };
    expect(r.comparison).toMatchObject({ unit: 'speaker', units: { x: 40, y: 40 }, clips: { x: 80, y: 80 } });
    expect(r.comparison.df).toBeLessThanOrEqual(78);
    expect(r.comparison.ci95[0]).toBeLessThan(r.comparison.difference);
    // A list that does not match its items is refused, naming it.
    const short = join(dir, 'short.json');
    writeFileSync(short, JSON.stringify({ ...doc, targets: { ...doc.targets, speakersX: ['a'], speakersY: doc.targets.Y.map((_, i) => `y${i}`) } }));
    expect(() => readSerInput(short)).toThrow(/targets.speakersX has 1 ids for 80 items of targets.X/);
  }, 120_000);

  it('reads the file into one Float32Array per item, in order, values as written', () => {
    const input = readSerInput(file);
    expect([input.layers, input.dim, input.features.length]).toEqual([3, 24, 600]);
    expect(input.features[0]).toBeInstanceOf(Float32Array);
    expect(Array.from(input.features[0]!)).toEqual(Array.from(Float32Array.from(doc.train[0]!.features.flat())));
    expect(input.ratings[0]).toBe(doc.train[0]!.valence);
    expect(input.targets!.Y).toHaveLength(80);
  });

  it('bad input names the file, the byte and the item', async () => {
    const bad = (name: string, text: string) => {
      const f = join(dir, name);
      writeFileSync(f, text);
      return f;
    };
    const ok = '[[1,2],[3,4]]';
    expect(() => readSerInput(bad('ragged.json', `{"train":[{"features":${ok},"valence":1},{"features":[[1,2],[3]],"valence":2}],"validation":[],"test":[]}`))).toThrow(/train\[1\]\.features\[1\].*state 1 has 1 values, expected 2/);
    expect(() => readSerInput(bad('states.json', `{"train":[{"features":${ok},"valence":1},{"features":[[1,2]],"valence":2}],"validation":[],"test":[]}`))).toThrow(/train\[1\]\.features.*1 hidden states, expected 2/);
    expect(() => readSerInput(bad('nan.json', `{"train":[{"features":[[1,"x"]],"valence":1}]}`))).toThrow(/byte \d+ \(train\[0\]\.features\[0\]\): expected a number, found "x"/);
    expect(() => readSerInput(bad('novalence.json', `{"train":[{"features":${ok}}],"validation":[],"test":[]}`))).toThrow(/\(train\[0\]\): has no "valence"/);
    expect(() => readSerInput(bad('nosplit.json', `{"train":[{"features":${ok},"valence":1}],"test":[{"features":${ok},"valence":1}]}`))).toThrow(/"validation" is missing/);
    expect(() => readSerInput(bad('trunc.json', `{"train":[{"features":[[1,2],[3`))).toThrow(UserError);
    expect(() => readSerInput(join(dir, 'absent.json'))).toThrow(/^no file at .*absent\.json$/);
    await expect(cli(['stats', 'ser', '--input', file, '--learning-rates', '2'])).rejects.toThrow(/--learning-rates/);
  });
});
