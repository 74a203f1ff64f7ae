/**
 * The evidence inside the report (issue 24 item 2): results, manifests' hashes, every
 * report-data CSV, the reproduce steps and a signed statement attached as PDF/A-3
 * associated files; `report verify` names a replaced attachment; `report extract` writes
 * them, and `stats wer` on the extracted utterances reproduces the report's WER numbers.
 *
 * The WER section is made by the audit's own code (analyseWer, werSectionFrom) from the
 * demo corpus's real recogniser output (resources/demo/asr.csv). The SpEAT results are
 * computed as the audit's unit does (speatAssociations on embeddings, then
 * speatFromAssociations and the paired bootstrap with the unit's seed) from seeded random
 * embeddings, and the FDI grouping by the audit's fdiGrouping from seeded scored trials;
 * stats speat and stats fdi on the extracted files must give the same numbers, and
 * stats speat on the embeddings themselves the same as on the attached associations.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditResults, WerSection } from '../../../src/shared/results';
import { createIdentity, loadSigningIdentity } from '../../../src/main/identity';
import { buildReport, STATEMENT_ATTACHMENT, verifyReport, type DetachedStatement } from '../../../src/main/report';
import { runCli } from '../../../src/main/cli';
import { parseCsvTable } from '../../../src/main/data/csv';
import { analyseWer, bootstrapSpeatSE, speatAssociations, speatFromAssociations, type FdiItems, type WerRow } from '../../../src/main/stats';
import { fdiGrouping } from '../../../src/main/audits/fdi-grouping';
import { equalErrorThreshold } from '../../../src/main/audits/fdi-audit';
import { werSectionFrom } from '../../../src/main/audits/wer-section';
import { extractReport } from '../../../src/main/report/extract';
import PDFDocument from 'pdfkit';
import { unitSeed } from '../../../src/main/audits/units';
import { speakerPseudonyms } from '../../../src/main/audits/speat-audit';

const FIXTURE = join(__dirname, '../../fixtures/report/results.sample.json');
const base = JSON.parse(readFileSync(FIXTURE, 'utf8')) as AuditResults;
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

let dir: string;
let pdfPath: string;
let pdf: Buffer;
let statement: DetachedStatement;
let results: AuditResults;
const embeddings: { X: number[][]; Y: number[][]; A: number[][]; B: number[][]; speakersX?: string[]; speakersY?: string[] }[] = [];

function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = { out: '', err: '', stdout(s: string) { io.out += s; }, stderr(s: string) { io.err += s; } };
  return runCli(args, io).then((code) => ({ code, out: io.out, err: io.err }));
}

/**
 * Replace one attachment's data the way an editor saving over the file would: an incremental
 * update appending a new version of its embedded-file stream and a cross-reference section.
 */
