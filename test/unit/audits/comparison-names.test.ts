import { describe, expect, it } from 'vitest';
import { AuditPlan } from '../../../src/shared/plan';

const plan = (tests: { name?: string; x: string; y: string }[]) => ({
  title: 'Names',
  sections: ['speat'],
  models: ['acoustic-baseline'],
  speat: { attributeDataset: 'a', tests: tests.map((t, i) => ({ id: `t${i + 1}`, ...(t.name !== undefined ? { name: t.name } : {}), targetDataset: 'd', x: { label: 'accent', value: t.x }, y: { label: 'accent', value: t.y } })) },
});

describe('comparison names (issue 21.6)', () => {
  it('derives a missing, empty or "Comparison N" name from the groups and keeps a typed one', () => {
    const parsed = AuditPlan.parse(plan([{ x: 'american', y: 'scottish' }, { name: 'Comparison 2', x: 'us', y: 'caribbean' }, { name: '  ', x: 'uk', y: 'us' }, { name: 'Accent gap', x: 'uk', y: 'scotland' }]));
    expect(parsed.speat!.tests.map((t) => t.name)).toEqual(['american vs scottish', 'us vs caribbean', 'uk vs us', 'Accent gap']);
  });

  it('a parsed plan parses to itself, so a saved plan and its lock agree', () => {
    const once = AuditPlan.parse(plan([{ name: 'Comparison 7', x: 'a', y: 'b' }]));
    expect(AuditPlan.parse(once)).toEqual(once);
  });
});
