/**
 * The import check for exposed layers: two different computations must agree on a test
 * clip before Equivox calls a model's layers "verified".
 *
 * 1. The graph cut at every exposed state (expose.ts, buildChainModel): each block, fed
 *    only the exposed state before it, must give the exposed state after it. This shows the
 *    states are the blocks' boundaries; a block that also reads something computed from
 *    the audio makes the cut impossible.
 * 2. The layer norm that writes last_hidden_state (the final one, or the last block's own
 *    in post-norm models; one LayerNormalization node or the ops torch.onnx writes below
 *    opset 17) is recomputed here in float64 from the cut graph's result for the last
 *    block, and must give the model's own last_hidden_state.
 *
 * Both within 1e-4 of the reference values' scale (their largest magnitude, at least 1).
 */
import type * as ort from 'onnxruntime-node';
import { addOutputs, buildChainModel, layerNormLastAxis, type LayerMap } from './expose';
import { createSession } from './providers';

export const VERIFY_TOLERANCE = 1e-4;

export type LayerCheck =
  | {
      kind: 'verified';
      /** Largest |difference| over both checks. */
      maxAbsDiff: number;
      /** Largest |difference| of the block-by-block recomputation (states 1..N−1). */
      blockDiff: number;
      /** Largest |difference| of the last state (block N, then its layer norm here). */
      lastDiff: number;
      message: string;
    }
  | { kind: 'mismatch'; maxAbsDiff: number | null; message: string }
  | { kind: 'not-verified'; message: string };

export interface ProbeRun {
  /** Every state's value, the trailing norm's input and the model's output on the test clip. */
  values: ort.InferenceSession.OnnxValueMapType;
  width: number;
}

/** Run the model once with every state (and the trailing norm's input) as outputs. */
export async function probeStates(bytes: Uint8Array, map: LayerMap, feeds: Record<string, ort.Tensor>, externalDataFolder?: string): Promise<ProbeRun> {
  const extra = [...new Set([...map.states, ...(map.trailingNorm ? [map.trailingNorm.input] : [])])];
  const probe = await createSession(addOutputs(bytes, extra), { provider: 'cpu', threads: 2, ...(externalDataFolder ? { externalDataFolder } : {}) });
  try {
    const values = await probe.session.run(feeds, extra);
    const dims = values[map.originalOutput]!.dims;
    return { values, width: dims[dims.length - 1]! };
  } finally {
    await probe.session.release();
  }
}

function f32(t: ort.Tensor): Float32Array {
  return t.data as Float32Array;
}

export function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i += 1) {
    const d = Math.abs(a[i]! - b[i]!);
    if (!(d <= m)) m = Number.isNaN(d) ? Infinity : d;
  }
  return m;
}

function scaleOf(ref: Float32Array): number {
  let s = 1;
  for (let i = 0; i < ref.length; i += 1) s = Math.max(s, Math.abs(ref[i]!));
  return s;
}

function figure(d: number): string {
  return d === 0 ? '0 (identical)' : d.toExponential(2);
}

/** Check a layer map against the probe run (see the module comment). */
export async function verifyLayerMap(bytes: Uint8Array, map: LayerMap, feeds: Record<string, ort.Tensor>, probe: ProbeRun, externalDataFolder?: string): Promise<LayerCheck> {
  const chain = buildChainModel(bytes, map);
  if (!chain.ok) return chain.structural ? { kind: 'mismatch', maxAbsDiff: null, message: `the exposed layers do not form a chain of blocks: ${chain.reason}` } : { kind: 'not-verified', message: chain.reason };
  const r = probe.values;
  let c: ort.InferenceSession.OnnxValueMapType;
  try {
    const session = await createSession(chain.chain.model, { provider: 'cpu', threads: 2, ...(externalDataFolder ? { externalDataFolder } : {}) });
    try {
      const chainFeeds: Record<string, ort.Tensor> = {};
      for (const f of chain.chain.feeds) chainFeeds[f.input] = r[f.state]!;
      for (const i of chain.chain.graphInputs) chainFeeds[i] = feeds[i]!;
      c = await session.session.run(chainFeeds, chain.chain.outputs);
    } finally {
      await session.session.release();
    }
  } catch (err) {
    return { kind: 'not-verified', message: `the graph cut at the exposed states could not be run (${err instanceof Error ? err.message.split('\n')[0]! : String(err)})` };
  }
  let blockDiff = 0;
  let worst = 0;
  for (let k = 1; k < map.blocks; k += 1) {
    const ref = f32(r[map.states[k]!]!);
    const d = maxAbsDiff(f32(c[map.states[k]!]!), ref);
    blockDiff = Math.max(blockDiff, d);
    worst = Math.max(worst, d / scaleOf(ref));
  }
  const norm = map.trailingNorm;
  const recomputed = f32(c[chain.chain.last]!);
  const final = norm ? layerNormLastAxis(recomputed, probe.width, norm.scale, norm.bias, norm.epsilon) : recomputed;
  const ref = f32(r[map.originalOutput]!);
  const lastDiff = maxAbsDiff(final, ref);
  worst = Math.max(worst, lastDiff / scaleOf(ref));
  const maxDiff = Math.max(blockDiff, lastDiff);
  if (!(worst <= VERIFY_TOLERANCE)) {
    return { kind: 'mismatch', maxAbsDiff: maxDiff, message: `the exposed layers did not reproduce the model (largest difference ${maxDiff.toExponential(2)}, more than ${VERIFY_TOLERANCE} of the values' scale)` };
  }
  const n = map.blocks;
  const blocks = n > 2 ? `blocks 1–${n - 1}, each run on its own from the state before it, reproduce states 1–${n - 1}` : n === 2 ? 'block 1, run on its own from state 0, reproduces state 1' : '';
  const normWords = norm
    ? `${map.finalLayerNorm ? 'the final layer norm' : `block ${n}'s closing layer norm`} (${norm.form === 'decomposed' ? 'written out as separate ops, as below opset 17' : 'a LayerNormalization node'}), recomputed outside onnxruntime in float64`
    : 'nothing recomputed outside onnxruntime: no layer norm recognised at the output';
  return {
    kind: 'verified',
    maxAbsDiff: maxDiff,
    blockDiff,
    lastDiff,
    message:
      `${blocks ? `${blocks} (max |diff| ${figure(blockDiff)}); ` : ''}block ${n} run on its own from state ${n - 1}, then ${normWords}, reproduces the model's own output ` +
      `(max |diff| ${figure(lastDiff)}; tolerance ${VERIFY_TOLERANCE} of the values' scale)`,
  };
}
