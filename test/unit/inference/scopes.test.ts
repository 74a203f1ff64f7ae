/** Module scopes from the dynamo exporter's node metadata (onnx-scopes.ts). */
import { describe, expect, it } from 'vitest';
import { decodeModel } from '../../../src/main/inference/onnx-graph';
import { nodeScopes, parsePythonStringList, readNodeMetadata, scopePathFromNameScopes } from '../../../src/main/inference/onnx-scopes';
import { buildWav2vec2Fixture, toMetadataScopes } from '../../fixtures/models/build';

describe('dynamo exporter scopes', () => {
  it('parses the Python list reprs the exporter writes', () => {
    expect(parsePythonStringList("['', 'encoder', 'encoder.layers.0', 'add_3']")).toEqual(['', 'encoder', 'encoder.layers.0', 'add_3']);
    expect(parsePythonStringList(`['', "it's", 'a\\'b']`)).toEqual(['', "it's", "a'b"]);
    expect(parsePythonStringList('not a list')).toBeNull();
  });

  it('turns cumulative module paths into a node-name-like path', () => {
    expect(scopePathFromNameScopes(['', 'encoder', 'encoder.layers.0', 'encoder.layers.0.attention', 'encoder.layers.0.attention.q_proj', 'linear_7'])).toBe('/encoder/layers.0/attention/q_proj/linear_7');
    expect(scopePathFromNameScopes(['', 'mul_1'])).toBe('/mul_1');
  });

  it('reads NodeProto.metadata_props (field 9) that onnx-proto drops, node by node', () => {
    const named = buildWav2vec2Fixture({ stableLayerNorm: false, seed: 3 });
    const bytes = toMetadataScopes(named);
    const graph = decodeModel(bytes).graph!;
    const meta = readNodeMetadata(bytes);
    expect(meta).toHaveLength(graph.node!.length);
    const original = decodeModel(named).graph!.node!.map((n) => n.name ?? '');
    // Each node's scope path is its original name's module path plus the op.
    meta.forEach((m, i) => {
      const path = scopePathFromNameScopes(parsePythonStringList(m.get('pkg.torch.onnx.name_scopes')!)!);
      expect(path.replace(/\/[^/]+$/, '')).toBe(original[i]!.replace(/\/[^/]+$/, ''));
    });
    const scopes = nodeScopes(bytes, graph.node!.map((n) => n.name ?? ''), (p) => /\/layers\.\d+\//.test(p));
    expect(scopes.source).toBe('node-metadata');
    // Node names carry no scope: they are generic.
    expect(graph.node!.every((n) => /^node_\w+_\d+$/.test(n.name ?? ''))).toBe(true);
  });
});
