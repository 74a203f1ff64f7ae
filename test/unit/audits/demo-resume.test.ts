/**
 * The acceptance for resumability: killing `equivox demo` during embedding
 * extraction or during SER training and re-running gives the same numbers as an
 * uninterrupted run. Runs the real CLI (two built-in models, the bundled corpus) twice:
 * once uninterrupted into A; once into B, SIGKILLed when embedding job 2 starts and again
 * when SER training reports progress, then re-run to completion. results.json of A and
 * B must agree in every field apart from ids, timestamps and the plan's lock hash (which
 * covers dataset ids).
 *
 * Takes about 3.5 minutes here (one full demo plus the interrupted and resumed runs).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDir } from './fixture';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

interface RunOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  killedAt: string | null;
  stderr: string;
}

/** Run the CLI demo; SIGKILL its process group at the first stderr line starting with `killOn`. */
function demo(home: string, out: string, killOn: string | null): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    // node --import tsx: one process (npx and the tsx binary would add parents a kill misses).
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'demo', '--fast', '--out', out], {
      env: { ...process.env, EQUIVOX_HOME: home },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    let partial = '';
    let killedAt: string | null = null;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      partial += chunk;
      const lines = partial.split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (killOn !== null && killedAt === null && line.startsWith(killOn)) {
          killedAt = line;
          process.kill(-child.pid!, 'SIGKILL');
        }
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, killedAt, stderr }));
  });
}

/** Stable names for the project's UUIDs: datasets by role, clips by role and row. */
function idNames(out: string): Map<string, string> {
  const db = new Database(join(out, 'project', 'project.sqlite'), { readonly: true });
  try {
    const names = new Map<string, string>();
    const project = db.prepare('SELECT id FROM project').get() as { id: string };
    names.set(project.id, 'project');
    for (const d of db.prepare('SELECT id, role FROM datasets').all() as { id: string; role: string }[]) names.set(d.id, `dataset:${d.role}`);
    for (const c of db.prepare('SELECT c.id, c.row_index, d.role FROM clips c JOIN datasets d ON d.id = c.dataset_id').all() as { id: string; row_index: number; role: string }[]) {
      names.set(c.id, `clip:${c.role}:${c.row_index}`);
    }
    for (const p of db.prepare('SELECT id FROM plans').all() as { id: string }[]) names.set(p.id, 'plan');
    for (const a of db.prepare('SELECT id FROM audits').all() as { id: string }[]) names.set(a.id, 'audit');
    return names;
  } finally {
    db.close();
  }
}

/** results.json with ids replaced by stable names and timestamps removed; any other UUID fails. */
function comparable(out: string): unknown {
  const names = idNames(out);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (UUID.test(v)) {
        const n = names.get(v);
        if (!n) throw new Error(`unexplained UUID ${v} in results.json`);
        return n;
      }
      return ISO.test(v) ? '<time>' : v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const results = walk(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'))) as { audit: { planSha256: string | null } };
  // The lock hash covers the plan and its inputs, which name the datasets by their random
  // ids: it differs between two projects by construction. Keep its form, not its value.
  expect(results.audit.planSha256).toMatch(/^[0-9a-f]{64}$/);
  results.audit.planSha256 = '<lock hash>';
  return results;
}

describe('demo resume after SIGKILL', () => {
  it('gives the same results.json as an uninterrupted run', { timeout: 15 * 60_000 }, async () => {
    const home = tempDir('demo-home');
    const root = tempDir('demo-out');
    const A = join(root, 'A');
    const B = join(root, 'B');

    const full = await demo(home, A, null);
    expect(full.code, full.stderr.slice(-2000)).toBe(0);

    const first = await demo(home, B, 'Embedding (2/');
    expect(first.killedAt, first.stderr.slice(-2000)).not.toBeNull();
    expect(first.signal).toBe('SIGKILL');

    const second = await demo(home, B, 'SER training');
    expect(second.stderr).toMatch(/resuming audit/);
    expect(second.killedAt, second.stderr.slice(-2000)).not.toBeNull();
    expect(second.signal).toBe('SIGKILL');

    const last = await demo(home, B, null);
    expect(last.code, last.stderr.slice(-2000)).toBe(0);
    expect(last.stderr).toMatch(/resuming audit/);

    const a = comparable(A) as { speat: unknown; ser: unknown; wer: unknown; fdi: unknown };
    const b = comparable(B) as typeof a;
    // Section by section first, for a readable diff, then everything.
    expect(b.speat).toEqual(a.speat);
    expect(b.ser).toEqual(a.ser);
    expect(b.wer).toEqual(a.wer);
    expect(b.fdi).toEqual(a.fdi);
    expect(b).toEqual(a);
  });
});
