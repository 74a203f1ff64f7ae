/**
 * Issue 23.1: no path can hang Equivox. Every CLI command and API operation that takes a
 * path is given a FIFO, a character device (/dev/zero), a folder and a dangling symbolic
 * link (and, where it takes a folder, a folder holding a FIFO where it reads a file). Each
 * must answer within a few seconds with a user or validation error that names the path
 * and says what it is. The cases run in their own process (test/support/input-probe.ts):
 * a case that hangs is killed after the time limit and named, instead of hanging the
 * test runner. Against the code before security/input-file.ts the first case
 * (`report verify FIFO`) never returned.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INPUT_KINDS, readInputFile, readInputFileSync } from '../../../src/main/security/input-file';

interface Outcome {
  host: 'cli' | 'api';
  name: string;
  bad: string;
  exit?: number;
  ms: number;
  errorCode: string | null;
  message: string;
}

const root = mkdtempSync(join(tmpdir(), 'equivox-input-files-'));
let outcomes: Outcome[] = [];
let hung: string | null = null;

beforeAll(async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/input-probe.ts', join(root, 'work')], {
    env: { ...process.env, EQUIVOX_HOME: join(root, 'home'), ORT_DISABLE_TELEMETRY: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(false);
    }, 240_000);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  const lines = out.split('\n').filter(Boolean);
  outcomes = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Outcome);
  if (!done || !lines.includes('DONE')) hung = `${lines.filter((l) => l.startsWith('START')).at(-1) ?? 'before the first case'} did not finish\n${err.slice(-2000)}`;
}, 300_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What each bad thing must be called. */
const SAYS: Record<string, RegExp> = {
  fifo: /pipe\.fifo is a named pipe \(FIFO\)/,
  device: /\/dev\/zero is a character device/,
  folder: /a-folder is a folder; choose /,
  dangling: /dangling-link is a symbolic link to .*nothing-here, which does not exist/,
  'folder holding a FIFO': /(onnx\/model\.onnx|vocab\.json|job\.json|project\.sqlite|metadata\.csv|validated\.tsv) is a named pipe \(FIFO\)/,
};

/** projects.open on something that is not a folder: the store's own words, which are clear. */
const notAProject = /holds no Equivox project \(no project\.sqlite\)/;

const CLI_FILE = ['report verify FILE', 'models import --file', 'models import --manifest', 'identity trust --cert', 'identity import --p12', 'audit lock --plan', 'audit run --plan', 'stats speat --input', 'stats wer --input', 'stats fdi --input', 'stats ser --input', 'datasets preview --manifest', 'datasets import --manifest', 'report build --results'];
const CLI_FOLDER = ['models import --folder', 'models import --folder (ASR)', 'cluster status --job', 'cluster import --job', 'cluster run-shard --job', 'projects open --dir', 'embed --project', 'datasets import --folder', 'datasets import --common-voice'];
const API_FILE = ['reports.verify path', 'identities.trust certPath', 'identities.import p12Path', 'reports.build resultsPath', 'models.import file', 'models.import manifest', 'datasets.preview manifest', 'datasets.import source.manifest', 'plans.save config.fdi.source.file, then plans.lock'];
const API_FOLDER = ['models.import folder', 'datasets.import source.folder', 'cluster.status jobDir', 'cluster.import jobDir', 'projects.open path'];

const FILE_BAD = ['fifo', 'device', 'folder', 'dangling'];
const FOLDER_BAD = ['fifo', 'device', 'dangling', 'folder holding a FIFO'];
const cases = [
  ...CLI_FILE.flatMap((n) => FILE_BAD.map((b) => ['cli', n, b] as const)),
  ...CLI_FOLDER.flatMap((n) => FOLDER_BAD.map((b) => ['cli', n, b] as const)),
  ...API_FILE.flatMap((n) => FILE_BAD.map((b) => ['api', n, b] as const)),
  ...API_FOLDER.flatMap((n) => FOLDER_BAD.map((b) => ['api', n, b] as const)),
];

describe('a FIFO, /dev/zero, a folder or a dangling link where a path is expected', () => {
  it('no case hung: the probe ran every case to the end', () => {
    expect(hung).toBeNull();
    expect(outcomes).toHaveLength(cases.length);
  });

  it.each(cases)('%s %s given %s: a user or validation error within 5 s naming the path and what it is', (host, name, bad) => {
    const o = outcomes.find((x) => x.host === host && x.name === name && x.bad === bad);
    expect(o, 'the case ran').toBeDefined();
    expect(o!.ms).toBeLessThan(5000);
    expect(['user', 'validation']).toContain(o!.errorCode);
    if (host === 'cli') expect([1, 2]).toContain(o!.exit);
    const projectPath = (name === 'projects open --dir' || name === 'projects.open path' || name === 'embed --project') && bad !== 'folder holding a FIFO';
    if (projectPath && name !== 'embed --project') expect(o!.message).toMatch(notAProject);
    else if (name === 'plans.save config.fdi.source.file, then plans.lock') expect(o!.message).toMatch(new RegExp(`FDI: the scores file cannot be used: .*${SAYS[bad]!.source}`));
    else expect(o!.message).toMatch(SAYS[bad]!);
  });
});

describe('a size limit per kind of file, from the same fstat, before anything is read', () => {
  it('a 1 MB + 1 byte "certificate" and a 5 GB "model" (sparse files) are refused at once; at the limit a file is read', async () => {
    const cert = join(root, 'huge.pem');
    writeFileSync(cert, '');
    truncateSync(cert, INPUT_KINDS.certificate.maxBytes + 1);
    await expect(readInputFile(cert, 'certificate', 'certPath')).rejects.toMatchObject({ code: 'user', field: 'certPath', message: `${cert} is 1.0 MB, more than Equivox reads as a certificate (PEM or DER) (at most 1.0 MB)` });
    truncateSync(cert, INPUT_KINDS.certificate.maxBytes);
    expect((await readInputFile(cert, 'certificate')).length).toBe(INPUT_KINDS.certificate.maxBytes);
    const model = join(root, 'huge.onnx');
    writeFileSync(model, '');
    truncateSync(model, 5 * 1024 ** 3);
    const t0 = performance.now();
    expect(() => readInputFileSync(model, 'model', 'file')).toThrow(`${model} is 5.0 GB, more than Equivox reads as an ONNX model (at most 4.0 GB)`);
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});
