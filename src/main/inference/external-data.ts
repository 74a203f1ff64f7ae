/**
 * A model reads only its own folder (issue 33 item 4). An ONNX tensor may keep its bytes
 * in another file ("external data": `data_location = EXTERNAL` and a `location` relative
 * to the model). onnxruntime resolves that location against the model's folder when it
 * is given a path, but against the process's working directory when it is given bytes,
 * which is how import handed models to it: a crafted model named a file in the working
 * folder (a key, the checkout's package.json) and read it back through the widths it
 * reported. So every location is resolved and checked here, before onnxruntime sees the
 * model: a plain relative name, no `..`, not absolute, no drive or stream (`:`) or
 * backslash, not onnxruntime's in-memory marker, and after following links a regular
 * file inside the model's own folder, with its offset and length inside the file.
 * Tensors are looked for everywhere a model can hold one: initializers (dense and
 * sparse), Constant nodes' attributes, subgraphs (Loop, If, Scan bodies), functions and
 * training graphs.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync, statSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep, win32 } from 'node:path';
import type onnxProto from 'onnx-proto';
import { UserError } from '../../shared/errors';
import { openInputFile } from '../security/input-file';
import { decodeModel, onnx } from './onnx-graph';

type Tensor = onnxProto.onnx.ITensorProto;
type Graph = onnxProto.onnx.IGraphProto;
type Attribute = onnxProto.onnx.IAttributeProto;

/** One tensor that keeps its bytes in another file, as the model declares it. */
export interface ExternalRef {
  tensor: string;
  location: string;
  offset: number;
  /** Bytes to read; null: to the end of the file. */
  length: number | null;
}

/** A checked external-data file: its location as the model names it, and the regular file it resolves to. */
export interface ExternalFile {
  location: string;
  /** The file after following links: inside the model's folder. */
  path: string;
  bytes: number;
}

function tensorsOfAttribute(a: Attribute, out: Tensor[]): void {
  if (a.t) out.push(a.t);
  for (const t of a.tensors ?? []) out.push(t);
  if (a.sparseTensor) sparse(a.sparseTensor, out);
  for (const s of a.sparseTensors ?? []) sparse(s, out);
  if (a.g) tensorsOfGraph(a.g, out);
  for (const g of a.graphs ?? []) tensorsOfGraph(g, out);
}

function sparse(s: onnxProto.onnx.ISparseTensorProto, out: Tensor[]): void {
  if (s.values) out.push(s.values);
  if (s.indices) out.push(s.indices);
}

function tensorsOfGraph(g: Graph, out: Tensor[]): void {
  for (const t of g.initializer ?? []) out.push(t);
  for (const s of g.sparseInitializer ?? []) sparse(s, out);
  for (const n of g.node ?? []) for (const a of n.attribute ?? []) tensorsOfAttribute(a, out);
}

/** Every tensor a model holds, in the main graph, its subgraphs, its functions and its training graphs. */
export function allTensors(model: onnxProto.onnx.IModelProto): Tensor[] {
  const out: Tensor[] = [];
  if (model.graph) tensorsOfGraph(model.graph, out);
  for (const f of model.functions ?? []) for (const n of f.node ?? []) for (const a of n.attribute ?? []) tensorsOfAttribute(a, out);
  for (const t of model.trainingInfo ?? []) {
    if (t.initialization) tensorsOfGraph(t.initialization, out);
    if (t.algorithm) tensorsOfGraph(t.algorithm, out);
  }
  return out;
}

function whole(value: string | undefined, what: string, where: string): number | null {
  if (value === undefined) return null;
  if (!/^\d{1,15}$/.test(value)) throw new UserError(`${where}: its external data ${what} "${value.slice(0, 40)}" is not a whole number of bytes`, 'file');
  return Number(value);
}

/**
 * The tensors of a model that keep their bytes elsewhere. A tensor counts when it says
 * EXTERNAL or carries external-data entries at all (onnxruntime decides by the first; a
 * model that sets one without the other is refused rather than guessed at).
 */
export function externalRefs(model: onnxProto.onnx.IModelProto, modelFile: string): ExternalRef[] {
  const refs: ExternalRef[] = [];
  for (const t of allTensors(model)) {
    const entries = t.externalData ?? [];
    const external = t.dataLocation === onnx.TensorProto.DataLocation.EXTERNAL;
    if (!external && entries.length === 0) continue;
    const name = t.name ?? '(unnamed)';
    const where = `${modelFile}, tensor "${name.slice(0, 80)}"`;
    if (!external) throw new UserError(`${where} carries external-data entries without being marked external; Equivox does not load such a model`, 'file');
    const get = (key: string) => entries.find((e) => e.key === key)?.value ?? undefined;
    const location = get('location');
    if (!location) throw new UserError(`${where} keeps its values in another file but does not say which`, 'file');
    refs.push({ tensor: name, location, offset: whole(get('offset'), 'offset', where) ?? 0, length: whole(get('length'), 'length', where) });
  }
  return refs;
}

