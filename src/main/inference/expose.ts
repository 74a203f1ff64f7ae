/**
 * Layer exposure: standard Hugging Face exports output only last_hidden_state. We find
 * the transformer's input (state 0) and each block's output (states 1..N) from the
 * exporters' node naming (…/layers.N/…, …/layer_norm/…) and add them as graph outputs,
 * following transformers' `output_hidden_states` (METHODS.md, Embeddings).
 */
import { decodeModel, encodeModel, floatAttr, readFloatInitializer, valueInfo, type GraphProto, type NodeProto } from './onnx-graph';

/** Ops whose outputs are shapes or indices, never hidden states. */
const INTEGER_OPS = new Set(['Shape', 'Gather', 'Unsqueeze', 'Squeeze', 'Concat', 'Cast', 'ConstantOfShape', 'Range', 'Constant', 'Slice', 'Equal', 'Where', 'Expand', 'Size', 'Less', 'Greater', 'Not', 'NonZero', 'ReduceSum', 'ScatterND', 'Reshape']);

const LAYER_RE = /(?:^|\/)layers\.(\d+)\//;
const FINAL_NORM_RE = /(?:^|\/)(?:layer_norm|ln_post)\//;

export interface FinalNorm {
  /** Tensor the final norm reads (last block output) and writes. */
  input: string;
  output: string;
  /** Present when the norm is one LayerNormalization node, so we can recompute it. */
  scale?: Float32Array;
  bias?: Float32Array;
  epsilon?: number;
}

export interface LayerMap {
  /** Tensor names of hidden states 0..N, in METHODS.md's convention. */
  states: string[];
  /** Number of transformer blocks N. */
  blocks: number;
  /** Output of block N before the final layer norm, when the family has one. */
  lastBlockOutput: string;
  finalNorm: FinalNorm | null;
  /** The original output the last state must reproduce. */
  originalOutput: string;
  /** 'pre-norm-final' (final layer norm after the blocks) or 'post-norm' (norm before them). */
  layout: 'final-layer-norm' | 'no-final-layer-norm';
}

export type LayerSearch = { ok: true; map: LayerMap } | { ok: false; reason: string };

function indexNodes(graph: GraphProto) {
  const nodes = graph.node ?? [];
  const producer = new Map<string, { node: NodeProto; pos: number }>();
  const consumers = new Map<string, { node: NodeProto; pos: number }[]>();
  nodes.forEach((node, pos) => {
    for (const o of node.output ?? []) producer.set(o, { node, pos });
    for (const i of node.input ?? []) {
      if (!i) continue;
      const list = consumers.get(i) ?? [];
      list.push({ node, pos });
      consumers.set(i, list);
    }
  });
  const initializers = new Set((graph.initializer ?? []).map((t) => t.name ?? ''));
  return { nodes, producer, consumers, initializers };
}

