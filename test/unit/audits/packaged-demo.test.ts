/**
 * The demo from an installed app (issue 35 item 2). electron-builder puts the code in
 * resources/app.asar, an archive only Electron's own `fs` reads, and a real copy of
 * resources/ and the native packages in resources/app.asar.unpacked beside it. ffmpeg is a
 * separate program: a clip path inside the archive names nothing it can open.
 *
 * Outside Electron the layout is laid out as electron-builder packs it, with the code's
 * side (app.asar/…) holding only what the code itself reads (package.json files, the
 * bundle's folder) and the unpacked side holding the demo and ffmpeg, so any path still
 * pointing into the archive does not exist on disk. Then a few demo clips are imported and
 * decoded through an ffmpeg that records every argument it is given.
 */
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAudio } from '../../../src/main/audio';
import { demoDir, loadDemoDescription } from '../../../src/main/audits/demo-plan';
import { importDataset } from '../../../src/main/data/import';
import { bundledFfmpeg, bundledFfmpegCandidates, findFfmpeg } from '../../../src/main/ffmpeg';
import { findResourceDir, resourceDir } from '../../../src/main/packaged-path';
import { ProjectStore } from '../../../src/main/store/projects';

const repo = resolve(__dirname, '../../..');
const platformPackage = `@ffmpeg-installer/${process.platform}-${process.arch}`;
const exe = process.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg';

let tmp: string;
let resources: string;
let archive: string;
let unpacked: string;
let here: string;
let emptyCwd: string;
let log: string;
const savedEnv = { ffmpeg: process.env.EQUIVOX_FFMPEG, resources: process.env.EQUIVOX_RESOURCES };

/** `rel` of node_modules on the code's side of the archive: its package.json only, as the code resolves packages by it. */
function packageJsonInArchive(pkg: string): void {
  const to = join(archive, 'node_modules', pkg, 'package.json');
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(join(repo, 'node_modules', pkg, 'package.json'), to);
}

beforeAll(() => {
  tmp = realpathSync(mkdtempSync(join(tmpdir(), 'equivox-packaged-demo-')));
  resources = join(tmp, 'Equivox', 'resources');
  archive = join(resources, 'app.asar');
  unpacked = join(resources, 'app.asar.unpacked');
  // The code's side: the main bundle's folder and the package.json files it resolves.
  here = join(archive, 'out', 'main');
  mkdirSync(here, { recursive: true });
  writeFileSync(join(here, 'index.js'), '// the bundle would be here\n');
  packageJsonInArchive('@ffmpeg-installer/ffmpeg');
  packageJsonInArchive(platformPackage);
  // The unpacked side: resources/ (the demo, models, fonts) and the platform's ffmpeg.
  mkdirSync(unpacked, { recursive: true });
  cpSync(join(repo, 'resources'), join(unpacked, 'resources'), { recursive: true });
  mkdirSync(join(unpacked, 'node_modules', platformPackage), { recursive: true });
  symlinkSync(realpathSync(join(repo, 'node_modules', platformPackage, exe)), join(unpacked, 'node_modules', platformPackage, exe));
  emptyCwd = join(tmp, 'elsewhere');
  mkdirSync(emptyCwd);
  // An ffmpeg that writes down its arguments (one per line, a blank line after each call), then runs the unpacked one.
  log = join(tmp, 'ffmpeg-calls.log');
  const recorder = join(tmp, 'recording', 'ffmpeg');
  mkdirSync(dirname(recorder));
  writeFileSync(recorder, `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a" >> '${log}'; done\nprintf '\\n' >> '${log}'\nexec '${join(unpacked, 'node_modules', platformPackage, exe)}' "$@"\n`);
  chmodSync(recorder, 0o755);
  delete process.env.EQUIVOX_RESOURCES;
  process.env.EQUIVOX_FFMPEG = recorder;
});