function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/** Why a location as written is refused, or null when its form is a plain relative name. */
export function locationProblem(location: string): string | null {
  if (location.includes('\0')) return 'contains a NUL character';
  if (location.includes('_ORT_MEM_ADDR_')) return "is onnxruntime's in-memory marker, which only programs that build models in memory may use";
  if (isAbsolute(location) || win32.isAbsolute(location)) return 'is an absolute path';
  if (location.includes('\\')) return 'contains a backslash';
  if (location.includes(':')) return 'contains ":" (a drive or a stream name)';
  if (location.split('/').includes('..')) return 'goes up out of the folder ("..")';
  return null;
}

/**
 * Check every external-data location of a model against its folder (module comment).
 * Returns the distinct files, each resolved; throws a UserError naming the model file,
 * the tensor and the location for the first that is refused.
 */
export function checkExternalData(model: onnxProto.onnx.IModelProto, modelFile: string, folder = dirname(modelFile)): ExternalFile[] {
  const refs = externalRefs(model, modelFile);
  if (refs.length === 0) return [];
  let root: string;
  try {
    root = realpathSync(folder);
  } catch {
    throw new UserError(`${modelFile} keeps values in other files, but its folder ${folder} cannot be read`, 'file');
  }
  const files = new Map<string, ExternalFile>();
  for (const r of refs) {
    const where = `${modelFile}, tensor "${r.tensor.slice(0, 80)}", external data "${r.location.slice(0, 200)}"`;
    const problem = locationProblem(r.location);
    if (problem) throw new UserError(`${where}: refused because the location ${problem}. A model may only read files in its own folder.`, 'file');
    let file = files.get(r.location);
    if (!file) {
      const named = join(root, r.location);
      let real: string;
      try {
        real = realpathSync(named);
      } catch {
        throw new UserError(`${where}: there is no such file in the model's folder (${root})`, 'file');
      }
      if (!inside(root, real)) throw new UserError(`${where}: refused because it leads outside the model's folder (to ${real}). A model may only read files in its own folder.`, 'file');
      const st = statSync(real);
      if (!st.isFile()) throw new UserError(`${where}: refused because it is not a regular file (${st.isDirectory() ? 'a folder' : st.isFIFO() ? 'a named pipe' : 'a device or socket'})`, 'file');
      file = { location: r.location, path: real, bytes: st.size };
      files.set(r.location, file);
    }
    const end = r.offset + (r.length ?? 0);
    if (r.offset > file.bytes || end > file.bytes) throw new UserError(`${where}: asks for bytes ${r.offset}–${end} of a file of ${file.bytes} bytes`, 'file');
  }
  return [...files.values()];
}

/** checkExternalData on a model's bytes (decoded here). */
export function checkExternalDataOf(bytes: Uint8Array, modelFile: string, folder = dirname(modelFile)): ExternalFile[] {
  return checkExternalData(decodeModel(bytes), modelFile, folder);
}

/**
 * Copy checked external-data files into a store folder under the names the model uses,
 * through the one opener of user files (a swapped-in pipe is refused, not waited on);
 * returns each file's SHA-256, which becomes part of the model's id (the same graph with
 * other weights is another model).
 */
export async function copyExternalData(files: ExternalFile[], into: string): Promise<{ location: string; sha256: string; bytes: number }[]> {
  const out: { location: string; sha256: string; bytes: number }[] = [];
  for (const f of files) {
    const dest = join(into, f.location);
    if (!inside(into, dest)) throw new UserError(`external data "${f.location}" would be written outside the model's folder`, 'file');
    mkdirSync(dirname(dest), { recursive: true });
    const src = await openInputFile(f.path, 'model-data', 'file');
    const hash = createHash('sha256');
    const target = await openFile(dest, 'wx', 0o600);
    try {
      const buf = Buffer.allocUnsafe(4 * 1024 * 1024);
      let pos = 0;
      for (;;) {
        const n = await src.read(buf, 0, buf.length, pos);
        if (n === 0) break;
        hash.update(buf.subarray(0, n));
        await target.write(buf, 0, n);
        pos += n;
      }
      out.push({ location: f.location, sha256: hash.digest('hex'), bytes: pos });
    } finally {
      await target.close();
      await src.close();
    }
  }
  return out;
}
