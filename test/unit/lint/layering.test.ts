import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { allowedFrom, PENDING, roomOf, ROOMS } from '../../../eslint-rules/layering.mjs';

// Lints in-memory sources as if they lived at the given paths, with the project's config.
async function lint(filePath: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: process.cwd() });
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('layering lint rules', () => {
  it("rejects import 'electron' inside src/main/stats", async () => {
    const messages = await lint('src/main/stats/violation.ts', "import { app } from 'electron';\nexport const x = app;\n");
    expect(messages.some((m) => m.startsWith('no-restricted-imports') && /imports nothing outside itself|electron/.test(m))).toBe(true);
  });

  it('rejects src/main/stats importing another engine module', async () => {
    const messages = await lint('src/main/stats/violation.ts', "import { UserError } from '../../shared/errors';\nexport const x = UserError;\n");
    expect(messages.some((m) => m.startsWith('no-restricted-imports'))).toBe(true);
    const node = await lint('src/main/stats/violation.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n");
    expect(node.some((m) => m.startsWith('no-restricted-imports'))).toBe(true);
  });

  it('allows stats modules to import each other', async () => {
    const messages = await lint('src/main/stats/ok.ts', "import { x } from './other';\nexport const y = x;\n");
    expect(messages.filter((m) => m.startsWith('no-restricted-imports'))).toEqual([]);
  });

  it("rejects import 'electron' elsewhere in src/main but allows index.ts, ipc.ts and *.electron.ts", async () => {
    const code = "import { app } from 'electron';\nexport const x = app;\n";
    expect((await lint('src/main/audio/decode.ts', code)).some((m) => m.startsWith('no-restricted-imports'))).toBe(true);
    expect((await lint('src/main/index.ts', code)).filter((m) => m.startsWith('no-restricted-imports'))).toEqual([]);
    expect((await lint('src/main/ipc.ts', code)).filter((m) => m.startsWith('no-restricted-imports'))).toEqual([]);
    expect((await lint('src/main/report/keys.electron.ts', code)).filter((m) => m.startsWith('no-restricted-imports'))).toEqual([]);
  });

  it('rejects the renderer importing src/main', async () => {
    const messages = await lint('src/renderer/src/App.tsx', "import { createApi } from '../../main/api';\nexport const x = createApi;\n");
    expect(messages.some((m) => m.startsWith('no-restricted-imports'))).toBe(true);
  });
  it('refuses SQL outside src/main/store: .prepare, a literal exec and pragma; allows them in store and a RegExp exec anywhere', async () => {
    const prepare = "import type Database from 'better-sqlite3';\nexport const f = (db: Database.Database) => db.prepare('SELECT 1').get();\n";
    const exec = "import type Database from 'better-sqlite3';\nexport const f = (db: Database.Database) => db.exec(`DELETE FROM x`);\n";
    const pragma = "import type Database from 'better-sqlite3';\nexport const f = (db: Database.Database) => db.pragma('journal_mode = WAL');\n";
    const sql = (m: string[]) => m.filter((x) => x.startsWith('no-restricted-syntax') && x.includes('SQL lives in src/main/store'));
    for (const code of [prepare, exec, pragma]) {
      expect(sql(await lint('src/main/audits/planted.ts', code))).toHaveLength(1);
      expect(sql(await lint('src/main/handlers/planted.ts', code))).toHaveLength(1);
      expect(sql(await lint('src/main/store/planted.ts', code))).toEqual([]);
    }
    const regex = "const re = /a(b)/;\nexport const f = (s: string) => re.exec(s);\n";
    expect(sql(await lint('src/main/audits/planted.ts', regex))).toEqual([]);
    // The focused-test rule still holds beside it in src/main.
    expect((await lint('src/main/audits/planted.ts', "declare const it: { only(n: string): void };\nit.only('x');\n")).some((m) => m.includes('focused tests'))).toBe(true);
  });
});

describe('the room table (eslint-rules/layering.mjs)', () => {
  // The relative specifier by which a file under src/ names a module (both relative to the repository).
  const specFor = (file: string, mod: string): string => {
    const spec = posix.relative(posix.dirname(file), mod);
    return spec.startsWith('.') ? spec : `./${spec}`;
  };
  const layering = (messages: string[]): string[] => messages.filter((m) => m.startsWith('equivox/layering'));

  it('rejects an upward import, naming the room, the target and what the room may import', async () => {
    const store = layering(await lint('src/main/store/violation.ts', "import { runAudit } from '../audits/run';\nexport const x = runAudit;\n"));
    expect(store).toEqual([
      'equivox/layering: store (src/main/store/violation.ts) may not import src/main/audits/run (room audits): store may import only itself and base, security, shared, stats (table in eslint-rules/layering.mjs)',
    ]);
    const audio = layering(await lint('src/main/audio/violation.ts', "export { auditHandlers } from '../handlers/audits';\n"));
    expect(audio).toHaveLength(1);
    expect(audio[0]).toMatch(/^equivox\/layering: audio .* may not import src\/main\/handlers\/audits \(room handlers\): audio may import only itself and base, security, shared, stats/);
  });

  it('keeps stats pure: not even src/shared', async () => {
    const messages = layering(await lint('src/main/stats/violation.ts', "import { UserError } from '../../shared/errors';\nexport const x = UserError;\n"));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('stats may import only itself');
  });

  it('counts type imports, re-exports, dynamic imports and import() types', async () => {
    expect(layering(await lint('src/main/handlers/violation.ts', "import type { Engine } from '../engine';\nexport type X = Engine;\n"))).toHaveLength(1);
    expect(layering(await lint('src/main/report/violation.ts', "export * from '../audits/plans';\n"))).toHaveLength(1);
    expect(layering(await lint('src/main/inference/violation.ts', "export const f = async () => (await import('../api')).createApi;\n"))).toHaveLength(1);
    expect(layering(await lint('src/main/data/violation.ts', "export type T = typeof import('../cli/args');\n"))).toHaveLength(1);
  });

  it('allows imports down the layers, sideways where the table says so, and within a room', async () => {
    const ok: [string, string][] = [
      ['src/main/handlers/ok.ts', "import { ProjectStore } from '../store/projects';\nexport const x = ProjectStore;\n"],
      ['src/main/audits/ok.ts', "import { buildReportFiles } from '../report/service';\nexport const x = buildReportFiles;\n"],
      ['src/main/report/ok.ts', "import { toCsv } from '../data/csv';\nimport { unitSeed } from '../stats/seeds';\nexport const x = [toCsv, unitSeed];\n"],
      ['src/main/cluster/ok.ts', "import { ensureModel } from '../inference';\nexport const x = ensureModel;\n"],
      ['src/main/web.ts', "import { createApi } from './api';\nimport { toErrorShape } from './error-shape';\nexport const x = [createApi, toErrorShape];\n"],
      ['src/main/report/keys.electron.ts', "import { createEngine } from '../engine';\nexport const x = createEngine;\n"],
      ['src/renderer/src/ok.tsx', "import type { Project } from '../../shared/api';\nimport type { Nav } from './nav';\nexport type X = [Project, Nav];\n"],
    ];
    for (const [file, code] of ok) expect(layering(await lint(file, code)), file).toEqual([]);
  });

  it('rejects the opposite of a sideways arrow', async () => {
    expect(layering(await lint('src/main/inference/violation.ts', "import { jobStatus } from '../cluster/status';\nexport const x = jobStatus;\n"))).toHaveLength(1);
    expect(layering(await lint('src/main/data/violation.ts', "import { buildReport } from '../report';\nexport const x = buildReport;\n"))).toHaveLength(1);
  });

  it('allows no up-arrow for now (PENDING is empty): jobs/ may not name the tasks above it, job-registry.ts at the top may', async () => {
    expect(PENDING).toEqual([]);
    expect(layering(await lint('src/main/jobs/registry.ts', "import { auditTask } from '../audits/task';\nexport const x = auditTask;\n"))).toHaveLength(1);
    expect(layering(await lint('src/main/job-registry.ts', "import { auditTask } from './audits/task';\nexport const x = auditTask;\n"))).toEqual([]);
  });

  it('rejects a file or an imported module that the table places in no room', async () => {
    const newRoom = layering(await lint('src/main/newroom/x.ts', "import { ProjectStore } from '../store/projects';\nexport const x = ProjectStore;\n"));
    expect(newRoom).toEqual(['equivox/layering: src/main/newroom/x.ts is in no room of the layering table: place its folder or file in ROOMS (eslint-rules/layering.mjs)']);
    expect(layering(await lint('src/main/new-root-file.ts', "import { VERSION } from './version';\nexport const x = VERSION;\n"))).toHaveLength(1);
    expect(layering(await lint('src/main/store/x.ts', "import { x } from '../newroom/x';\nexport const y = x;\n"))).toHaveLength(1);
  });

  it('places every folder under src/ and src/main, and every file directly in src/main, in a room', () => {
    const dirs = (d: string): string[] => readdirSync(d).filter((n) => statSync(`${d}/${n}`).isDirectory());
    const unplaced = [
      ...dirs('src').filter((n) => n !== 'main').map((n) => `src/${n}/x.ts`),
      ...dirs('src/main').map((n) => `src/main/${n}/x.ts`),
      ...readdirSync('src/main').filter((n) => statSync(`src/main/${n}`).isFile()).map((n) => `src/main/${n}`),
    ].filter((f) => roomOf(f) === undefined);
    expect(unplaced).toEqual([]);
  });

  it('is a table of layers: every name in a may list is a room, and no room reaches back to itself', () => {
    for (const [room, { may }] of Object.entries(ROOMS)) {
      for (const next of may) {
        expect(ROOMS[next], `${room} → ${next}`).toBeDefined();
        expect(allowedFrom(next).has(room), `${room} → ${next} → … → ${room}`).toBe(false);
      }
    }
  });

  it('lists only pending arrows that still exist, each with its reason', () => {
    for (const { file, imports, why } of PENDING) {
      expect(readFileSync(file, 'utf8'), `${file} → ${imports}`).toContain(`from '${specFor(file, imports)}'`);
      expect(why.length).toBeGreaterThan(20);
    }
  });
});

describe('the renderer', () => {
  // Relative imports between renderer files form no circle (a screen importing App.tsx back, a step importing its wizard).
  it('has no import cycle', () => {
    const files = execFileSync('git', ['ls-files', 'src/renderer'], { encoding: 'utf8' }).split('\n').filter((f) => /\.tsx?$/.test(f));
    const known = new Set(files);
    const resolve = (from: string, spec: string): string | undefined => {
      const base = posix.normalize(posix.join(posix.dirname(from), spec));
      return [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`].find((c) => known.has(c));
    };
    const edges = new Map<string, string[]>();
    for (const f of files) {
      const specs = [...readFileSync(f, 'utf8').matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.[^']*)'/g)].map((m) => m[1]!);
      edges.set(f, specs.map((s) => resolve(f, s)).filter((t): t is string => t !== undefined));
    }
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (f: string, path: string[]): void => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'open') {
        cycles.push([...path.slice(path.indexOf(f)), f].join(' → '));
        return;
      }
      state.set(f, 'open');
      for (const t of edges.get(f) ?? []) visit(t, [...path, f]);
      state.set(f, 'done');
    };
    for (const f of files) visit(f, []);
    expect(cycles).toEqual([]);
  });
});
