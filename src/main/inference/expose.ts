/**
 * Layer exposure: standard Hugging Face exports output only last_hidden_state. We find
 * the transformer's input (state 0) and each block's output (states 1..N) and add them as
 * graph outputs, following transformers' `output_hidden_states` (METHODS.md, Embeddings).
 *
 * Blocks are the numbered children of the encoder's block list (…/encoder/layers.N/…),
 * read from node names (torch.onnx.export) or, when names are generic, from the module
 * scopes the dynamo exporter leaves in node metadata. Numbered layers inside positional
 * convolutions or the feature encoder (data2vec-audio's encoder.pos_conv_embed.layers.0..4)
 * are not blocks: a block list must hold attention.
 *
 * Which tensors carry the audio is decided by data flow, not by op type: a tensor depends
 * on the audio when a path of data edges leads to it from a graph input (a Shape or Size
 * node passes on only the shape). WavLM's relative position bias, computed in block 0 and
 * read by every later block, depends only on the length and so is not mistaken for a state.
 *
 * buildChainModel cuts the graph at every exposed state: each block then runs on its own
 * from the exposed state before it, which is how the import check (models.ts) proves the
 * states are the blocks' boundaries.
 */
import { decodeModel, encodeModel, floatAttr, onnx, valueInfo, type GraphProto, type NodeProto } from './onnx-graph';
import { nodeScopes } from './onnx-scopes';

/** A numbered block list: …/layers.N/ (wav2vec2, HuBERT, WavLM, Whisper), …/layer.N/, …/blocks.N/. */
const BLOCK_RE = /\/(layers|layer|blocks)\.(\d+)\//;
/** Module names whose numbered children are never transformer blocks. */
const NOT_BLOCK_LIST = /\/(?:pos_conv_embed|feature_extractor|feature_encoder|conv_layers|feature_projection|adapter|quantizer|decoder)\//;
/** Ops that show a block attends. */
const ATTENTION_OPS = new Set(['Softmax', 'Attention', 'MultiHeadAttention', 'GroupQueryAttention']);
/** Ops whose output carries only the input's shape, never its values. */
const SHAPE_ONLY_OPS = new Set(['Shape', 'Size']);

/** A layer norm over the last axis that produces a given tensor, as one node or decomposed. */
export interface LayerNormSpec {
  input: string;
  output: string;
  scale: Float32Array;
  bias: Float32Array | null;
  epsilon: number;
  form: 'LayerNormalization' | 'decomposed';
}

export interface LayerMap {
  /** Tensor names of hidden states 0..N, in METHODS.md's convention (state N = the model's output). */
  states: string[];
  /** Number of transformer blocks N. */
  blocks: number;
  /** The block list, e.g. "/encoder/layers" (in node-name form). */
  blockList: string;
  /** Output of each block (the last may be the model's output itself: post-norm families). */
  blockOutputs: string[];
  /** The original output the last state is. */
  originalOutput: string;
  /** A layer norm between the last block and the output (Whisper, "stable layer norm" wav2vec 2.0). */
  finalLayerNorm: boolean;
  /** The layer norm that writes the output (the final one, or the last block's own), when recognised. */
  trailingNorm: LayerNormSpec | null;
  scopeSource: 'node-names' | 'node-metadata';
}

export type LayerSearch = { ok: true; map: LayerMap } | { ok: false; reason: string };

interface Indexed {
  nodes: NodeProto[];
  producer: Map<string, number>;
  consumers: Map<string, number[]>;
  initializers: Set<string>;
  inputs: string[];
}

function indexGraph(graph: GraphProto): Indexed {
  const nodes = graph.node ?? [];
  const producer = new Map<string, number>();
  const consumers = new Map<string, number[]>();
  nodes.forEach((node, pos) => {
    for (const o of node.output ?? []) if (o) producer.set(o, pos);
    for (const i of node.input ?? []) {
      if (!i) continue;
      const list = consumers.get(i) ?? [];
      list.push(pos);
      consumers.set(i, list);
    }
  });
  const initializers = new Set((graph.initializer ?? []).map((t) => t.name ?? ''));
  const inputs = (graph.input ?? []).map((i) => i.name ?? '').filter((n) => n && !initializers.has(n));
  return { nodes, producer, consumers, initializers, inputs };
}

