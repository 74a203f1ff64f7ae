// Stands in for EQUIVOX_CLI in the one-node Slurm test. It runs the job's real command
// (EQUIVOX_REAL_CLI) and passes everything through; for the array task EQUIVOX_KILL_SHARD
// it asks for a progress line per clip and, on the first one showing at least
// EQUIVOX_KILL_AFTER clips done (and fewer than all), freezes Equivox (SIGSTOP, so the
// shard cannot finish meanwhile) and has Slurm kill the whole task:
// `scancel --signal=KILL --full <array job>_<task>`. The shard is then killed mid-way,
// by the scheduler, at a point the test knows.
import { execFileSync, spawn } from 'node:child_process';

const real = (process.env.EQUIVOX_REAL_CLI ?? '').split(' ').filter(Boolean);
if (real.length === 0) {
  process.stderr.write('cluster-kill-wrapper: EQUIVOX_REAL_CLI is not set\n');
  process.exit(2);
}
const task = process.env.SLURM_ARRAY_TASK_ID;
const target = task !== undefined && task === process.env.EQUIVOX_KILL_SHARD;
const after = Number(process.env.EQUIVOX_KILL_AFTER ?? '2');
const args = [...real.slice(1), ...process.argv.slice(2), ...(target ? ['--progress-every', '0'] : [])];
const child = spawn(real[0], args, { stdio: ['ignore', 'inherit', 'pipe'] });
let pending = '';
let fired = false;
child.stderr.setEncoding('utf8');
child.stderr.on('data', (chunk) => {
  process.stderr.write(chunk);
  if (!target || fired) return;
  pending += chunk;
  const lines = pending.split('\n');
  pending = lines.pop();
  for (const line of lines) {
    const m = / (\d+)\/(\d+) clips /.exec(line);
    if (!m || Number(m[1]) < after || Number(m[1]) >= Number(m[2])) continue;
    fired = true;
    child.kill('SIGSTOP');
    process.stderr.write(`cluster-kill-wrapper: froze Equivox at "${line.trim()}"; scancel --signal=KILL --full\n`);
    execFileSync('scancel', ['--signal=KILL', '--full', `${process.env.SLURM_ARRAY_JOB_ID}_${task}`], { stdio: 'inherit' });
    return;
  }
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
