/**
 * Issue 23.1's acceptance through the real web host (node --import tsx src/main/web.ts,
 * as test/e2e/web-host.ts starts it): a FIFO is granted in the in-app chooser and handed
 * to reports.verify and models.import; while those requests are in flight, 100 app.info
 * calls must all answer within 100 ms. Before security/input-file.ts the verify read the
 * FIFO on the host's event loop and every later request timed out.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type RunningHost } from '../../e2e/web-host';

let host: RunningHost;
const dir = mkdtempSync(join(tmpdir(), 'equivox-web-fifo-'));
const fifo = join(dir, 'report.pdf');

async function call(op: string, input: unknown, timeoutMs = 10_000): Promise<{ status: number; body: { ok: boolean; result?: unknown; error?: { code: string; message: string; field?: string } } }> {
  const res = await fetch(`${host.base}/api/invoke/${op}`, {
    method: 'POST',
    headers: { 'X-Equivox-Token': host.token, 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, body: (await res.json()) as { ok: boolean } };
}

beforeAll(async () => {
  execFileSync('mkfifo', [fifo]);
  host = await startHost();
}, 90_000);

afterAll(async () => {
  await host?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a FIFO given to the web host', () => {
  it('while reports.verify and models.import get a FIFO, 100 app.info calls all answer within 100 ms; the FIFO requests are refused, naming it', async () => {
    // Granted in the in-app chooser, as a user (or a script in the page) would.
    expect((await call('files.grant', { path: fifo, purpose: 'pdf' })).status).toBe(200);
    // Warm up: the first call of an operation loads its modules (the PDF stack, onnxruntime),
    // which holds the event loop once whatever the path; that is not what is measured here.
    expect((await call('app.info', {})).status).toBe(200);
    for (const [name, op, input] of [['junk.pdf', 'reports.verify', 'path'], ['junk.onnx', 'models.import', 'file']] as const) {
      writeFileSync(join(dir, name), 'not what it says');
      expect((await call('files.grant', { path: join(dir, name) })).status).toBe(200);
      expect((await call(op, { [input]: join(dir, name) })).status).not.toBe(500);
    }

    // Up to three rounds: on a loaded shared machine one scheduling hiccup can pass 100 ms;
    // a host that a FIFO stalls fails every round (its calls time out after 5 s).
    const maxima: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const verify = call('reports.verify', { path: fifo });
      const model = call('models.import', { file: fifo });
      const latencies: number[] = [];
      for (let i = 0; i < 100; i += 1) {
        const t0 = performance.now();
        const r = await call('app.info', {}, 5_000);
        latencies.push(performance.now() - t0);
        expect(r.status).toBe(200);
      }
      expect(latencies).toHaveLength(100);
      const max = Math.max(...latencies);
      maxima.push(max);
      console.log(`round ${round + 1}: 100 app.info calls beside the FIFO requests all answered; max latency ${max.toFixed(1)} ms (call ${latencies.indexOf(max) + 1}), median ${[...latencies].sort((a, b) => a - b)[50]!.toFixed(1)} ms`);
      for (const r of [await verify, await model]) {
        expect(r.status).toBe(422);
        expect(r.body.error).toMatchObject({ code: 'user', message: expect.stringContaining(`${fifo} is a named pipe (FIFO)`) });
      }
      if (max < 100) break;
    }
    expect(Math.min(...maxima)).toBeLessThan(100);
  }, 60_000);
});
