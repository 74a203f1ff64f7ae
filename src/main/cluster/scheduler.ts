/**
 * The scheduler's view of a job, where its tools are installed: `squeue` (tasks waiting
 * or running) and `sacct` (finished tasks, when the site keeps accounting). Asked by the
 * job name written into submit.sbatch; read-only, with a time limit, and never required:
 * `cluster status` counts shards from the files alone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { SchedulerView } from '../../shared/api/cluster';

export function onPath(tool: string, path = process.env.PATH ?? ''): boolean {
  return path.split(delimiter).some((d) => d !== '' && existsSync(join(d, tool)));
}

function ask(tool: 'squeue' | 'sacct', args: string[]): { ok: boolean; lines: string[]; message?: string } {
  const r = spawnSync(tool, args, { encoding: 'utf8', timeout: 15_000 });
  if (r.error) return { ok: false, lines: [], message: r.error.message };
  if (r.status !== 0) return { ok: false, lines: [], message: (r.stderr || r.stdout).trim().split('\n')[0] || `${tool} exited with ${r.status}` };
  // sacct prints some refusals on stdout with exit code 0.
  const lines = r.stdout.split('\n').filter((l) => l.trim() !== '');
  if (tool === 'sacct' && lines.length === 1 && !lines[0]!.includes('|')) return { ok: false, lines: [], message: lines[0]!.trim() };
  return { ok: true, lines };
}

/** `since`: the job's creation date (sacct only looks back to midnight by default). */
export function schedulerView(jobName: string, since: string): SchedulerView[] {
  const views: SchedulerView[] = [];
  if (onPath('squeue')) {
    const r = ask('squeue', ['--noheader', '--array', `--name=${jobName}`, '--format=%i|%T|%M|%R']);
    views.push({
      tool: 'squeue',
      ok: r.ok,
      ...(r.message ? { message: r.message } : {}),
      tasks: r.lines.map((l) => {
        const [id = '', state = '', elapsed = '', reason = ''] = l.trim().split('|');
        return { id, state, detail: `running for ${elapsed}; ${reason}` };
      }),
    });
  }
  if (onPath('sacct')) {
    const day = since.slice(0, 10);
    const r = ask('sacct', ['--noheader', '--parsable2', `--name=${jobName}`, `--starttime=${day}`, '--format=JobID,State,ExitCode,Elapsed,NodeList']);
    views.push({
      tool: 'sacct',
      ok: r.ok,
      ...(r.message ? { message: r.message } : {}),
      tasks: r.lines
        .map((l) => l.split('|'))
        // Steps ("123_4.batch") repeat their task; keep one line per task.
        .filter(([id]) => id !== undefined && !id.includes('.'))
        .map(([id = '', state = '', exit = '', elapsed = '', nodes = '']) => ({ id, state, detail: `exit ${exit}, ${elapsed} on ${nodes}` })),
    });
  }
  return views;
}
