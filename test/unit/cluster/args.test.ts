import { describe, expect, it } from 'vitest';
import { Options, parseArgs, UsageError } from '../../../src/main/cli/args';

describe('repeatable CLI options (cluster export --dataset A --dataset B)', () => {
  it('keeps every value in order; the single-value accessor still sees the last', () => {
    const o = new Options(parseArgs(['cluster', 'export', '--dataset', 'a', '--model', 'm', '--dataset=b']));
    expect(o.strings('dataset')).toEqual(['a', 'b']);
    expect(o.string('model')).toBe('m');
    expect(o.strings('missing')).toEqual([]);
    o.assertNoUnknown();
  });

  it('refuses a repeated option given without a value', () => {
    const o = new Options(parseArgs(['--dataset', 'a', '--dataset']));
    expect(() => o.strings('dataset')).toThrow(UsageError);
    expect(() => o.strings('dataset')).toThrow('--dataset needs a value');
  });
});