/** Tensors whose values depend on the given sources (the audio), following data edges in node order. */
export function dataDependent(nodes: readonly NodeProto[], sources: Iterable<string>): Set<string> {
  const tainted = new Set(sources);
  for (const node of nodes) {
    if (SHAPE_ONLY_OPS.has(node.opType ?? '')) continue;
    if ((node.input ?? []).some((i) => i && tainted.has(i))) for (const o of node.output ?? []) if (o) tainted.add(o);
  }
  return tainted;
}

/** Value of a float constant: an initializer or a Constant node's tensor. */
function constFloats(graph: GraphProto, idx: Indexed, name: string): Float32Array | null {
  const fromTensor = (t: { rawData?: Uint8Array | null; floatData?: number[] | null; dataType?: number | null } | null | undefined): Float32Array | null => {
    if (!t || (t.dataType !== undefined && t.dataType !== null && t.dataType !== 1)) return null;
    if (t.rawData && t.rawData.length > 0) {
      const copy = new Uint8Array(t.rawData);
      return new Float32Array(copy.buffer, copy.byteOffset, copy.byteLength / 4);
    }
    return Float32Array.from(t.floatData ?? []);
  };
  if (idx.initializers.has(name)) return fromTensor((graph.initializer ?? []).find((t) => t.name === name));
  const p = idx.producer.get(name);
  if (p === undefined) return null;
  const node = idx.nodes[p]!;
  if (node.opType !== 'Constant') return null;
  return fromTensor((node.attribute ?? []).find((a) => a.name === 'value')?.t);
}

function intsAttr(node: NodeProto, name: string): number[] | null {
  const a = (node.attribute ?? []).find((x) => x.name === name);
  return a?.ints ? a.ints.map(Number) : null;
}

/** ReduceMean over the last axis only (axes as an attribute, or as an input from opset 18). */
function meanOverLastAxis(graph: GraphProto, idx: Indexed, node: NodeProto): boolean {
  if (node.opType !== 'ReduceMean') return false;
  let axes = intsAttr(node, 'axes');
  if (!axes && node.input?.[1]) {
    const t = (graph.initializer ?? []).find((x) => x.name === node.input![1]);
    if (t?.rawData && t.rawData.length === 8) axes = [Number(new DataView(t.rawData.buffer, t.rawData.byteOffset, 8).getBigInt64(0, true))];
  }
  return !!axes && axes.length === 1 && axes[0] === -1;
}

/**
 * The layer norm that writes `output`, if it is one: a LayerNormalization node over the
 * last axis, or the decomposition torch.onnx writes below opset 17
 * (x − mean) / sqrt(mean((x − mean)²) + eps) · weight + bias, with constant weight and bias.
 */
