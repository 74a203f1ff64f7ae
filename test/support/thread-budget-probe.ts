/**
 * The budget where job processes cannot be started (inside Electron): the model jobs run
 * in worker threads. Run as its own process by test/unit/jobs/model-budget.test.ts, which
 * kills it afterwards, since a thread held inside onnxruntime cannot be ended and would
 * keep this process (and a core) busy. Prints one JSON line.
 *
 * Usage: node --import tsx test/support/thread-budget-probe.ts MODEL.onnx DATADIR
 */
import '../../src/main/security/telemetry-off';
import { JobRunner } from '../../src/main/jobs/runner';

const [file, dataDir] = process.argv.slice(2) as [string, string];
const runner = new JobRunner();
runner.modelProcesses = false;
const started = performance.now();
// The runner's own thread keeps answering: the largest delay of a 20 ms timer while the job runs.
let worstLag = 0;
let last = performance.now();
const tick = setInterval(() => {
  const now = performance.now();
  worstLag = Math.max(worstLag, now - last - 20);
  last = now;
}, 20);
let error = '';
try {
  await runner.start('models.import', { dataDir, file }).result;
} catch (err) {
  error = (err as Error).message;
}
const failedAfter = (performance.now() - started) / 1000;
clearInterval(tick);
// What the thread does after the runner gave up on it: CPU time over the next second.
const cpu0 = process.cpuUsage();
await new Promise((r) => setTimeout(r, 1000));
const cpu = process.cpuUsage(cpu0);
process.stdout.write(`${JSON.stringify({ error, failedAfter, worstLag, cpuSecondsAfter: (cpu.user + cpu.system) / 1e6 })}\n`);
