/**
 * Broken and hostile input files for the hardening tests (test/unit/hardening), generated
 * at test time so no binary file is committed:
 *
 *   node --import tsx scripts/make-bad-fixtures.mjs [OUTDIR]   (default test/fixtures/bad)
 *
 * Writes OUTDIR/{audio,csv,models,report}/… and prints a JSON index of what it wrote.
 * Needs ffmpeg on PATH; `--import tsx` because the ONNX and report fixtures are built with
 * the app's own GraphBuilder and report signer (TypeScript). Deterministic apart from the
 * signing key and time of the report fixtures.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Deterministic "random" bytes: a SHA-256 counter stream. */
function noise(n, seed) {
  const out = Buffer.alloc(n);
  for (let i = 0, k = 0; i < n; k += 1) {
    const h = createHash('sha256').update(`${seed}:${k}`).digest();
    h.copy(out, i);
    i += h.length;
  }
  return out;
}

function ffmpeg(args) {
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args]);
}

/** A tone: lavfi sine at `rate` Hz, `channels` channels, written in the extension's format. */
function tone(file, { freq = 440, seconds = 1, rate = 16000, channels = 1, volume = 4, extra = [] } = {}) {
  ffmpeg(['-f', 'lavfi', '-i', `sine=frequency=${freq}:sample_rate=${rate}:duration=${seconds}`, '-af', `volume=${volume}`, '-ac', String(channels), '-ar', String(rate), ...extra, file]);
  return file;
}

// The app's one WAV writer (src/main/audio/wav.ts), loaded through tsx like the ONNX and report builders below.
const { encodeWav16 } = await import(pathToFileURL(join(ROOT, 'src/main/audio/wav.ts')).href);

/** 16-bit mono PCM WAV with the header sizes given (defaults: the true ones). */
function wav(samples, { rate = 16000, riffSize, dataSize, fmtSize = 16 } = {}) {
  return encodeWav16(samples, rate, { riff: riffSize, data: dataSize, fmt: fmtSize });
}

const sine = (freq, seconds, rate = 16000) => Float32Array.from({ length: Math.round(seconds * rate) }, (_, i) => 0.3 * Math.sin((2 * Math.PI * freq * i) / rate));