export function matchLayerNorm(graph: GraphProto, output: string): LayerNormSpec | null {
  const idx = indexGraph(graph);
  const node = (name: string) => {
    const p = idx.producer.get(name);
    return p === undefined ? null : idx.nodes[p]!;
  };
  let top = node(output);
  // Exporters sometimes end a graph with Identity nodes.
  while (top && top.opType === 'Identity') top = node(top.input?.[0] ?? '');
  if (!top) return null;
  if (top.opType === 'LayerNormalization') {
    const axis = (top.attribute ?? []).find((a) => a.name === 'axis');
    if (axis && Number(axis.i) !== -1) return null;
    const scale = top.input?.[1] ? constFloats(graph, idx, top.input[1]) : null;
    if (!scale) return null;
    const bias = top.input?.[2] ? constFloats(graph, idx, top.input[2]) : null;
    if (top.input?.[2] && !bias) return null;
    return { input: top.input![0]!, output, scale, bias, epsilon: floatAttr(top, 'epsilon', 1e-5), form: 'LayerNormalization' };
  }
  // Peel "+ bias" and "· weight" (either operand order), then the normalisation itself.
  let cur: NodeProto | null = top;
  let bias: Float32Array | null = null;
  let scale: Float32Array | null = null;
  const constOperand = (n: NodeProto): { c: Float32Array; other: string } | null => {
    const [a, b] = [n.input?.[0] ?? '', n.input?.[1] ?? ''];
    const ca = constFloats(graph, idx, a);
    const cb = constFloats(graph, idx, b);
    if (cb && !ca) return { c: cb, other: a };
    if (ca && !cb) return { c: ca, other: b };
    return null;
  };
  if (cur.opType === 'Add') {
    const k = constOperand(cur);
    if (!k) return null;
    bias = k.c;
    cur = node(k.other);
  }
  if (cur && cur.opType === 'Mul') {
    const k = constOperand(cur);
    if (!k) return null;
    scale = k.c;
    cur = node(k.other);
  }
  if (!cur || cur.opType !== 'Div') return null;
  const sub = node(cur.input?.[0] ?? '');
  const sqrt = node(cur.input?.[1] ?? '');
  if (!sub || sub.opType !== 'Sub' || !sqrt || sqrt.opType !== 'Sqrt') return null;
  const x = sub.input?.[0] ?? '';
  const mean = node(sub.input?.[1] ?? '');
  if (!mean || !meanOverLastAxis(graph, idx, mean) || mean.input?.[0] !== x) return null;
  const addEps = node(sqrt.input?.[0] ?? '');
  if (!addEps || addEps.opType !== 'Add') return null;
  const epsK = constOperand(addEps);
  if (!epsK || epsK.c.length !== 1) return null;
  const variance = node(epsK.other);
  if (!variance || !meanOverLastAxis(graph, idx, variance)) return null;
  const pow = node(variance.input?.[0] ?? '');
  if (!pow) return null;
  const squared =
    (pow.opType === 'Pow' && pow.input?.[0] === sub.output?.[0] && constFloats(graph, idx, pow.input?.[1] ?? '')?.[0] === 2) ||
    (pow.opType === 'Mul' && pow.input?.[0] === sub.output?.[0] && pow.input?.[1] === sub.output?.[0]);
  if (!squared) return null;
  return { input: x, output, scale: scale ?? new Float32Array(0), bias, epsilon: epsK.c[0]!, form: 'decomposed' };
}

interface BlockList {
  key: string;
  blocks: Map<number, number[]>;
}