function replaceAttachment(bytes: Buffer, name: string, data: Buffer): Buffer {
  const text = bytes.toString('latin1');
  const m = new RegExp(`/F \\(${name.replace(/\./g, '\\.')}\\)\\n/EF <<\\n/F (\\d+) 0 R`).exec(text);
  if (!m) throw new Error(`no file specification for ${name}`);
  const num = Number(m[1]);
  const size = Number(/\/Size (\d+)/.exec(text.slice(text.lastIndexOf('trailer')))![1]);
  const root = /\/Root (\d+ \d+ R)/.exec(text.slice(text.lastIndexOf('trailer')))![1];
  const prev = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))![1]);
  const obj = Buffer.concat([Buffer.from(`\n${num} 0 obj\n<< /Type /EmbeddedFile /Subtype /text#2Fcsv /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream\nendobj\n', 'latin1')]);
  const objOffset = bytes.length + 1;
  const xrefOffset = bytes.length + obj.length;
  const xref = `xref\n0 1\n0000000000 65535 f \n${num} 1\n${String(objOffset).padStart(10, '0')} 00000 n \ntrailer\n<< /Size ${size} /Root ${root} /Prev ${prev} >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  return Buffer.concat([bytes, obj, Buffer.from(xref, 'latin1')]);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'equivox-evidence-'));
  process.env.EQUIVOX_HOME = join(dir, 'cli-home');
  const corpus = parseCsvTable(readFileSync(join(__dirname, '../../../resources/demo/asr.csv'), 'utf8'), { requiredColumns: ['path', 'speaker', 'accent', 'transcript', 'hypothesis'] });
  const rows: WerRow[] = corpus.rows.map(({ values }) => ({ id: values.path!, group: values.accent!, speaker: values.speaker!, reference: values.transcript!, hypothesis: values.hypothesis! }));
  const analysis = analyseWer(rows, { normalize: 'basic', referenceGroup: 'us', bootstrap: 200, permutations: 400, by: 'speaker', nAGQ: 1, seed: unitSeed(base.audit.seed, 'wer/accent') });
  const wer: WerSection = werSectionFrom(rows, analysis, { hypotheses: 'model', asrModel: 'pocketsphinx en-us', groupBy: ['accent'], alpha: 0.05, nAGQ: 1, datasetId: base.datasets[0]!.id });
  // SpEAT: two comparisons on seeded embeddings (8 stimuli per set, 6 dimensions), the unit's
  // steps; the second one's targets are 4 speakers per group with 2 clips each, so speakers
  // are its unit (its attachment carries them as pseudonyms, and its bootstrap resamples speakers).
  let state = 7;
  const rand = (): number => {
    state = (state * 1664525 + 1013904223) % 4294967296;
    return state / 4294967296;
  };
  const sp = base.speat!;
  const speatResults = sp.results.slice(0, 2).map((r, k) => {
    const rows = (shift: number): number[][] => Array.from({ length: 8 }, () => Array.from({ length: 6 }, () => rand() - 0.5 + shift));
    const emb = { X: rows(0.1 * (k + 1)), Y: rows(0), A: rows(0.2), B: rows(-0.2) };
    const speakers = k === 1 ? { X: emb.X.map((_, i) => `speaker:ana-${i >> 1}`), Y: emb.Y.map((_, i) => `speaker:bo-${i >> 1}`) } : null;
    embeddings.push({ ...emb, ...(speakers ? { speakersX: speakers.X, speakersY: speakers.Y } : {}) });
    const seed = unitSeed(base.audit.seed, `speat/${r.modelId}/${r.testId}/${sp.config.temporal}/${sp.config.layer}`);
    const s = speatAssociations(emb);
    const t = speatFromAssociations(s.X, s.Y, { permutations: sp.config.permutations, seed, ...(speakers ? { speakers } : {}) });
    const bySpeaker = t.unit === 'speaker';
    const sizes = sp.config.sampleSizes.filter((n) => n <= (bySpeaker ? 4 : s.X.length));
    const se = bootstrapSpeatSE(s.X, s.Y, sizes, { resamples: sp.config.bootstrap, seed, design: bySpeaker ? { kind: 'speakers', speakersX: speakers!.X, speakersY: speakers!.Y } : { kind: 'paired' } });
    return {
      ...r,
      temporal: sp.config.temporal,
      layer: sp.config.layer,
      effectSize: t.effectSize,
      pValue: t.pValue,
      pTwoSided: t.pTwoSided,
      favoured: t.favoured,
      exact: t.exact,
      permutations: t.permutations,
      unit: t.unit,
      ...(t.speakers ? { speakers: t.speakers } : {}),
      ...(t.clipLevel ? { clipLevel: t.clipLevel } : {}),
      standardErrors: se.map((p) => ({ size: p.size, standardError: p.standardError })),
      associations: { X: Array.from(s.X), Y: Array.from(s.Y), ...(bySpeaker ? speakerPseudonyms(speakers!.X, speakers!.Y) : {}) },
    };
  });
  // FDI: 400 scored trials in two groups, the equal-error-rate threshold and the observed sweep, as runFdi does.
  const fdiNames = Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? 'female' : 'male'));
  const fdiLabels = Int8Array.from({ length: 400 }, (_, i) => (i % 4 < 2 ? 1 : 0));
  // Ten speakers per group, each in 20 trials: the CI resamples and the null shuffles speakers, and the CSV must carry them (as pseudonyms).
  const speaker = (i: number, shift: number) => `spk-${fdiNames[i]}-${String((Math.floor(i / 2) + shift) % 10).padStart(2, '0')}`;
  const items: FdiItems = {
    groups: fdiNames,
    labels: fdiLabels,
    scores: Float64Array.from(fdiNames, (g, i) => (fdiLabels[i] ? 0.65 : 0.35) + (g === 'male' ? 0.05 : 0) + 0.3 * (rand() - 0.5)),
    speakers: { enrol: fdiNames.map((_, i) => speaker(i, 0)), test: fdiNames.map((_, i) => speaker(i, fdiLabels[i] ? 0 : 3)) },
  };
  const f = base.fdi!;
  const tau = equalErrorThreshold(items.scores, items.labels);
  const grouping = fdiGrouping(items, ['gender'], tau, null, { alpha: f.config.alpha, orientation: f.config.orientation, bootstrap: 200, nullPermutations: 300 }, unitSeed(base.audit.seed, 'fdi/gender'));
  const fdi = { ...f, config: { ...f.config, threshold: tau, thresholdRule: 'equal-error-rate' as const, bootstrap: 200, nullPermutations: 300 }, groupings: [grouping] };
  results = { ...base, wer, speat: { ...sp, results: speatResults }, fdi };
  const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  const built = await buildReport(results, { identity: loadSigningIdentity(join(dir, 'data'), info.id), now: new Date('2026-11-29T12:00:00Z') });
  pdf = built.pdf;
  statement = built.statement;
  pdfPath = join(dir, 'report.pdf');
  writeFileSync(pdfPath, pdf);
});