/** RFC 4180 writer for the fixtures' own manifests (the hostile bits are in the values). */
const csv = (rows) => rows.map((r) => r.map((c) => (/[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')).join('\r\n') + '\r\n';

export const FORMULAS = ["=cmd|' /C calc'!A0", '+SUM(1,2)', '-2+3', '@SUM(A1)', '\t=1+1', '\r=1+1', '=HYPERLINK("http://x","y")'];

function makeAudio(dir) {
  mkdirSync(dir, { recursive: true });
  const f = (n) => join(dir, n);
  writeFileSync(f('good1.wav'), wav(sine(300, 1)));
  writeFileSync(f('good2.wav'), wav(sine(500, 1.5)));
  tone(f('good3.flac'), { freq: 700 });
  writeFileSync(f('zero.wav'), Buffer.alloc(0));
  tone(f('long44k.wav'), { freq: 400, seconds: 2, rate: 44100 });
  writeFileSync(f('truncated.wav'), readFileSync(f('long44k.wav')).subarray(0, 20_000));
  tone(f('long.flac'), { freq: 450, seconds: 3 });
  const flac = readFileSync(f('long.flac'));
  writeFileSync(f('truncated.flac'), flac.subarray(0, Math.floor(flac.length / 3)));
  writeFileSync(f('text.wav'), 'this is not audio, it is a text file with an audio extension\n');
  writeFileSync(f('random.mp3'), noise(64 * 1024, 'random.mp3'));
  writeFileSync(f('png.flac'), Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), noise(4096, 'png')]));
  writeFileSync(f('html.ogg'), '<!doctype html><html><body>404 Not Found</body></html>\n');
  // RIFF and data sizes claiming ~4 GB over 1 s of real audio: the header lies.
  writeFileSync(f('huge-header.wav'), wav(sine(600, 1), { riffSize: 0xfffffff0, dataSize: 0xffffffe0 }));
  // A fmt chunk claiming 4 GB: the data chunk cannot even be found.
  writeFileSync(f('huge-fmt.wav'), wav(sine(650, 1), { fmtSize: 0xfffffff0 }));
  tone(f('six.wav'), { freq: 600, rate: 44100, channels: 6 });
  tone(f('phone.wav'), { freq: 350, rate: 8000 });
  // One hour, 16 kHz mono FLAC of a quiet tone (~17 MB, ~3 s to encode): far over the
  // 120 s limit; its PCM (230 MB as float32) must never be held at once.
  tone(f('hour.flac'), { freq: 220, seconds: 3600, volume: 0.05, extra: ['-c:a', 'flac', '-sample_fmt', 's16'] });
  return dir;
}

function makeCsv(dir) {
  mkdirSync(dir, { recursive: true });
  const f = (n) => join(dir, n);
  const rows = [
    ['file', 'speaker', 'gender', 'transcript', 'valence', 'notes'],
    ['audio/good1.wav', 's1', 'female', 'one', '7', FORMULAS[0]],
    ['audio/good2.wav', 's2', 'male', 'Hello, "world"\nsecond line', '6,5', 'quotes, commas and a newline'],
    ['audio/good3.flac', 's3', FORMULAS[1], 'three', '5', FORMULAS[3]],
    ['audio/zero.wav', 's4', 'male', 'four', '4', ''],
    ['audio/truncated.wav', 's5', 'female', 'five', '3', ''],
    ['audio/truncated.flac', 's6', 'male', 'six', '3', ''],
    ['audio/text.wav', 's7', 'female', 'seven', '2', ''],
    ['audio/random.mp3', 's8', 'male', 'eight', '2', ''],
    ['audio/png.flac', 's9', 'female', 'nine', '2', ''],
    ['audio/html.ogg', 's10', 'male', 'ten', '2', ''],
    ['audio/huge-header.wav', 's11', 'female', 'eleven', '2', ''],
    ['audio/huge-fmt.wav', 's12', 'male', 'twelve', '2', ''],
    ['audio/six.wav', 's13', 'female', 'thirteen', '2', ''],
    ['audio/phone.wav', 's14', 'male', 'fourteen', '2', ''],
    ['audio/hour.flac', 's15', 'female', 'fifteen', '2', ''],
    ['audio/missing.wav', 's16', 'male', 'sixteen', '2', ''],
    ['audio/good1.wav', '', 'female', '', 'not a number', FORMULAS[2]],
  ];
  // A UTF-8 BOM, as Excel writes "CSV UTF-8".
  writeFileSync(f('mixed.csv'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv(rows), 'utf8')]));
  writeFileSync(f('hour-only.csv'), csv([['file'], ['audio/hour.flac']]));
  writeFileSync(f('missing-column.csv'), csv([['speaker', 'gender'], ['s1', 'female']]));
  writeFileSync(f('duplicate-column.csv'), csv([['file', 'gender', 'gender'], ['audio/good1.wav', 'female', 'male']]));
  writeFileSync(f('ragged.csv'), 'file,gender\r\n../audio/good1.wav,female\r\n../audio/good2.wav,male,extra\r\n');
  writeFileSync(f('unterminated.csv'), 'file,gender\r\n"../audio/good1.wav,female\r\n');
  writeFileSync(f('empty.csv'), '');
  // Latin-1 bytes (0xE9 = é) on line 3, as a Windows "CSV" export writes them.
  writeFileSync(f('latin1.csv'), Buffer.from('file,accent\r\n../audio/good1.wav,Ontario\r\n../audio/good2.wav,Qu\xe9bec\r\n', 'latin1'));
  return dir;
}

