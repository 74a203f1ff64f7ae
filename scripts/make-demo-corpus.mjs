#!/usr/bin/env node
/**
 * Generates Equivox's synthetic demo corpus in resources/demo from Debian's speech
 * synthesisers (espeak-ng, festival) and transcribes the ASR part with pocketsphinx.
 *
 *   node scripts/make-demo-corpus.mjs [--out resources/demo] [--jobs N]
 *
 * Needs: espeak-ng, sox, opusenc (opus-tools); optional: festival voices (kal, ked,
 * cmu_us_slt_arctic_hts), pocketsphinx + pocketsphinx-en-us. Missing optional tools
 * are skipped with a note, so the corpus still builds (with fewer voices or without
 * hypotheses). mbrola voices are never used: they are non-free and usually absent.
 *
 * Everything is deterministic (no random choices), so rerunning it gives the same
 * manifests; the audio bytes can differ slightly between synthesiser versions.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1] : fallback;
};
const outDir = resolve(arg('out', join(root, 'resources', 'demo')));
const jobs = Math.max(1, Number(arg('jobs', String(Math.min(4, cpus().length)))));
const tmp = mkdtempSync(join(tmpdir(), 'equivox-demo-'));

function have(cmd) {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
for (const cmd of ['espeak-ng', 'sox', 'opusenc']) {
  if (!have(cmd)) {
    console.error(`make-demo-corpus: ${cmd} is required (apt-get install espeak-ng sox opus-tools)`);
    process.exit(1);
  }
}
const festivalVoiceDirs = ['/usr/share/festival/voices/english', '/usr/share/festival/voices/us'];
const festivalVoices = new Set(
  have('text2wave') ? festivalVoiceDirs.filter((d) => existsSync(d)).flatMap((d) => readdirSync(d)) : [],
);
const festival = (name) => festivalVoices.has(name);
let sphinxModel = null;
if (have('pocketsphinx_continuous')) {
  for (const m of ['/usr/share/pocketsphinx/model/en-us']) {
    if (existsSync(join(m, 'en-us.lm.bin'))) sphinxModel = m;
  }
}
const notes = [];
// The package's version is the recogniser's: pocketsphinx_continuous prints none of its own.
let sphinxVersion = 'unknown';
try {
  sphinxVersion = `${execFileSync('dpkg-query', ['-W', '-f=${Version}', 'pocketsphinx'], { encoding: 'utf8' }).trim()} (Debian)`;
} catch {
  // not a Debian system: the version stays unknown, and the demo plan says so
}
if (!sphinxModel) notes.push('pocketsphinx (en-us) not found: the ASR manifest has no hypotheses');
for (const v of ['kal_diphone', 'ked_diphone', 'cmu_us_slt_arctic_hts']) if (!festival(v)) notes.push(`festival voice ${v} not found: skipped`);

// ---------------------------------------------------------------------------------
// Text. Written for this corpus (no third-party prompts).
const POSITIVE = [
  'what a wonderful and happy day this is',
  'I love this beautiful gift so much',
  'the children laughed and played in the sunshine',
  'we won the prize and everyone cheered',
  'thank you, this is a delightful surprise',
  'the garden is lovely and full of flowers',
];
const NEGATIVE = [
  'this is a terrible and awful mistake',
  'I hate waiting in this cold dirty room',
  'the accident left everyone hurt and afraid',
  'we lost everything in the horrible fire',
  'that was a cruel and painful thing to say',
  'the food was rotten and made me sick',
];
const NEUTRAL = [
  'the meeting starts at nine in the morning',
  'please put the box on the second shelf',
  'the train leaves from platform four',
  'the report has twelve pages and a table',
  'turn left at the next corner and walk on',
  'the library closes at six on weekdays',
  'she wrote the numbers in a small notebook',
  'the bus stops outside the post office',
];
const ASR_TEXT = [
  'open the window and let the air in',
  'my phone number starts with seven',
  'bring me the red cup from the kitchen',
  'the weather will be dry and windy',
  'call the doctor in the afternoon',
  'he parked the car near the bridge',
  'we need more paper for the printer',
  'the store sells bread and fresh milk',
];

// ---------------------------------------------------------------------------------
// Voices. espeak-ng variants stand in for speakers; festival voices add other engines.
/** @typedef {{id:string, engine:'espeak'|'festival', voice:string, gender:'female'|'male', accent:string, pitch?:number}} Voice */
const es = (id, voice, gender, accent, pitch) => ({ id, engine: 'espeak', voice, gender, accent, pitch });
const fv = (id, voice, gender, accent) => ({ id, engine: 'festival', voice, gender, accent });

