/**
 * Issue 33 item 4: a model reads only its own folder. Every external-data location is
 * resolved and checked before onnxruntime sees the model (src/main/inference/external-data.ts);
 * a checked file is copied into the model store, where the model reads it from then on.
 * The web host's half (the engine's working directory, package.json) is in
 * hostile-models.test.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/shared/errors';
import { checkExternalDataOf } from '../../../src/main/inference/external-data';
import { embedOnce, importModel, sha256Bytes } from '../../../src/main/inference/models';
import { buildWav2vec2Fixture } from '../../fixtures/models/build';
import { leakModel, withExternalData } from '../../fixtures/models/hostile';
import { tempDir, testClip } from '../inference/helpers';

const repo = resolve(import.meta.dirname, '..', '..', '..');
const SECRET = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n';

/** Every file under a folder, with its bytes. */
function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  if (!existsSync(dir)) return [];
  const out: { path: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push({ path: p, bytes: readFileSync(p) });
  }
  return out;
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return (err as Error).message;
  }
  throw new Error('not refused');
}

describe('external-data locations (inference/external-data.ts)', () => {
  const dir = tempDir('ext-check');
  const model = join(dir, 'model', 'model.onnx');
  mkdirSync(join(dir, 'model', 'sub'), { recursive: true });
  writeFileSync(join(dir, 'model', 'weights.bin'), Buffer.alloc(64, 7));
  writeFileSync(join(dir, 'model', 'sub', 'more.bin'), Buffer.alloc(8, 1));
  writeFileSync(join(dir, 'outside.bin'), Buffer.from(SECRET));
  symlinkSync(join(dir, 'outside.bin'), join(dir, 'model', 'link-out.bin'));
  symlinkSync(join(dir, 'model', 'weights.bin'), join(dir, 'model', 'link-in.bin'));
  mkdirSync(join(dir, 'model', 'a-folder'));
  execFileSync('mkfifo', [join(dir, 'model', 'pipe.bin')]);

  it('refuses every location that is not a plain name of a regular file inside the model folder, naming the model, the tensor and the location', () => {
    const cases: [string, RegExp][] = [
      [join(dir, 'outside.bin'), /is an absolute path/],
      ['/etc/passwd', /is an absolute path/],
      ['C:\\Windows\\win.ini', /is an absolute path/],
      ['../outside.bin', /goes up out of the folder/],
      ['sub/../../outside.bin', /goes up out of the folder/],
      ['sub\\more.bin', /contains a backslash/],
      ['weights.bin:stream', /contains ":"/],
      ['*/_ORT_MEM_ADDR_/*', /in-memory marker/],
      ['link-out.bin', /leads outside the model's folder/],
      ['a-folder', /not a regular file \(a folder\)/],
      ['pipe.bin', /not a regular file \(a named pipe\)/],
      ['missing.bin', /no such file in the model's folder/],
    ];
    for (const [location, why] of cases) {
      const message = refusal(() => checkExternalDataOf(leakModel(location), model));
      expect(message, location).toMatch(why);
      expect(message).toContain(model);
      expect(message).toContain('tensor "secret"');
    }
    // Offset and length must lie inside the file.
    expect(refusal(() => checkExternalDataOf(leakModel('sub/more.bin', 8), model))).toMatch(/asks for bytes 8–9 of a file of 8 bytes/);
  });

  it('accepts a regular file inside the folder, also through a link that stays inside, and finds tensors in Constant nodes', () => {
    expect(checkExternalDataOf(leakModel('weights.bin', 3), model)).toEqual([{ location: 'weights.bin', path: join(dir, 'model', 'weights.bin'), bytes: 64 }]);
    expect(checkExternalDataOf(leakModel('sub/more.bin', 0), model).map((f) => f.location)).toEqual(['sub/more.bin']);
    expect(checkExternalDataOf(leakModel('link-in.bin', 0), model)[0]!.path).toBe(join(dir, 'model', 'weights.bin'));
    // A tensor in a Constant node's attribute is checked as an initializer is.
    expect(refusal(() => checkExternalDataOf(leakModel('../outside.bin', 0, 'constant'), model))).toMatch(/goes up out of the folder/);
    expect(checkExternalDataOf(leakModel('weights.bin', 0, 'constant'), model)).toHaveLength(1);
  });
});

describe('a model reads nothing from the working directory', () => {
  it('models import from a shell whose working folder holds a key: refused before onnxruntime runs, and the key is nowhere in the data folder', () => {
    // Before the check, this import reported the key's first byte as the model's width
    // (dims [45], "-"), one model per byte (test/fixtures/models/hostile.ts).
    const work = tempDir('leak-cwd');
    const home = tempDir('leak-home');
    const modelDir = tempDir('leak-model');
    writeFileSync(join(work, 'id_ed25519'), SECRET);
    const file = join(modelDir, 'encoder.onnx');
    writeFileSync(file, leakModel('id_ed25519'));
    writeFileSync(join(modelDir, 'config.json'), JSON.stringify({ model_type: 'wav2vec2' }));
    // The model is named relative to the shell's folder, as a user types it: resolved there before anything else.
    const relative = join('..', basename(modelDir), 'encoder.onnx');
    // tsx named by its URL: a bare --import resolves against the working folder.
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const r = spawnSync(process.execPath, ['--import', tsx, join(repo, 'src', 'main', 'cli.ts'), 'models', 'import', '--file', relative], {
      cwd: work,
      env: { ...process.env, EQUIVOX_HOME: home },
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(r.status, r.stderr).toBe(1);
    const error = (JSON.parse(r.stdout) as { error: { code: string; message: string; field: string } }).error;
    expect(error).toMatchObject({ code: 'user', field: 'file' });
    expect(error.message).toContain(`${file}, tensor "secret", external data "id_ed25519"`);
    expect(error.message).toMatch(/there is no such file in the model's folder/);
    const stored = filesUnder(home);
    expect(stored.filter((f) => f.path.includes(`${join(home, 'models')}`))).toEqual([]);
    for (const f of stored) expect(f.bytes.includes(Buffer.from('BEGIN OPENSSH')), f.path).toBe(false);
  }, 300_000);
});

describe('a model with external data in its own folder', () => {
  it('imports with its data copied into the store, is verified, and embeds exactly as the same model with its weights inline', async () => {
    const home = tempDir('ext-home');
    const inline = buildWav2vec2Fixture();
    const { graph, data, moved } = withExternalData(inline, 'model.onnx_data');
    expect(moved).toBeGreaterThan(5);
    const plain = join(tempDir('ext-inline'), 'model.onnx');
    writeFileSync(plain, inline);
    const folder = tempDir('ext-split');
    writeFileSync(join(folder, 'model.onnx'), graph);
    writeFileSync(join(folder, 'model.onnx_data'), data);
    const manifest = { family: 'wav2vec2' as const };

    const a = await importModel(home, { file: plain, manifest });
    const b = await importModel(home, { file: join(folder, 'model.onnx'), manifest });
    // The graph alone does not name the model: its weights' file is part of the id.
    expect(a.id).toBe(sha256Bytes(inline));
    expect(b.id).not.toBe(sha256Bytes(graph));
    expect(b.files.map((f) => [f.role, f.path, f.bytes])).toEqual([
      ['model', join(home, 'models', b.id, 'model.onnx'), graph.length],
      ['external-data', join(home, 'models', b.id, 'model.onnx_data'), data.length],
    ]);
    expect(b.files[1]!.sha256).toBe(sha256Bytes(data));
    expect(readFileSync(join(home, 'models', b.id, 'model.onnx_data')).equals(data)).toBe(true);
    // The same layers, widths and verification as the inline model.
    expect(b.exposure.status).toBe('exposed');
    expect(b.exposure.message).toMatch(/^Verified on a 1 s test clip/);
    expect(b.exposure.maxAbsDiff).toBe(a.exposure.maxAbsDiff);
    expect(b.states).toEqual(a.states);
    // Idempotent, and the store keeps nothing half-written.
    expect((await importModel(home, { file: join(folder, 'model.onnx'), manifest })).id).toBe(b.id);
    expect(readdirSync(join(home, 'models')).sort()).toEqual([a.id, b.id].sort());
    // Embeddings from the store (onnxruntime given the stored derived graph's path) are byte-identical.
    const clip = testClip(2.3, 140, 5);
    const ea = await embedOnce(home, a.id, clip);
    const eb = await embedOnce(home, b.id, clip);
    expect(eb.frames).toBe(ea.frames);
    expect(eb.mean.length).toBe(ea.mean.length);
    for (let l = 0; l < ea.mean.length; l += 1) {
      expect(Buffer.from(eb.mean[l]!.buffer).equals(Buffer.from(ea.mean[l]!.buffer)), `layer ${l}`).toBe(true);
      expect(Buffer.from(eb.max[l]!.buffer).equals(Buffer.from(ea.max[l]!.buffer)), `layer ${l}`).toBe(true);
    }
  }, 120_000);
});