describe('evidence inside the report', () => {
  it('pdfdetach lists results.json, the manifests, the reproduce steps, the statement and every report-data CSV, each matching the statement', () => {
    const listed = spawnSync('pdfdetach', ['-list', pdfPath], { encoding: 'utf8' }).stdout.split('\n').slice(1).map((l) => l.replace(/^\d+: /, '')).filter(Boolean);
    expect(listed).toContain('results.json');
    expect(listed).toContain('datasets.manifests.json');
    expect(listed).toContain('reproduce.json');
    expect(listed).toContain(STATEMENT_ATTACHMENT);
    expect(listed).toContain('wer-utterances.csv');
    expect(listed).toContain('fdi-trials-1-gender.csv');
    expect(listed.filter((n) => n.startsWith('speat-associations-')).length).toBe(2);
    expect(listed.filter((n) => n.endsWith('.csv')).length).toBeGreaterThan(10);
    // Every attachment but the statement is listed in the detached statement with its hash.
    expect(statement.attachments!.map((a) => a.name).sort()).toEqual(listed.filter((n) => n !== STATEMENT_ATTACHMENT).sort());
    for (const a of statement.attachments!) {
      const out = join(dir, `detached-${a.name}`);
      const r = spawnSync('pdfdetach', ['-savefile', a.name, '-o', out, pdfPath], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(sha256(readFileSync(out)), a.name).toBe(a.sha256);
      expect(a.relationship).toBe(a.name.endsWith('.csv') || a.name === 'results.json' || a.name.startsWith('speat-associations-') ? 'Data' : 'Supplement');
    }
    // The manifests' hashes attached are the results' ones.
    const manifests = JSON.parse(readFileSync(join(dir, 'detached-datasets.manifests.json'), 'utf8')) as { id: string; manifestSha256: string | null }[];
    expect(manifests.map((m) => [m.id, m.manifestSha256])).toEqual(results.datasets.map((d) => [d.id, d.manifestSha256]));
  });

  it('each file specification carries /AFRelationship and a MIME subtype, and the catalog lists them in /AF', () => {
    const text = pdf.toString('latin1');
    const specs = [...text.matchAll(/\/Type \/Filespec\n\/AFRelationship \/(\w+)\n\/F \(([^)]+)\)/g)];
    expect(specs.length).toBe(statement.attachments!.length + 1);
    expect(text).toMatch(/\/Subtype \/text#2Fcsv/);
    expect(text).toMatch(/\/Subtype \/application#2Fjson/);
    const af = /\/AF \[([^\]]*)\]/.exec(text);
    expect(af).not.toBeNull();
    expect(af![1]!.trim().split(/\s+R\s*/).filter(Boolean).length).toBe(specs.length);
  });

  it('report extract writes every attachment, and stats wer on the extracted utterances gives the report’s numbers', async () => {
    const out = join(dir, 'extracted');
    const r = await cli(['report', 'extract', pdfPath, '--out', out]);
    expect(r.code, r.err).toBe(0);
    const extracted = JSON.parse(r.out) as { valid: boolean; files: { name: string; sha256: string; matchesStatement: boolean | null }[] };
    expect(extracted.valid).toBe(true);
    expect(readdirSync(out).sort()).toEqual([...statement.attachments!.map((a) => a.name), STATEMENT_ATTACHMENT].sort());
    for (const f of extracted.files) expect(f.matchesStatement).toBe(f.name === STATEMENT_ATTACHMENT ? null : true);
    const reproduce = JSON.parse(readFileSync(join(out, 'reproduce.json'), 'utf8')) as { steps: { section: string; argv: string[] }[] };
    const step = reproduce.steps.find((s) => s.section === 'wer')!;
    const argv = step.argv.map((a) => (a.endsWith('.csv') ? join(out, a) : a));
    const rerun = await cli(argv);
    expect(rerun.code, rerun.err).toBe(0);
    const again = JSON.parse(rerun.out) as { groups: Record<string, { wer: number; ci95: [number, number]; errors: number; referenceWords: number }>; comparisons: { group: string; permutationPValue: number; primary?: { pValue: number } }[] };
    const reported = (JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as AuditResults).wer!;
    expect(Object.keys(again.groups).sort()).toEqual(Object.keys(reported.groups).sort());
    for (const [g, v] of Object.entries(reported.groups)) {
      expect(again.groups[g]!.errors, g).toBe(v.errors);
      expect(again.groups[g]!.referenceWords, g).toBe(v.referenceWords);
      expect(again.groups[g]!.wer, g).toBe(v.wer);
      expect(again.groups[g]!.ci95, g).toEqual(v.ci95);
    }
    for (const c of reported.comparisons) {
      const a = again.comparisons.find((x) => x.group === c.group)!;
      expect(a.permutationPValue, c.group).toBe(c.permutationPValue);
      expect(a.primary?.pValue, c.group).toBe(c.primary?.pValue);
    }
  });

  it('stats speat on each attached associations file gives the report’s d, p and two-sided p, as stats speat on the embeddings does', async () => {
    const out = join(dir, 'extracted');
    const reproduce = JSON.parse(readFileSync(join(out, 'reproduce.json'), 'utf8')) as { steps: { section: string; argv: string[] }[] };
    const steps = reproduce.steps.filter((s) => s.section === 'speat');
    const reported = (JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as AuditResults).speat!.results;
    expect(steps.length).toBe(reported.length);
    expect(reported.map((x) => x.unit)).toEqual(['clip', 'speaker']);
    for (const [k, step] of steps.entries()) {
      const file = step.argv[step.argv.indexOf('--associations') + 1]!;
      const attached = JSON.parse(readFileSync(join(out, file), 'utf8')) as { testId: string; modelId: string; speakersX?: string[] };
      // Speakers travel as pseudonyms, never the dataset's ids.
      expect(readFileSync(join(out, file), 'utf8')).not.toMatch(/ana-|bo-/);
      if (attached.speakersX) expect(attached.speakersX.slice(0, 3)).toEqual(['s1', 's1', 's2']);
      const r = reported.find((x) => x.testId === attached.testId && x.modelId === attached.modelId)!;
      const rerun = await cli(step.argv.map((a) => (a === file ? join(out, a) : a)));
      expect(rerun.code, rerun.err).toBe(0);
      const again = JSON.parse(rerun.out) as { effectSize: number; pValue: number; pTwoSided: number; unit: string; clipLevel?: unknown; standardErrors: { size: number; standardError: number }[] };
      expect(again.unit, file).toBe(r.unit);
      expect(again.clipLevel, file).toEqual(r.clipLevel);
      expect(again.effectSize, file).toBe(r.effectSize);
      expect(again.pValue, file).toBe(r.pValue);
      expect(again.pTwoSided, file).toBe(r.pTwoSided);
      expect(again.standardErrors, file).toEqual(r.standardErrors);
      expect(r.standardErrors.length).toBeGreaterThan(0);
      // The same test from the embeddings the associations came from.
      const embFile = join(dir, `embeddings-${k}.json`);
      writeFileSync(embFile, JSON.stringify(embeddings[k]));
      const seed = step.argv[step.argv.indexOf('--seed') + 1]!;
      const fromEmb = await cli(['stats', 'speat', '--input', embFile, '--permutations', String(r.permutations), '--seed', seed]);
      expect(fromEmb.code, fromEmb.err).toBe(0);
      const e = JSON.parse(fromEmb.out) as { effectSize: number; pValue: number; pTwoSided: number; unit: string };
      expect(e.unit).toBe(r.unit);
      expect(e.effectSize).toBeCloseTo(r.effectSize, 12);
      expect(e.pValue).toBe(r.pValue);
      expect(e.pTwoSided).toBe(r.pTwoSided);
    }
  });

  it('stats fdi on the attached trials gives the report’s FDI, per-group rates, CI and null p (speakers resampled and shuffled, as pseudonyms)', async () => {
    const out = join(dir, 'extracted');
    const reproduce = JSON.parse(readFileSync(join(out, 'reproduce.json'), 'utf8')) as { steps: { section: string; argv: string[] }[] };
    const step = reproduce.steps.find((s) => s.section === 'fdi')!;
    const rerun = await cli(step.argv.map((a) => (a.endsWith('.csv') ? join(out, a) : a)));
    expect(rerun.code, rerun.err).toBe(0);
    const again = JSON.parse(rerun.out) as { threshold: number; fdi: number; groups: Record<string, { n: number; fpr: number; fnr: number; accuracy: number }>; disparities: unknown; wasserstein: unknown; fdiCi95: [number, number]; null: { pValue: number } };
    const g = (JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as AuditResults).fdi!.groupings[0]!;
    expect(again.threshold).toBe(g.threshold);
    expect(again.fdi).toBe(g.fdi);
    expect(Object.keys(again.groups).sort()).toEqual(['female', 'male']);
    for (const [name, m] of Object.entries(g.groups)) {
      expect(again.groups[name]!.n, name).toBe(m.n);
      expect(again.groups[name]!.fpr, name).toBe(m.fpr);
      expect(again.groups[name]!.fnr, name).toBe(m.fnr);
      expect(again.groups[name]!.accuracy, name).toBe(m.accuracy);
    }
    expect(again.disparities).toEqual(g.disparities);
    expect(again.wasserstein).toEqual(g.wasserstein);
    expect(again.fdiCi95).toEqual(g.fdiCi95);
    expect(again.null.pValue).toBe(g.null!.pValue);
    // Speakers as the unit in the audit and in the rerun alike.
    expect(g.fdiCi!.unit).toBe('speaker');
    expect((again as unknown as { fdiCi: { unit: string }; null: { unit: string } }).fdiCi.unit).toBe('speaker');
    expect((again as unknown as { null: { unit: string } }).null.unit).toBe('speaker');
    // The attached CSV holds the scores exactly (no rounding), no trial ids, and the speakers only as pseudonyms.
    const text = readFileSync(join(out, 'fdi-trials-1-gender.csv'), 'utf8');
    const csv = parseCsvTable(text, { requiredColumns: ['group', 'label', 'score'] });
    expect(csv.header).toEqual(['group', 'label', 'score', 'enrol_speaker', 'test_speaker']);
    expect(csv.rows.map((r) => Number(r.values.score))).toEqual(g.trials!.map((t) => t.score));
    expect(new Set(csv.rows.flatMap((r) => [r.values.enrol_speaker, r.values.test_speaker])).size).toBe(20);
    expect(csv.rows.every((r) => /^S\d\d$/.test(r.values.enrol_speaker!) && /^S\d\d$/.test(r.values.test_speaker!))).toBe(true);
    expect(text).not.toContain('spk-');
  });

  it('report verify fails when one attached CSV is replaced, naming it', async () => {
    const original = Buffer.from(readFileSync(join(dir, 'extracted', 'wer-utterances.csv')));
    const forged = Buffer.from(original.toString('utf8').replace(/,(\d+)\r?\n/, (s, n: string) => s.replace(n, String(Number(n) + 1))), 'utf8');
    expect(forged.equals(original)).toBe(false);
    const tampered = replaceAttachment(pdf, 'wer-utterances.csv', forged);
    const v = verifyReport(tampered);
    expect(v.valid).toBe(false);
    expect(v.attachments.find((a) => a.name === 'wer-utterances.csv')!.matchesStatement).toBe(false);
    expect(v.attachments.filter((a) => a.matchesStatement === false).map((a) => a.name)).toEqual(['wer-utterances.csv']);
    expect(v.problems.join('\n')).toContain('attachment wer-utterances.csv was replaced or changed');
    const file = join(dir, 'tampered.pdf');
    writeFileSync(file, tampered);
    const r = await cli(['report', 'verify', file]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).problems.join('\n')).toContain('wer-utterances.csv');
  });

  it('report extract writes nothing when an attachment’s name is a path, and reports an unsigned PDF as not valid', async () => {
    const make = (name: string): Promise<Buffer> =>
      new Promise((resolve) => {
        const doc = new PDFDocument();
        const chunks: Buffer[] = [];
        doc.on('data', (c: Buffer) => chunks.push(c));
        doc.on('end', () => resolve(Buffer.concat(chunks)));
        doc.file(Buffer.from('a,b\n1,2\n'), { name, type: 'text/csv' });
        doc.text('x');
        doc.end();
      });
    const out = join(dir, 'hostile-out');
    expect(() => extractReport(Buffer.alloc(0), out)).toThrow();
    for (const name of ['../escape.csv', '/etc/passwd', '.hidden', 'a/b.csv']) {
      const bytes = await make(name);
      expect(() => extractReport(bytes, out), name).toThrow(/not a plain file name/);
    }
    expect(() => readdirSync(out)).toThrow();
    const plainBytes = await make('data.csv');
    const plain = extractReport(plainBytes, out);
    expect(plain.valid).toBe(false);
    expect(plain.files.map((f) => f.name)).toEqual(['data.csv']);
    expect(readFileSync(join(out, 'data.csv'), 'utf8')).toBe('a,b\n1,2\n');
  });
});
