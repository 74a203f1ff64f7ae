/**
 * Module scopes of ONNX nodes. torch.onnx.export (TorchScript) writes them into node
 * names ("/encoder/layers.0/attention/q_proj/MatMul"); PyTorch's dynamo exporter gives
 * nodes generic names ("node_MatMul_12") and records the scope in each node's
 * metadata_props instead: `pkg.torch.onnx.name_scopes` is the Python repr of the
 * cumulative module paths (['', 'encoder', 'encoder.layers.0', …, 'matmul_12'], last entry
 * the op itself). onnx-proto predates NodeProto.metadata_props (field 9), so it is read
 * here straight from the protobuf bytes.
 */

/** Protobuf wire reader over one message's bytes. */
class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array, readonly end = buf.length, start = 0) {
    this.pos = start;
  }
  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.end) throw new Error('truncated varint');
      const b = this.buf[this.pos++]!;
      // Lengths and tags here stay far below 2^53; multiplication keeps bits past 32.
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
      if (shift > 63) throw new Error('varint too long');
    }
  }
  /** Skip a field's value of the given wire type; returns [start, end) of a length-delimited value. */
  skip(wire: number): [number, number] | null {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 5) this.pos += 4;
    else if (wire === 2) {
      const len = this.varint();
      const start = this.pos;
      this.pos += len;
      if (this.pos > this.end) throw new Error('truncated field');
      return [start, this.pos];
    } else throw new Error(`unsupported wire type ${wire}`);
    return null;
  }
}

/** Every occurrence of a length-delimited field in [start, end). */
function fields(buf: Uint8Array, start: number, end: number, field: number): [number, number][] {
  const r = new Reader(buf, end, start);
  const out: [number, number][] = [];
  while (r.pos < end) {
    const tag = r.varint();
    const span = r.skip(tag % 8);
    if (Math.floor(tag / 8) === field && span) out.push(span);
  }
  return out;
}

const utf8 = new TextDecoder();

/**
 * metadata_props of each node of the main graph, in node order (an empty map for a node
 * without any). Reads ModelProto.graph (7) → GraphProto.node (1) → NodeProto.metadata_props
 * (9) → StringStringEntryProto key (1) / value (2).
 */
export function readNodeMetadata(model: Uint8Array): Map<string, string>[] {
  const graph = fields(model, 0, model.length, 7)[0];
  if (!graph) return [];
  return fields(model, graph[0], graph[1], 1).map(([a, b]) => {
    const props = new Map<string, string>();
    for (const [ea, eb] of fields(model, a, b, 9)) {
      const key = fields(model, ea, eb, 1)[0];
      const value = fields(model, ea, eb, 2)[0];
      if (key) props.set(utf8.decode(model.subarray(key[0], key[1])), value ? utf8.decode(model.subarray(value[0], value[1])) : '');
    }
    return props;
  });
}

/** The string elements of a Python list repr: ['', 'encoder', "it's"] → ['', 'encoder', "it's"]. */
export function parsePythonStringList(repr: string): string[] | null {
  const s = repr.trim();
  if (!s.startsWith('[') || !s.endsWith(']')) return null;
  const out: string[] = [];
  const re = /'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g;
  for (let m = re.exec(s); m; m = re.exec(s)) out.push((m[1] ?? m[2] ?? '').replace(/\\(.)/g, '$1'));
  return out;
}

/**
 * name_scopes → a node-name-like path: ['', 'encoder', 'encoder.layers.0', 'encoder.layers.0.attention', 'mm_3']
 * → '/encoder/layers.0/attention/mm_3'. Each entry extends the one before it, so the
 * segment a module adds is what follows its parent's path.
 */
export function scopePathFromNameScopes(scopes: readonly string[]): string {
  const modules = scopes.slice(1, -1);
  const op = scopes.length > 1 ? scopes[scopes.length - 1]! : '';
  const segments: string[] = [];
  let parent = '';
  for (const m of modules) {
    segments.push(parent && m.startsWith(`${parent}.`) ? m.slice(parent.length + 1) : m);
    parent = m;
  }
  return `/${[...segments, op].join('/')}`;
}

export interface NodeScopes {
  /** One path per node, "/a/b.N/c/Op"; nodes without any scope get their plain name. */
  paths: string[];
  source: 'node-names' | 'node-metadata';
}

/**
 * Scope paths of the graph's nodes: from their names when the exporter put scopes there,
 * otherwise from the dynamo exporter's metadata.
 */
export function nodeScopes(model: Uint8Array, nodeNames: readonly string[], wanted: (path: string) => boolean): NodeScopes {
  if (nodeNames.some(wanted)) return { paths: [...nodeNames], source: 'node-names' };
  let meta: Map<string, string>[] = [];
  try {
    meta = readNodeMetadata(model);
  } catch {
    meta = [];
  }
  if (meta.length === nodeNames.length) {
    const paths = nodeNames.map((name, i) => {
      const scopes = meta[i]!.get('pkg.torch.onnx.name_scopes');
      const list = scopes ? parsePythonStringList(scopes) : null;
      return list && list.length > 1 ? scopePathFromNameScopes(list) : name;
    });
    if (paths.some(wanted)) return { paths, source: 'node-metadata' };
  }
  return { paths: [...nodeNames], source: 'node-names' };
}
