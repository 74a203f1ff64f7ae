import { describe, expect, it } from 'vitest';
import { Options, UsageError } from '../../../src/main/cli/args';
import { parseCommandLine } from '../../../src/main/cli/usage';

describe('repeatable CLI options (cluster export --dataset A --dataset B)', () => {
  it('keeps every value in order; the single-value accessor still sees the last', () => {
    const o = new Options(parseCommandLine(['cluster', 'export', '--dataset', 'a', '--model', 'm', '--dataset=b']));
    expect(o.strings('dataset')).toEqual(['a', 'b']);
    expect(o.string('model')).toBe('m');
    expect(o.strings('out')).toEqual([]);
    o.assertNoUnknown();
  });

  it('refuses a repeated option given without a value', () => {
    expect(() => parseCommandLine(['cluster', 'export', '--dataset', 'a', '--dataset'])).toThrow(UsageError);
    expect(() => parseCommandLine(['cluster', 'export', '--dataset', 'a', '--dataset'])).toThrow('--dataset needs a value');
  });
});