/** Synthesise `text` to a 16 kHz mono 16-bit wav. rate/pitch are relative changes. */
async function synth(v, text, wav, { rate = 0, pitch = 0 } = {}) {
  const raw = `${wav}.raw.wav`;
  if (v.engine === 'espeak') {
    const base = v.pitch ?? 50;
    await run('espeak-ng', ['-v', v.voice, '-s', String(165 + rate), '-p', String(Math.max(0, Math.min(99, base + pitch))), '-w', raw, text]);
    await run('sox', [raw, '-r', '16000', '-c', '1', '-b', '16', wav]);
  } else {
    const txt = `${wav}.txt`;
    writeFileSync(txt, `${text}\n`);
    await run('text2wave', ['-o', raw, '-eval', `(voice_${v.voice})`, txt]);
    // Festival has no per-call prosody switches: shift pitch (cents) and tempo with sox.
    const effects = [];
    if (pitch !== 0) effects.push('pitch', String(pitch * 12));
    if (rate !== 0) effects.push('tempo', '-s', String(((165 + rate) / 165).toFixed(3)));
    await run('sox', [raw, '-r', '16000', '-c', '1', '-b', '16', wav, ...effects]);
    rmSync(txt, { force: true });
  }
  rmSync(raw, { force: true });
}

async function encode(wav, opus) {
  mkdirSync(dirname(opus), { recursive: true });
  await run('opusenc', ['--quiet', '--bitrate', '20', wav, opus]);
}

async function recognise(wav) {
  const m = sphinxModel;
  const { stdout } = await run(
    'pocketsphinx_continuous',
    ['-infile', wav, '-hmm', join(m, 'en-us'), '-lm', join(m, 'en-us.lm.bin'), '-dict', join(m, 'cmudict-en-us.dict'), '-logfn', '/dev/null'],
    { maxBuffer: 1 << 20 },
  );
  return stdout.split(/\r?\n/).map((s) => s.trim()).filter(Boolean).join(' ');
}

async function pool(items, worker) {
  let next = 0;
  let done = 0;
  const results = new Array(items.length);
  await Promise.all(
    Array.from({ length: Math.min(jobs, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await worker(items[i], i);
        done += 1;
        if (done % 20 === 0 || done === items.length) process.stderr.write(`  ${done}/${items.length}\n`);
      }
    }),
  );
  return results;
}

