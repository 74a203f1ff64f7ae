/**
 * The form of a stored graph that onnxruntime sets up fastest: the same graph with its
 * large weights moved to a file beside it ("external data", each tensor 4 KiB aligned),
 * which onnxruntime maps from the file instead of reading and copying it out of the
 * protobuf. Measured on the bench's base-size wav2vec2 (377 MB, 2 threads, onnxruntime
 * 1.30): a session set up in 2.95 s from derived.onnx, in 1.24 s from this form, with
 * byte-identical outputs (the graph, its nodes and every weight's bytes are the same;
 * test/unit/inference/runnable-graph.test.ts compares the outputs of both).
 *
 * It is a cache. The graph as imported and derived (model.onnx, derived.onnx) stays as it
 * was hashed, so a SHA-256 in a manifest or report can still be checked against its file;
 * the runnable files are written at import and, for a model imported before they existed,
 * on its first embedding run, and are used only while their stamp matches the source's
 * size and modification time. Anything wrong with them (deleted, stale, a store that
 * cannot be written) falls back to the source graph: slower, never wrong.
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { decodeModel, encodeModel, onnx } from './onnx-graph';

export const RUNNABLE_FILES = { graph: 'runnable.onnx', weights: 'runnable.weights', stamp: 'runnable.json' } as const;

/** Tensors smaller than this stay in the graph (biases, shapes): mapping them saves nothing. */
const MIN_MOVED_BYTES = 4096;
/** Page-aligned offsets, so every moved tensor can be mapped where it lies. */
const ALIGN = 4096;

interface Stamp {
  version: 1;
  /** The source graph's file name, in the same folder. */
  source: string;
  sourceBytes: number;
  sourceMtimeMs: number;
  graphBytes: number;
  weightsBytes: number;
}

function readStamp(dir: string): Stamp | null {
  try {
    const s = JSON.parse(readFileSync(join(dir, RUNNABLE_FILES.stamp), 'utf8')) as Partial<Stamp>;
    return s.version === 1 && typeof s.source === 'string' ? (s as Stamp) : null;
  } catch {
    return null;
  }
}

function sizeOf(file: string): number | null {
  try {
    return statSync(file).size;
  } catch {
    return null;
  }
}

/** The runnable form of `source` where it exists and matches it, else null. Cheap: a read of a small JSON file and three stats. */
export function runnableGraph(source: string): string | null {
  const dir = dirname(source);
  const stamp = readStamp(dir);
  if (!stamp || stamp.source !== basename(source)) return null;
  let src;
  try {
    src = statSync(source);
  } catch {
    return null;
  }
  if (src.size !== stamp.sourceBytes || src.mtimeMs !== stamp.sourceMtimeMs) return null;
  const graph = join(dir, RUNNABLE_FILES.graph);
  if (sizeOf(graph) !== stamp.graphBytes || sizeOf(join(dir, RUNNABLE_FILES.weights)) !== stamp.weightsBytes) return null;
  return graph;
}

/**
 * Write the runnable form of `source` (a stored graph file) beside it, unless a matching one
 * is there. `sourceBytes`: the file's bytes where the caller has just written them (import),
 * so they are not read back. Returns the graph to give onnxruntime: the runnable form, or `source` itself
 * when the graph has no weights worth moving or the folder cannot be written.
 */
export async function ensureRunnableGraph(source: string, sourceBytes?: Uint8Array): Promise<string> {
  const have = runnableGraph(source);
  if (have) return have;
  // Per call, not per process: two jobs in threads of one process may write at once.
  const token = `${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    return await writeRunnableGraph(source, token, sourceBytes);
  } catch {
    // A read-only or full store: the source graph runs as well, only its setup is slower.
    for (const f of Object.values(RUNNABLE_FILES)) rmSync(join(dirname(source), `${f}.tmp-${token}`), { force: true });
    return source;
  }
}

async function writeRunnableGraph(source: string, token: string, sourceBytes?: Uint8Array): Promise<string> {
  const dir = dirname(source);
  const before = statSync(source);
  const model = decodeModel(sourceBytes ?? (await readFile(source)));
  const tensors = (model.graph?.initializer ?? []).filter((t) => t.dataLocation !== onnx.TensorProto.DataLocation.EXTERNAL && t.rawData && t.rawData.length >= MIN_MOVED_BYTES);
  if (tensors.length === 0) return source;
  // Temporary names per call, renamed into place weights first, graph second, stamp last:
  // a stamp that exists names complete files, and two processes writing at once write the
  // same bytes (the layout depends on the source alone).
  const tmp = (name: string) => join(dir, `${name}.tmp-${token}`);
  const fd = openSync(tmp(RUNNABLE_FILES.weights), 'w');
  let offset = 0;
  try {
    for (const t of tensors) {
      const raw = t.rawData!;
      const pad = (ALIGN - (offset % ALIGN)) % ALIGN;
      if (pad > 0) writeSync(fd, new Uint8Array(pad));
      offset += pad;
      writeSync(fd, raw);
      t.dataLocation = onnx.TensorProto.DataLocation.EXTERNAL;
      t.externalData = [
        { key: 'location', value: RUNNABLE_FILES.weights },
        { key: 'offset', value: String(offset) },
        { key: 'length', value: String(raw.length) },
      ];
      t.rawData = new Uint8Array(0);
      offset += raw.length;
    }
  } finally {
    closeSync(fd);
  }
  const graph = encodeModel(model);
  writeFileSync(tmp(RUNNABLE_FILES.graph), graph);
  const after = statSync(source);
  if (after.size !== before.size || after.mtimeMs !== before.mtimeMs) {
    for (const f of [RUNNABLE_FILES.weights, RUNNABLE_FILES.graph]) rmSync(tmp(f), { force: true });
    return source;
  }
  renameSync(tmp(RUNNABLE_FILES.weights), join(dir, RUNNABLE_FILES.weights));
  renameSync(tmp(RUNNABLE_FILES.graph), join(dir, RUNNABLE_FILES.graph));
  const stamp: Stamp = { version: 1, source: basename(source), sourceBytes: before.size, sourceMtimeMs: before.mtimeMs, graphBytes: graph.length, weightsBytes: offset };
  writeFileSync(tmp(RUNNABLE_FILES.stamp), JSON.stringify(stamp, null, 2));
  renameSync(tmp(RUNNABLE_FILES.stamp), join(dir, RUNNABLE_FILES.stamp));
  return join(dir, RUNNABLE_FILES.graph);
}

/** Whether `name` is one of the runnable form's files (a cache: not copied with a model, e.g. into a cluster job). */
export function isRunnableFile(name: string): boolean {
  return Object.values(RUNNABLE_FILES).includes(name as (typeof RUNNABLE_FILES)[keyof typeof RUNNABLE_FILES]) || /^runnable\.(onnx|weights|json)\.tmp-/.test(name);
}
