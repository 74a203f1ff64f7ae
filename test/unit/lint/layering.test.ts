import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

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