function csvCell(v) {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
function writeCsv(file, header, rows) {
  writeFileSync(file, [header, ...rows.map((r) => header.map((h) => r[h]))].map((r) => r.map(csvCell).join(',')).join('\n') + '\n');
}

// ---------------------------------------------------------------------------------
// 1. Attribute set: valence-rated speech. Positive clips use pleasant words with a
// raised pitch and faster rate, negative ones unpleasant words, lower pitch, slower.
// The rating is a fixed function of those generation parameters (1 = very unpleasant,
// 5 = very pleasant), so it is reproducible and monotone in what was synthesised.
function valenceOf(lex, pitch, rate) {
  const v = 3 + 1.2 * lex + 0.4 * (pitch / 20) + 0.3 * (rate / 30);
  return Math.round(Math.max(1, Math.min(5, v)) * 100) / 100;
}
const attributeVoices = [
  es('att-us-f', 'en-us+f2', 'female', 'us'),
  es('att-us-m', 'en-us+m1', 'male', 'us', 45),
  es('att-uk-f', 'en-gb-x-rp+f4', 'female', 'uk'),
  es('att-sc-m', 'en-gb-scotland+m3', 'male', 'scotland', 45),
  ...(festival('cmu_us_slt_arctic_hts') ? [fv('att-slt-f', 'cmu_us_slt_arctic_hts', 'female', 'us')] : []),
  ...(festival('kal_diphone') ? [fv('att-kal-m', 'kal_diphone', 'male', 'us')] : []),
];
const attributeItems = [];
attributeVoices.forEach((v, vi) => {
  const plan = [
    ...[0, 1, 2, 3, 4].map((k) => ({ lex: 1, text: POSITIVE[(k + vi) % POSITIVE.length], pitch: 14 + ((k + vi) % 3) * 3, rate: 20 + ((k + vi) % 2) * 10 })),
    ...[0, 1, 2, 3, 4].map((k) => ({ lex: -1, text: NEGATIVE[(k + vi) % NEGATIVE.length], pitch: -14 - ((k + vi) % 3) * 3, rate: -25 - ((k + vi) % 2) * 10 })),
    ...[0, 1].map((k) => ({ lex: 0, text: NEUTRAL[(k + 2 * vi) % NEUTRAL.length], pitch: 0, rate: 0 })),
  ];
  plan.forEach((p, k) => {
    attributeItems.push({
      voice: v,
      file: `attribute/${v.id}-${String(k + 1).padStart(2, '0')}.opus`,
      ...p,
      valence: valenceOf(p.lex, p.pitch, p.rate),
    });
  });
});

// 2. Target sets: accent (US vs UK) x gender x speaking rate (natural vs slowed), fully
// crossed so each SpEAT test can be matched on the other two labels.
const targetVoices = [
  es('tg-us-f1', 'en-us+f1', 'female', 'us'), es('tg-us-f3', 'en-us+f3', 'female', 'us'), es('tg-us-f4', 'en-us+f4', 'female', 'us'),
  es('tg-us-m2', 'en-us+m2', 'male', 'us', 45), es('tg-us-m4', 'en-us+m4', 'male', 'us', 45), es('tg-us-m6', 'en-us+m6', 'male', 'us', 45),
  es('tg-uk-f1', 'en-gb-x-rp+f1', 'female', 'uk'), es('tg-uk-f3', 'en-gb-x-rp+f3', 'female', 'uk'), es('tg-uk-f4', 'en-gb-x-rp+f4', 'female', 'uk'),
  es('tg-uk-m2', 'en-gb-x-rp+m2', 'male', 'uk', 45), es('tg-uk-m4', 'en-gb-x-rp+m4', 'male', 'uk', 45), es('tg-uk-m6', 'en-gb-x-rp+m6', 'male', 'uk', 45),
];
const targetItems = [];
targetVoices.forEach((v, vi) => {
  for (let k = 0; k < 4; k += 1) {
    const slowed = k >= 2;
    targetItems.push({
      voice: v,
      file: `target/${v.id}-${k + 1}.opus`,
      text: NEUTRAL[(k + vi) % NEUTRAL.length],
      pitch: 0,
      rate: slowed ? -55 : 0,
      rateLabel: slowed ? 'slowed' : 'natural',
    });
  }
});

// 3. ASR: five accents x two genders x two voices x four sentences = 80 utterances.
const asrAccents = [
  ['us', 'en-us'], ['uk', 'en-gb-x-rp'], ['scotland', 'en-gb-scotland'], ['caribbean', 'en-029'], ['west-midlands', 'en-gb-x-gbcwmd'],
];
const asrVoices = asrAccents.flatMap(([accent, voice]) => [
  es(`asr-${accent}-f2`, `${voice}+f2`, 'female', accent), es(`asr-${accent}-f5`, `${voice}+f5`, 'female', accent),
  es(`asr-${accent}-m1`, `${voice}+m1`, 'male', accent, 45), es(`asr-${accent}-m5`, `${voice}+m5`, 'male', accent, 45),
]);
const asrItems = [];
asrVoices.forEach((v, vi) => {
  for (let k = 0; k < 4; k += 1) {
    asrItems.push({ voice: v, file: `asr/${v.id}-${k + 1}.opus`, text: ASR_TEXT[(2 * k + vi) % ASR_TEXT.length], pitch: 0, rate: -15 });
  }
});

// 4. Verification: speakers (voice variants) with five clips each. Every gender x accent
// cell holds at least three speakers, so each group has genuine and impostor trials.
const verificationVoices = [
  es('spk-us-m2', 'en-us+m2', 'male', 'us', 45), es('spk-us-m3', 'en-us+m3', 'male', 'us', 45),
  es('spk-us-f5', 'en-us+f5', 'female', 'us'), es('spk-us-f2', 'en-us+f2', 'female', 'us'),
  es('spk-uk-m4', 'en-gb-x-rp+m4', 'male', 'uk', 45), es('spk-uk-m1', 'en-gb-x-rp+m1', 'male', 'uk', 45), es('spk-uk-m6', 'en-gb-x-rp+m6', 'male', 'uk', 45),
  es('spk-uk-f1', 'en-gb-x-rp+f1', 'female', 'uk'), es('spk-uk-f3', 'en-gb-x-rp+f3', 'female', 'uk'), es('spk-uk-f4', 'en-gb-x-rp+f4', 'female', 'uk'),
  ...(festival('kal_diphone') ? [fv('spk-kal-m', 'kal_diphone', 'male', 'us')] : [es('spk-us-m7', 'en-us+m7', 'male', 'us', 45)]),
  ...(festival('cmu_us_slt_arctic_hts') ? [fv('spk-slt-f', 'cmu_us_slt_arctic_hts', 'female', 'us')] : [es('spk-us-f3', 'en-us+f3', 'female', 'us')]),
];
const verificationItems = [];
verificationVoices.forEach((v, vi) => {
  for (let k = 0; k < 5; k += 1) {
    verificationItems.push({ voice: v, file: `verification/${v.id}-${k + 1}.opus`, text: ASR_TEXT[(k + 3 * vi) % ASR_TEXT.length], pitch: 0, rate: 0 });
  }
});

// ---------------------------------------------------------------------------------
for (const sub of ['attribute', 'target', 'asr', 'verification']) rmSync(join(outDir, sub), { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const started = Date.now();

async function make(item, withAsr = false) {
  const wav = join(tmp, item.file.replace(/[/]/g, '_').replace(/\.opus$/, '.wav'));
  await synth(item.voice, item.text, wav, { rate: item.rate, pitch: item.pitch });
  const hypothesis = withAsr && sphinxModel ? await recognise(wav) : undefined;
  await encode(wav, join(outDir, item.file));
  rmSync(wav, { force: true });
  return hypothesis;
}

console.error(`attribute: ${attributeItems.length} clips`);
await pool(attributeItems, (it) => make(it));
writeCsv(join(outDir, 'attribute.csv'), ['path', 'speaker', 'gender', 'accent', 'valence', 'transcript', 'polarity', 'pitch_shift', 'rate_shift', 'engine'],
  attributeItems.map((it) => ({ path: it.file, speaker: it.voice.id, gender: it.voice.gender, accent: it.voice.accent, valence: it.valence, transcript: it.text,
    polarity: it.lex > 0 ? 'positive' : it.lex < 0 ? 'negative' : 'neutral', pitch_shift: it.pitch, rate_shift: it.rate, engine: it.voice.engine })));

console.error(`target: ${targetItems.length} clips`);
await pool(targetItems, (it) => make(it));
writeCsv(join(outDir, 'target.csv'), ['path', 'speaker', 'accent', 'gender', 'rate', 'transcript', 'voice'],
  targetItems.map((it) => ({ path: it.file, speaker: it.voice.id, accent: it.voice.accent, gender: it.voice.gender, rate: it.rateLabel, transcript: it.text, voice: it.voice.voice })));

console.error(`asr: ${asrItems.length} clips${sphinxModel ? ' (with pocketsphinx)' : ''}`);
const hyps = await pool(asrItems, (it) => make(it, true));
writeCsv(join(outDir, 'asr.csv'), ['path', 'speaker', 'accent', 'gender', 'transcript', 'hypothesis', 'voice'],
  asrItems.map((it, i) => ({ path: it.file, speaker: it.voice.id, accent: it.voice.accent, gender: it.voice.gender, transcript: it.text, hypothesis: hyps[i] ?? '', voice: it.voice.voice })));

console.error(`verification: ${verificationItems.length} clips`);
await pool(verificationItems, (it) => make(it));
writeCsv(join(outDir, 'verification.csv'), ['path', 'speaker', 'gender', 'accent', 'transcript', 'engine'],
  verificationItems.map((it) => ({ path: it.file, speaker: it.voice.id, gender: it.voice.gender, accent: it.voice.accent, transcript: it.text, engine: it.voice.engine })));

// ---------------------------------------------------------------------------------
function count(items, key) {
  const out = {};
  for (const it of items) out[key(it)] = (out[key(it)] ?? 0) + 1;
  return out;
}
const demo = {
  version: 1,
  synthetic: true,
  description: 'Synthetic demo corpus generated by scripts/make-demo-corpus.mjs from espeak-ng and festival voices. Not real people.',
  datasets: [
    {
      name: 'Demo attribute speech (valence-rated)', role: 'attribute', manifest: 'attribute.csv',
      mapping: { path: 'path', speaker: 'speaker', groups: ['gender', 'accent'], valence: 'valence', transcript: 'transcript' },
      expected: { clips: attributeItems.length, speakers: attributeVoices.length, byPolarity: count(attributeItems, (i) => (i.lex > 0 ? 'positive' : i.lex < 0 ? 'negative' : 'neutral')) },
    },
    {
      name: 'Demo target speech (accent x gender x rate)', role: 'target', manifest: 'target.csv',
      mapping: { path: 'path', speaker: 'speaker', groups: ['accent', 'gender', 'rate'], transcript: 'transcript' },
      expected: { clips: targetItems.length, speakers: targetVoices.length, byAccent: count(targetItems, (i) => i.voice.accent), byGender: count(targetItems, (i) => i.voice.gender), byRate: count(targetItems, (i) => i.rateLabel) },
      speatTests: [
        { name: 'US vs UK accent', groupColumn: 'accent', x: 'us', y: 'uk', matchOn: ['gender', 'rate'] },
        { name: 'Female vs male voices', groupColumn: 'gender', x: 'female', y: 'male', matchOn: ['accent', 'rate'] },
        { name: 'Natural vs slowed speech', groupColumn: 'rate', x: 'natural', y: 'slowed', matchOn: ['accent', 'gender'] },
      ],
    },
    {
      name: 'Demo ASR (reference transcripts + pocketsphinx hypotheses)', role: 'asr', manifest: 'asr.csv',
      mapping: { path: 'path', speaker: 'speaker', groups: ['accent', 'gender'], transcript: 'transcript', hypothesis: 'hypothesis' },
      // The plan names the recogniser behind the hypotheses, or it does not lock (METHODS.md § Verdicts that hold, Provenance).
      ...(sphinxModel ? { recogniser: { name: 'pocketsphinx_continuous', version: sphinxVersion, settings: 'en-us acoustic model (-hmm en-us), en-us.lm.bin language model, cmudict-en-us.dict; defaults otherwise; 16 kHz WAV from the synthesiser, before Opus encoding' } } : {}),
      expected: { clips: asrItems.length, speakers: asrVoices.length, byAccent: count(asrItems, (i) => i.voice.accent), recogniser: sphinxModel ? 'pocketsphinx_continuous en-us' : null },
    },
    {
      name: 'Demo speaker verification', role: 'verification', manifest: 'verification.csv',
      mapping: { path: 'path', speaker: 'speaker', groups: ['gender', 'accent'], transcript: 'transcript' },
      expected: { clips: verificationItems.length, speakers: verificationVoices.length, clipsPerSpeaker: 5 },
    },
  ],
  notes,
};
writeFileSync(join(outDir, 'demo.json'), `${JSON.stringify(demo, null, 2)}\n`);
rmSync(tmp, { recursive: true, force: true });

let bytes = 0;
const walk = (d) => {
  for (const e of readdirSync(d)) {
    const p = join(d, e);
    const s = statSync(p);
    if (s.isDirectory()) walk(p);
    else bytes += s.size;
  }
};
walk(outDir);
console.error(`done in ${((Date.now() - started) / 1000).toFixed(0)} s; ${(bytes / 1e6).toFixed(2)} MB in ${outDir}`);
for (const n of notes) console.error(`note: ${n}`);