/** Locate states 0..N in an exporter's graph, or say why not. */
export function findLayers(graph: GraphProto, modelBytes?: Uint8Array): LayerSearch {
  const idx = indexGraph(graph);
  const { nodes, producer, consumers } = idx;
  const names = nodes.map((n) => n.name ?? '');
  const scopes = modelBytes ? nodeScopes(modelBytes, names, (p) => BLOCK_RE.test(p)) : { paths: names, source: 'node-names' as const };
  const lists = new Map<string, BlockList>();
  scopes.paths.forEach((raw, pos) => {
    const path = raw.startsWith('/') ? raw : `/${raw}`;
    const m = BLOCK_RE.exec(path);
    if (!m) return;
    const key = path.slice(0, m.index) + `/${m[1]}`;
    const list = lists.get(key) ?? { key, blocks: new Map() };
    const k = Number(m[2]);
    list.blocks.set(k, [...(list.blocks.get(k) ?? []), pos]);
    lists.set(key, list);
  });
  if (lists.size === 0) {
    return { ok: false, reason: 'no transformer blocks found: no node is named like …/layers.N/… (the Hugging Face exporters’ naming) and no node carries such a module scope in its metadata' };
  }
  const hasAttention = (l: BlockList) => [...l.blocks.values()].every((ps) => ps.some((p) => ATTENTION_OPS.has(nodes[p]!.opType ?? '')));
  const complete = (l: BlockList) => {
    const n = Math.max(...l.blocks.keys()) + 1;
    return l.blocks.size === n;
  };
  const candidates = [...lists.values()].filter((l) => !NOT_BLOCK_LIST.test(`${l.key}/`) && complete(l) && hasAttention(l));
  if (candidates.length === 0) {
    const seen = [...lists.keys()].map((k) => `${k}.N`).join(', ');
    return { ok: false, reason: `no transformer block list found: the numbered layers (${seen}) are positional-convolution or feature-encoder layers, have gaps, or hold no attention` };
  }
  candidates.sort((a, b) => b.blocks.size - a.blocks.size || Number(/\/encoder\/[^/]+$/.test(b.key)) - Number(/\/encoder\/[^/]+$/.test(a.key)));
  const chosen = candidates[0]!;
  const n = chosen.blocks.size;
  const audio = dataDependent(nodes, idx.inputs);
  const graphOutputs = new Set((graph.output ?? []).map((o) => o.name ?? ''));
  const blockOutputs: string[] = [];
  for (let k = 0; k < n; k += 1) {
    const inBlock = new Set(chosen.blocks.get(k)!);
    const leaving: { t: string; pos: number }[] = [];
    for (const pos of inBlock) {
      for (const o of nodes[pos]!.output ?? []) {
        if (!o || !audio.has(o)) continue;
        const outside = (consumers.get(o) ?? []).some((c) => !inBlock.has(c) && !SHAPE_ONLY_OPS.has(nodes[c]!.opType ?? ''));
        if (outside || graphOutputs.has(o)) leaving.push({ t: o, pos });
      }
    }
    if (leaving.length === 0) return { ok: false, reason: `block ${k} of ${chosen.key}: no tensor computed from the audio leaves the block` };
    leaving.sort((a, b) => a.pos - b.pos);
    blockOutputs.push(leaving[leaving.length - 1]!.t);
  }
  // State 0: the audio-dependent tensor entering block 0 from outside.
  const first = new Set(chosen.blocks.get(0)!);
  const entering: { t: string; pos: number }[] = [];
  for (const pos of first) {
    if (SHAPE_ONLY_OPS.has(nodes[pos]!.opType ?? '')) continue;
    for (const i of nodes[pos]!.input ?? []) {
      if (!i || !audio.has(i)) continue;
      const p = producer.get(i);
      if (p !== undefined && first.has(p)) continue;
      if (!entering.some((e) => e.t === i)) entering.push({ t: i, pos: p ?? -1 });
    }
  }
  if (entering.length === 0) return { ok: false, reason: 'the input of block 0 could not be found' };
  if (entering.length > 1) return { ok: false, reason: `block 0 reads ${entering.length} tensors computed from the audio (${entering.map((e) => e.t).join(', ')}), so its input is ambiguous` };
  const originalOutput = (graph.output ?? [])[0]?.name ?? '';
  const lastBlock = blockOutputs[n - 1]!;
  const trailingNorm = matchLayerNorm(graph, originalOutput);
  const finalLayerNorm = lastBlock !== originalOutput;
  if (finalLayerNorm && trailingNorm?.input !== lastBlock) {
    return { ok: false, reason: `between the last block's output and ${originalOutput} there is more than one layer norm over the last axis, so the last state cannot be matched to transformers' convention` };
  }
  const states = [entering[0]!.t, ...blockOutputs.slice(0, n - 1), originalOutput];
  return {
    ok: true,
    map: { states, blocks: n, blockList: chosen.key, blockOutputs, originalOutput, finalLayerNorm, trailingNorm, scopeSource: scopes.source },
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

/** Find the layers and write the derived model exposing them. */
export function exposeLayers(bytes: Uint8Array): { ok: true; map: LayerMap; derived: Uint8Array } | { ok: false; reason: string } {
  const graph = decodeModel(bytes).graph;
  if (!graph) return { ok: false, reason: 'the file holds no graph' };
  const found = findLayers(graph, bytes);
  if (!found.ok) return found;
  return { ok: true, map: found.map, derived: addOutputs(bytes, found.map.states) };
}

/** Prefix of the chain model's inputs: `${CHAIN_INPUT}${k}` stands for exposed state k. */
export const CHAIN_INPUT = 'equivox.verify.state_';

export interface ChainModel {
  model: Uint8Array;
  /** Chain input name → the exposed state that feeds it. */
  feeds: { input: string; state: string }[];
  /** Original graph inputs the chain still reads (only for shapes). */
  graphInputs: string[];
  /** Recomputed tensors: states 1..N−1, then the last block's result (see `last`). */
  outputs: string[];
  /** The last output: the trailing layer norm's input when it is recognised, else the model's output. */
  last: string;
}

/**
 * The graph cut at every exposed state: consumers of state k (k < N) read a new input
 * instead, so block k+1 runs only on what it is fed. Outputs: states 1..N−1 recomputed, and
 * for the last block the trailing layer norm's input (its norm is recomputed outside
 * onnxruntime) or, when none is recognised, the model's output. Fails ("structural") when
 * state k is not computed from state k−1 alone: it reads another state, or the audio by a
 * path around the states.
 */
export function buildChainModel(bytes: Uint8Array, map: LayerMap): { ok: true; chain: ChainModel } | { ok: false; reason: string; structural: boolean } {
  const model = decodeModel(bytes);
  const graph = model.graph!;
  const idx = indexGraph(graph);
  const cut = new Map<string, string>();
  map.states.slice(0, map.blocks).forEach((s, k) => cut.set(s, `${CHAIN_INPUT}${k}`));
  const nodes = idx.nodes.map((n) => ({ ...n, input: (n.input ?? []).map((i) => cut.get(i) ?? i) }));
  const last = map.trailingNorm ? map.trailingNorm.input : map.originalOutput;
  const targets = [...map.states.slice(1, map.blocks), last];
  if (cut.has(last)) return { ok: false, reason: `block ${map.blocks} computes nothing between state ${map.blocks - 1} and the output`, structural: true };
  // Keep what the targets need, walking back from them.
  const producer = new Map<string, number>();
  nodes.forEach((n, pos) => (n.output ?? []).forEach((o) => o && producer.set(o, pos)));
  const keep = new Set<number>();
  const stack = [...targets];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const t = stack.pop()!;
    if (seen.has(t)) continue;
    seen.add(t);
    const p = producer.get(t);
    if (p === undefined || keep.has(p)) continue;
    keep.add(p);
    for (const i of nodes[p]!.input ?? []) if (i) stack.push(i);
  }
  const kept = nodes.filter((_, pos) => keep.has(pos));
  const read = new Set(kept.flatMap((n) => n.input ?? []).filter(Boolean));
  const graphInputs = idx.inputs.filter((i) => read.has(i));
  // State k must be computed from state k−1 alone (reading other states' shapes is fine).
  const fromAudio = dataDependent(kept, graphInputs);
  const fromState = map.states.slice(0, map.blocks).map((_, k) => dataDependent(kept, [`${CHAIN_INPUT}${k}`]));
  for (let k = 1; k <= map.blocks; k += 1) {
    const t = targets[k - 1]!;
    const what = k === map.blocks ? `the output of block ${k}` : `state ${k}`;
    if (fromAudio.has(t)) return { ok: false, reason: `${what} also depends on the audio by a path that bypasses state ${k - 1}`, structural: true };
    const uses = fromState.map((set, j) => (set.has(t) ? j : -1)).filter((j) => j >= 0);
    if (uses.length !== 1 || uses[0] !== k - 1) {
      const from = uses.length === 0 ? 'none of the states' : `state${uses.length > 1 ? 's' : ''} ${uses.join(' and ')}`;
      return { ok: false, reason: `${what} is computed from ${from}, not from state ${k - 1} alone`, structural: true };
    }
  }
  const feeds = map.states.slice(0, map.blocks).map((state, k) => ({ input: `${CHAIN_INPUT}${k}`, state })).filter((f) => read.has(f.input));
  graph.node = kept;
  // Float tensors of unknown shape: onnxruntime takes whatever the states' shapes are.
  const floatInput = (name: string) => ({ name, type: { tensorType: { elemType: onnx.TensorProto.DataType.FLOAT } } });
  graph.input = [...feeds.map((f) => floatInput(f.input)), ...(graph.input ?? []).filter((i) => graphInputs.includes(i.name ?? ''))];
  graph.output = targets.map((t) => valueInfo(t));
  graph.initializer = (graph.initializer ?? []).filter((t) => read.has(t.name ?? ''));
  graph.valueInfo = [];
  return { ok: true, chain: { model: encodeModel(model), feeds, graphInputs, outputs: targets, last } };
}

/** LayerNorm over the last axis of [.., D] data, in float64 then rounded. An empty scale means 1. */
export function layerNormLastAxis(x: Float32Array, d: number, scale: Float32Array, bias: Float32Array | null | undefined, eps: number): Float32Array {
  const out = new Float32Array(x.length);
  const hasScale = scale.length > 0;
  for (let r = 0; r < x.length; r += d) {
    let mean = 0;
    for (let j = 0; j < d; j += 1) mean += x[r + j]!;
    mean /= d;
    let v = 0;
    for (let j = 0; j < d; j += 1) v += (x[r + j]! - mean) ** 2;
    const inv = 1 / Math.sqrt(v / d + eps);
    for (let j = 0; j < d; j += 1) out[r + j] = (x[r + j]! - mean) * inv * (hasScale ? scale[j]! : 1) + (bias ? bias[j]! : 0);
  }
  return out;
}