async function makeModels(dir) {
  mkdirSync(dir, { recursive: true });
  const f = (n) => join(dir, n);
  const { GraphBuilder } = await import(pathToFileURL(join(ROOT, 'src/main/inference/onnx-graph.ts')).href);
  writeFileSync(f('random.onnx'), noise(8192, 'random.onnx'));
  writeFileSync(f('empty.onnx'), Buffer.alloc(0));
  const base = readFileSync(join(ROOT, 'resources/models/acoustic-baseline.onnx'));
  writeFileSync(f('half.onnx'), base.subarray(0, Math.floor(base.length / 2)));
  // Valid ONNX, input named like a wav2vec2 export but of rank 3: fails when run.
  let g = new GraphBuilder();
  g.input('input_values', [1, 1, 'T']);
  g.op('Identity', 'identity', ['input_values'], {}, 'last_hidden_state');
  g.output('last_hidden_state', [1, 1, 'T']);
  writeFileSync(f('wrong-rank.onnx'), g.model('wrong_rank'));
  // Valid ONNX whose input name says nothing about the family.
  g = new GraphBuilder();
  g.input('speech', [1, 'T']);
  g.op('Identity', 'identity', ['speech'], {}, 'last_hidden_state');
  g.output('last_hidden_state', [1, 'T']);
  writeFileSync(f('wrong-name.onnx'), g.model('wrong_name'));
  // A tiny valid model (input_values [1, T] → [1, T, 1]) to prove the store survives the others.
  g = new GraphBuilder();
  g.input('input_values', [1, 'T']);
  g.op('Unsqueeze', 'unsqueeze', ['input_values', g.int64('axes', [2])], {}, 'last_hidden_state');
  g.output('last_hidden_state', [1, 'T', 1]);
  writeFileSync(f('tiny-valid.onnx'), g.model('tiny_valid'));
  return dir;
}

/** A signed report and damaged copies of it. */
async function makeReports(dir) {
  mkdirSync(dir, { recursive: true });
  const f = (n) => join(dir, n);
  const { createIdentity, loadSigningIdentity } = await import(pathToFileURL(join(ROOT, 'src/main/identity/index.ts')).href);
  const { buildReport } = await import(pathToFileURL(join(ROOT, 'src/main/report/index.ts')).href);
  const results = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/report/results.sample.json'), 'utf8'));
  const home = join(dir, 'identity-home');
  const info = await createIdentity(home, { name: 'Bad Fixture', organisation: 'Equivox tests', email: 'bad@example.org' });
  const identity = loadSigningIdentity(home, info.id);
  const { pdf } = await buildReport(results, { identity, now: new Date('2026-11-29T12:00:00Z') });
  writeFileSync(f('signed.pdf'), pdf);
  const text = pdf.toString('latin1');
  const m = [...text.matchAll(/\/ByteRange \[(\d+) (\d+) (\d+) (\d+)\]/g)].pop();
  const [, , b, c] = m.map(Number);
  const flip = (offset, name) => {
    const copy = Buffer.from(pdf);
    const ch = String.fromCharCode(copy[offset]);
    // Inside the hex Contents, change to another hex digit (a bit flip can leave hex:
    // 'a' ^ 1 is '`'); elsewhere flip the low bit.
    copy[offset] = /[0-9a-fA-F]/.test(ch) && offset > b && offset < c ? (ch === '0' ? 0x31 : 0x30) : copy[offset] ^ 0x01;
    writeFileSync(f(name), copy);
  };
  // Inside the CMS blob. The RSA
  // signature value is the DER's last field, just before the zero padding.
  const used = text.slice(b + 1, c - 1).replace(/(00)+$/, '').length;
  flip(b + 1 + used - 20, 'flipped-signature.pdf');
  // Early in the CMS blob: the embedded certificate.
  flip(b + 1 + 200, 'flipped-certificate.pdf');
  // Inside the signed range, in the middle of the document.
  flip(Math.floor(b / 2), 'flipped-content.pdf');
  // Appended bytes after %%EOF: the signed range no longer covers the whole file.
  writeFileSync(f('appended.pdf'), Buffer.concat([pdf, Buffer.from('\n% appended after signing\n')]));
  writeFileSync(f('truncated.pdf'), pdf.subarray(0, c - 10));
  writeFileSync(f('zero.pdf'), Buffer.alloc(0));
  writeFileSync(f('not-a-pdf.pdf'), noise(4096, 'not-a-pdf'));
  return dir;
}

export async function makeBadFixtures(out) {
  const root = resolve(out);
  const index = {
    root,
    // Clips must lie inside the manifest's folder, so the audio sits below the manifests.
    audio: makeAudio(join(root, 'csv', 'audio')),
    csv: makeCsv(join(root, 'csv')),
    models: await makeModels(join(root, 'models')),
    report: await makeReports(join(root, 'report')),
  };
  return index;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = process.argv[2] ?? join(ROOT, 'test/fixtures/bad');
  makeBadFixtures(out).then(
    (index) => process.stdout.write(`${JSON.stringify(index)}\n`),
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