/** Locate states 0..N in an exporter's graph, or say why not. */
export function findLayers(graph: GraphProto): LayerSearch {
  const { nodes, producer, consumers, initializers } = indexNodes(graph);
  const byLayer = new Map<number, { node: NodeProto; pos: number }[]>();
  nodes.forEach((node, pos) => {
    const m = LAYER_RE.exec(node.name ?? '');
    if (!m) return;
    const k = Number(m[1]);
    const list = byLayer.get(k) ?? [];
    list.push({ node, pos });
    byLayer.set(k, list);
  });
  if (byLayer.size === 0) return { ok: false, reason: 'no nodes named like …/layers.N/… (the Hugging Face exporters’ naming), so the transformer blocks could not be found' };
  const n = Math.max(...byLayer.keys()) + 1;
  for (let k = 0; k < n; k += 1) if (!byLayer.has(k)) return { ok: false, reason: `block ${k} of ${n} has no nodes named …/layers.${k}/…` };
  const graphOutputs = new Set((graph.output ?? []).map((o) => o.name ?? ''));
  const isFloatish = (t: string) => {
    const p = producer.get(t);
    return !!p && !INTEGER_OPS.has(p.node.opType ?? '');
  };
  const blockOutputs: string[] = [];
  for (let k = 0; k < n; k += 1) {
    const inLayer = new Set(byLayer.get(k)!.map((x) => x.node));
    const candidates: { t: string; pos: number }[] = [];
    for (const { node, pos } of byLayer.get(k)!) {
      for (const o of node.output ?? []) {
        if (!isFloatish(o)) continue;
        const outside = (consumers.get(o) ?? []).some((c) => !inLayer.has(c.node) && !INTEGER_OPS.has(c.node.opType ?? '') && c.node.opType !== 'Shape');
        if (outside || graphOutputs.has(o)) candidates.push({ t: o, pos });
      }
    }
    if (candidates.length === 0) return { ok: false, reason: `block ${k}: no output leaves the block` };
    candidates.sort((a, b) => a.pos - b.pos);
    blockOutputs.push(candidates[candidates.length - 1]!.t);
  }
  // State 0: the float tensor entering block 0 from outside.
  const first = byLayer.get(0)!;
  const inFirst = new Set(first.map((x) => x.node));
  const entering: { t: string; pos: number }[] = [];
  for (const { node } of first) {
    for (const i of node.input ?? []) {
      if (!i || initializers.has(i)) continue;
      const p = producer.get(i);
      if (!p || inFirst.has(p.node) || !isFloatish(i)) continue;
      if (!entering.some((e) => e.t === i)) entering.push({ t: i, pos: p.pos });
    }
  }
  if (entering.length === 0) return { ok: false, reason: 'the input of block 0 could not be found' };
  entering.sort((a, b) => a.pos - b.pos);
  const state0 = entering[entering.length - 1]!.t;
  const originalOutput = (graph.output ?? [])[0]?.name ?? '';
  const lastBlock = blockOutputs[n - 1]!;
  const lastBlockPos = Math.max(...byLayer.get(n - 1)!.map((x) => x.pos));
  // A final layer norm: a node under …/layer_norm/ outside the blocks, after the last block.
  const normNodes = nodes
    .map((node, pos) => ({ node, pos }))
    .filter(({ node, pos }) => pos > lastBlockPos && FINAL_NORM_RE.test(node.name ?? '') && !LAYER_RE.test(node.name ?? ''));
  let finalNorm: FinalNorm | null = null;
  if (normNodes.length > 0) {
    const consumesLast = normNodes.some(({ node }) => (node.input ?? []).includes(lastBlock));
    if (!consumesLast) return { ok: false, reason: 'a final layer norm exists but does not read the last block’s output' };
    const lastNorm = normNodes[normNodes.length - 1]!.node;
    const output = lastNorm.output![0]!;
    finalNorm = { input: lastBlock, output };
    if (normNodes.length === 1 && lastNorm.opType === 'LayerNormalization') {
      const scale = readFloatInitializer(graph, lastNorm.input![1]!);
      const bias = lastNorm.input![2] ? readFloatInitializer(graph, lastNorm.input![2]) : null;
      if (scale) {
        finalNorm.scale = scale;
        if (bias) finalNorm.bias = bias;
        finalNorm.epsilon = floatAttr(lastNorm, 'epsilon', 1e-5);
      }
    }
  }
  const states = [state0, ...blockOutputs.slice(0, n - 1), finalNorm ? finalNorm.output : lastBlock];
  return {
    ok: true,
    map: { states, blocks: n, lastBlockOutput: lastBlock, finalNorm, originalOutput, layout: finalNorm ? 'final-layer-norm' : 'no-final-layer-norm' },
  };
}

/** Add tensors as graph outputs (keeping the original outputs first). */
export function addOutputs(bytes: Uint8Array, names: string[]): Uint8Array {
  const model = decodeModel(bytes);
  const graph = model.graph!;
  const have = new Set((graph.output ?? []).map((o) => o.name));
  for (const name of names) {
    if (have.has(name)) continue;
    graph.output!.push(valueInfo(name));
    have.add(name);
  }
  return encodeModel(model);
}

/** Find the layers and write the derived model exposing them (plus the pre-norm output). */
export function exposeLayers(bytes: Uint8Array): { ok: true; map: LayerMap; derived: Uint8Array } | { ok: false; reason: string } {
  const graph = decodeModel(bytes).graph;
  if (!graph) return { ok: false, reason: 'the file holds no graph' };
  const found = findLayers(graph);
  if (!found.ok) return found;
  const extra = [...found.map.states];
  if (found.map.finalNorm) extra.push(found.map.lastBlockOutput);
  return { ok: true, map: found.map, derived: addOutputs(bytes, extra) };
}

/** LayerNorm over the last axis of [.., D] data, in float64 then rounded. */
export function layerNormLastAxis(x: Float32Array, d: number, scale: Float32Array, bias: Float32Array | undefined, eps: number): Float32Array {
  const out = new Float32Array(x.length);
  for (let r = 0; r < x.length; r += d) {
    let mean = 0;
    for (let j = 0; j < d; j += 1) mean += x[r + j]!;
    mean /= d;
    let v = 0;
    for (let j = 0; j < d; j += 1) v += (x[r + j]! - mean) ** 2;
    const inv = 1 / Math.sqrt(v / d + eps);
    for (let j = 0; j < d; j += 1) out[r + j] = (x[r + j]! - mean) * inv * scale[j]! + (bias ? bias[j]! : 0);
  }
  return out;
}
