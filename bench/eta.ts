/**
 * How honest is "time left"? Runs the one-click demo job (quick settings) twice in a new
 * data folder: the first run starts from the speeds measured while building Equivox and
 * records this computer's; the second starts from those. At 10, 25, 50 and 75 % of each
 * run it prints the time left the app showed against the time that was actually left.
 *
 *   npx tsx bench/eta.ts [--runs 2]
 *
 * Figures only; tests never assert timings. State the machine's load beside the figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobProgress } from '../src/shared/api';
import { estimateDemo } from '../src/main/audits/task';
import { createEngine } from '../src/main/engine';

const runsArg = process.argv.indexOf('--runs');
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 2;
const home = mkdtempSync(join(tmpdir(), 'equivox-bench-eta-'));
const engine = createEngine({ host: 'cli', dataDir: home });

try {
  console.log(`load average at start: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  for (let run = 1; run <= runs; run += 1) {
    const estimate = await estimateDemo(home, true);
    const estimated = estimate.importSeconds.reduce((a, b) => a + b, 0) + estimate.auditSeconds;
    const project = engine.store.create(`ETA bench ${run}`, join(home, `project-${run}`));
    const samples: { t: number; p: JobProgress }[] = [];
    const start = Date.now();
    const { result } = engine.jobs.start('demo.run', { projectPath: project.path, dataDir: home, quick: true }, { onProgress: (p) => samples.push({ t: Date.now(), p }) });
    await result;
    const total = (Date.now() - start) / 1000;
    console.log(`\nrun ${run}: estimated before the start ${estimated.toFixed(0)} s (${estimate.measured ? 'from speeds measured here' : 'from the build machine’s speeds'}), took ${total.toFixed(0)} s`);
    console.log('  done   shown left   actually left   shown / actual');
    for (const mark of [0.1, 0.25, 0.5, 0.75]) {
      const s = samples.find((x) => (x.p.fraction ?? 0) >= mark && x.p.etaSeconds !== null);
      if (!s) continue;
      const left = (start + total * 1000 - s.t) / 1000;
      console.log(`  ${String(Math.round(mark * 100)).padStart(3)} %   ${s.p.etaSeconds!.toFixed(0).padStart(6)} s   ${left.toFixed(0).padStart(9)} s   ${(s.p.etaSeconds! / left).toFixed(2).padStart(10)}`);
    }
  }
  console.log(`\nload average at end: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
} finally {
  await engine.close();
  rmSync(home, { recursive: true, force: true });
}
