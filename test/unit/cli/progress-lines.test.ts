/** How often the CLI prints progress (issue 25): not a line per clip. */
import { describe, expect, it } from 'vitest';
import { ProgressThrottle } from '../../../src/main/cli/progress-lines';

describe('CLI progress lines', () => {
  it('prints stage changes and the end at once, otherwise at most once a second and per whole percent', () => {
    let now = 0;
    const t = new ProgressThrottle(() => now);
    const printed: number[] = [];
    // 50,000 clips reported one by one, 2 ms apart (100 s in all).
    for (let done = 0; done <= 50_000; done += 1) {
      now = done * 2;
      if (t.shouldPrint({ stage: 'importing', done, total: 50_000, label: 'Reading' })) printed.push(done);
    }
    expect(printed[0]).toBe(0);
    expect(printed[printed.length - 1]).toBe(50_000);
    // One a second (100 s) at most, and never twice within one percent.
    expect(printed.length).toBeLessThanOrEqual(102);
    expect(printed.length).toBeGreaterThan(90);
    for (let i = 1; i < printed.length - 1; i += 1) expect(printed[i]! - printed[i - 1]!).toBeGreaterThanOrEqual(500);
    expect(t.shouldPrint({ stage: 'SpEAT', done: 0, total: 3 })).toBe(true);
  });

  it('a slow stage whose percentage does not move still prints every 30 seconds', () => {
    let now = 0;
    const t = new ProgressThrottle(() => now);
    expect(t.shouldPrint({ stage: 'embedding', done: 1, total: 1_000_000 })).toBe(true);
    now = 29_000;
    expect(t.shouldPrint({ stage: 'embedding', done: 2, total: 1_000_000 })).toBe(false);
    now = 30_000;
    expect(t.shouldPrint({ stage: 'embedding', done: 3, total: 1_000_000 })).toBe(true);
  });
});