afterAll(() => {
  if (savedEnv.ffmpeg === undefined) delete process.env.EQUIVOX_FFMPEG;
  else process.env.EQUIVOX_FFMPEG = savedEnv.ffmpeg;
  if (savedEnv.resources !== undefined) process.env.EQUIVOX_RESOURCES = savedEnv.resources;
  rmSync(tmp, { recursive: true, force: true });
});

describe('a packaged app finds what native programs read outside its archive', () => {
  it('the demo, the built-in models and the fonts resolve to app.asar.unpacked, never into the archive', () => {
    const lookup = { resourcesPath: resources, here, env: {}, cwd: emptyCwd };
    // The archive's copy is not on disk here, as it is not for ffmpeg in an installed app.
    expect(existsSync(join(archive, 'resources', 'demo', 'demo.json'))).toBe(false);
    expect(demoDir(lookup)).toBe(join(unpacked, 'resources', 'demo'));
    expect(resourceDir('models', 'acoustic-baseline.onnx', lookup)).toBe(join(unpacked, 'resources', 'models'));
    expect(findResourceDir('fonts', 'DejaVuSans.ttf', lookup)).toBe(join(unpacked, 'resources', 'fonts'));
    // Code bundled elsewhere in the archive (a chunk two folders down) finds the same folder.
    expect(demoDir({ ...lookup, here: join(archive, 'out', 'main', 'chunks') })).toBe(join(unpacked, 'resources', 'demo'));
  });

  it('the bundled ffmpeg resolves from inside the archive to its unpacked copy, which runs', () => {
    const candidates = bundledFfmpegCandidates(process.platform, process.arch, pathToFileURL(join(here, 'index.js')).href);
    const installerCandidate = candidates.find((c) => c.package.startsWith(platformPackage))!;
    expect(installerCandidate.path).toBe(join(unpacked, 'node_modules', platformPackage, exe));
    expect(bundledFfmpeg(candidates)).toEqual(installerCandidate);
  });

  it('imports and decodes demo clips with every path handed to ffmpeg on disk, beside the archive', async () => {
    const dir = demoDir({ resourcesPath: resources, here, env: {}, cwd: emptyCwd });
    const spec = loadDemoDescription(dir).datasets.find((d) => d.role === 'target')!;
    // The first four rows of the demo's own manifest, beside it (the whole corpus takes minutes).
    const [header, ...rows] = readFileSync(join(dir, spec.manifest), 'utf8').trim().split('\n');
    const manifest = join(dir, 'target-first-4.csv');
    writeFileSync(manifest, [header, ...rows.slice(0, 4)].join('\n') + '\n');
    expect(findFfmpeg(process.env, false).source).toBe('EQUIVOX_FFMPEG');
    const store = new ProjectStore(join(tmp, 'home'));
    try {
      const project = store.create('Packaged demo', join(tmp, 'project'));
      const r = await importDataset(store.db(project.id), { source: { kind: 'manifest', manifest }, role: 'target', mapping: spec.mapping, name: spec.name });
      expect(r.failed).toEqual([]);
      expect(r.imported).toBe(4);
    } finally {
      store.close();
    }
    const clip = join(dir, rows[0]!.split(',')[0]!);
    const decoded = await decodeAudio(clip);
    expect(decoded.samples.length).toBeGreaterThan(16000 * 0.5);

    const calls = readFileSync(log, 'utf8').split('\n\n').filter((c) => c.trim() !== '').map((c) => c.split('\n'));
    const inputs = calls.map((args) => args[args.indexOf('-i') + 1]!);
    expect(calls.length).toBeGreaterThanOrEqual(5); // at least one per imported clip, and the decode
    for (const input of inputs) {
      expect(input.startsWith(`file:${join(unpacked, 'resources', 'demo')}/`), input).toBe(true);
      expect(existsSync(input.slice('file:'.length)), input).toBe(true);
    }
    expect(calls.flat().filter((a) => /app\.asar(?!\.unpacked)[\\/]/.test(a))).toEqual([]);
    expect(new Set(inputs)).toEqual(new Set([...rows.slice(0, 4).map((r) => `file:${join(dir, r.split(',')[0]!)}`)]));
  });
});
