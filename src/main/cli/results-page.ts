/**
 * `audit results` prints the results with their long lists cut to a page: SpEAT's
 * association per target and its stimulus ids grow with the data (632 KB of output at
 * 5,000 clips), and so do the WER section's compared utterances. Each cut list keeps
 * `limit` entries from `offset` and gains a sibling count (`associationsTotal`,
 * `stimuliTotal`, `utterancesTotal`); everything else is printed whole. The complete
 * results are in results.json (the report's attachment, or `audit results --out FILE`).
 */
import type { AuditResults } from '../../shared/results';

export interface Page {
  limit: number;
  offset: number;
}

const cut = <T>(xs: readonly T[], p: Page): T[] => xs.slice(p.offset, p.offset + p.limit);

export function pageResults(r: AuditResults, p: Page): AuditResults & { paged: { limit: number; offset: number; note: string } } {
  const speat = r.speat
    ? {
        ...r.speat,
        tests: r.speat.tests.map((t) => ({
          ...t,
          stimuli: { x: cut(t.stimuli.x, p), y: cut(t.stimuli.y, p), a: cut(t.stimuli.a, p), b: cut(t.stimuli.b, p) },
          stimuliTotal: { x: t.stimuli.x.length, y: t.stimuli.y.length, a: t.stimuli.a.length, b: t.stimuli.b.length },
        })),
        results: r.speat.results.map((x) => ({
          ...x,
          associations: { X: cut(x.associations.X, p), Y: cut(x.associations.Y, p) },
          associationsTotal: { X: x.associations.X.length, Y: x.associations.Y.length },
        })),
      }
    : r.speat;
  const wer = r.wer?.utterances ? { ...r.wer, utterances: cut(r.wer.utterances, p), utterancesTotal: r.wer.utterances.length } : r.wer;
  return {
    ...r,
    ...(speat !== undefined ? { speat } : {}),
    ...(wer !== undefined ? { wer } : {}),
    paged: { ...p, note: `lists that grow with the data (SpEAT associations and stimuli, WER utterances) hold entries ${p.offset + 1}–${p.offset + p.limit}; their *Total fields count them all; audit results --out FILE.json writes everything` },
  };
}
