/**
 * Small helpers over onnx-proto for building and rewriting ONNX graphs from TypeScript.
 * Used at run time (layer exposure) and by the scripts that build the built-in baseline
 * and the test fixtures, so every graph Equivox writes goes through one code path.
 */
import onnxProto from 'onnx-proto';

export const onnx = onnxProto.onnx;
export type ModelProto = onnxProto.onnx.ModelProto;
export type GraphProto = onnxProto.onnx.IGraphProto;
export type NodeProto = onnxProto.onnx.INodeProto;

const AT = onnx.AttributeProto.AttributeType;
export type AttrValue = number | number[] | string | { float: number } | { floats: number[] };

export function decodeModel(bytes: Uint8Array): ModelProto {
  return onnx.ModelProto.decode(bytes);
}

export function encodeModel(model: ModelProto | onnxProto.onnx.IModelProto): Uint8Array {
  return onnx.ModelProto.encode(model).finish();
}

function attribute(name: string, v: AttrValue): onnxProto.onnx.IAttributeProto {
  if (typeof v === 'string') return { name, type: AT.STRING, s: new TextEncoder().encode(v) };
  if (typeof v === 'number') return Number.isInteger(v) ? { name, type: AT.INT, i: v } : { name, type: AT.FLOAT, f: v };
  if (Array.isArray(v)) return { name, type: AT.INTS, ints: v };
  if ('float' in v) return { name, type: AT.FLOAT, f: v.float };
  return { name, type: AT.FLOATS, floats: v.floats };
}

function tensor(name: string, dims: number[], dataType: number, raw: Uint8Array): onnxProto.onnx.ITensorProto {
  return { name, dims, dataType, rawData: raw };
}

/** Build a graph node by node; names follow the caller's (exporter-like) scheme. */
export class GraphBuilder {
  readonly nodes: onnxProto.onnx.INodeProto[] = [];
  readonly initializers: onnxProto.onnx.ITensorProto[] = [];
  readonly inputs: onnxProto.onnx.IValueInfoProto[] = [];
  readonly outputs: onnxProto.onnx.IValueInfoProto[] = [];
  private counter = 0;

  /** Add a node; its single output is named `${name}_output_0` like torch.onnx does. */
  op(opType: string, name: string, inputs: string[], attrs: Record<string, AttrValue> = {}, outputName?: string): string {
    const out = outputName ?? `${name}_output_0`;
    this.nodes.push({
      opType,
      name,
      input: inputs,
      output: [out],
      attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    });
    return out;
  }

  float(name: string, data: Float32Array | number[], dims: number[]): string {
    const arr = data instanceof Float32Array ? data : Float32Array.from(data);
    this.initializers.push(tensor(name, dims, onnx.TensorProto.DataType.FLOAT, new Uint8Array(arr.buffer.slice(arr.byteOffset, arr.byteOffset + arr.byteLength))));
    return name;
  }

  int64(name: string, data: number[], dims: number[] = [data.length]): string {
    const arr = BigInt64Array.from(data.map((x) => BigInt(x)));
    this.initializers.push(tensor(name, dims, onnx.TensorProto.DataType.INT64, new Uint8Array(arr.buffer)));
    return name;
  }

  unique(prefix: string): string {
    this.counter += 1;
    return `${prefix}_${this.counter}`;
  }

  input(name: string, dims: (number | string)[]): void {
    this.inputs.push(valueInfo(name, dims));
  }

  output(name: string, dims: (number | string)[]): void {
    this.outputs.push(valueInfo(name, dims));
  }

  model(graphName: string, opset = 17, producer = 'equivox'): Uint8Array {
    const m = onnx.ModelProto.create({
      irVersion: 8,
      producerName: producer,
      opsetImport: [{ domain: '', version: opset }],
      graph: { name: graphName, node: this.nodes, initializer: this.initializers, input: this.inputs, output: this.outputs },
    });
    return encodeModel(m);
  }
}

export function valueInfo(name: string, dims?: (number | string)[]): onnxProto.onnx.IValueInfoProto {
  if (!dims) return onnx.ValueInfoProto.create({ name });
  return {
    name,
    type: {
      tensorType: {
        elemType: onnx.TensorProto.DataType.FLOAT,
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

/** Read a float initializer (raw or float_data) as a Float32Array. */
export function readFloatInitializer(graph: GraphProto, name: string): Float32Array | null {
  const t = (graph.initializer ?? []).find((x) => x.name === name);
  if (!t) return null;
  if (t.rawData && t.rawData.length > 0) {
    const copy = new Uint8Array(t.rawData);
    return new Float32Array(copy.buffer, copy.byteOffset, copy.byteLength / 4);
  }
  return Float32Array.from(t.floatData ?? []);
}

/** Float attribute of a node, or the fallback. */
export function floatAttr(node: NodeProto, name: string, fallback: number): number {
  const a = (node.attribute ?? []).find((x) => x.name === name);
  return a && typeof a.f === 'number' ? a.f : fallback;
}
