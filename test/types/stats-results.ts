/**
 * Compile-time ties between the pure statistics (src/main/stats, which imports nothing
 * outside itself) and the results contract (src/shared/results.ts, which the renderer reads
 * and may not import the engine): each stats result type must be assignable to the shape
 * results.json declares for it, so a field renamed or retyped on one side fails
 * `npm run typecheck` instead of reaching a report as undefined. Nothing here runs.
 */
import type * as shared from '../../src/shared/results';
import type * as fdi from '../../src/main/stats/fdi';
import type * as ser from '../../src/main/stats/ser';
import type * as speat from '../../src/main/stats/speat';
import type * as wer from '../../src/main/stats/wer';

/** `true` when A is assignable to B, else a type that no value has. */
type Assignable<A, B> = [A] extends [B] ? true : { error: 'not assignable'; from: A; to: B };
/** Both ways: the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : { error: 'not the same'; a: A; b: B }) : { error: 'not the same'; a: A; b: B };

export const checks: true[] = [
  true satisfies Same<wer.WerPrimaryTest, shared.WerPrimaryTest>,
  // The audit adds what the pooled counts cannot know: speakers, characters in error, CER, caveats.
  true satisfies Assignable<wer.WerGroupResult & { speakers: number; characterErrors: number; cer: number | null; warnings: string[] }, shared.WerGroupResult>,
  true satisfies Assignable<wer.WerComparison, shared.WerComparison>,
  true satisfies Assignable<fdi.GroupRates, shared.FdiGroupMetrics>,
  true satisfies Assignable<ser.SerDownstreamResult, shared.SerDownstream>,
  true satisfies Assignable<Pick<speat.SpeatResult, 'effectSize' | 'pValue'>, Pick<shared.SpeatResult, 'effectSize' | 'pValue'>>,
];
