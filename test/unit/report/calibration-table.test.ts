import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { werTables } from '../../../src/main/report/tables';

const sample = JSON.parse(readFileSync('test/fixtures/report/results.sample.json', 'utf8')) as AuditResults;

describe('WER calibration table', () => {
  it('appears only when the recogniser gave confidences, with one row per group', () => {
    expect(werTables(sample).find((t) => t.id === 'wer-calibration')).toBeUndefined();
    const groups = Object.keys(sample.wer!.groups);
    const calibration = Object.fromEntries(groups.map((g, i) => [g, { meanConfidence: 0.9 - i / 10, accuracy: 0.8 - i / 10, ece: 0.1 + i / 100 }]));
    const withCalibration: AuditResults = { ...sample, wer: { ...sample.wer!, config: { ...sample.wer!.config, asrModel: 'tiny-ctc' }, calibration } };
    const table = werTables(withCalibration).find((t) => t.id === 'wer-calibration');
    expect(table?.title).toMatch(/tiny-ctc/);
    expect(table?.rows).toEqual(groups.map((g, i) => [g, 0.9 - i / 10, 0.8 - i / 10, 0.1 + i / 100]));
  });
});
