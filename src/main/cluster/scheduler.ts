/**
 * The scheduler's view of a job, where its tools are installed: `squeue` (tasks waiting
 * or running) and `sacct` (finished tasks, when the site keeps accounting). Asked by the
 * job name written into submit.sbatch; read-only, with a time limit, and never required:
 * `cluster status` counts shards from the files alone. A waiting task carries squeue's
 * reason in words (pending-reasons.ts); for a task too big for its partition, sinfo and
 * scontrol are asked what the partition's nodes have, so the words can say by how much.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { SchedulerTask, SchedulerView } from '../../shared/api/cluster';
import { explainPendingReason, gpusIn, memoryMb, type PartitionLimits } from './pending-reasons';

export function onPath(tool: string, path = process.env.PATH ?? ''): boolean {
  return path.split(delimiter).some((d) => d !== '' && existsSync(join(d, tool)));
}

function ask(tool: 'squeue' | 'sacct' | 'sinfo' | 'scontrol', args: string[]): { ok: boolean; lines: string[]; message?: string } {
  const r = spawnSync(tool, args, { encoding: 'utf8', timeout: 15_000 });
  if (r.error) return { ok: false, lines: [], message: r.error.message };
  if (r.status !== 0) return { ok: false, lines: [], message: (r.stderr || r.stdout).trim().split('\n')[0] || `${tool} exited with ${r.status}` };
  // sacct prints some refusals on stdout with exit code 0.
  const lines = r.stdout.split('\n').filter((l) => l.trim() !== '');
  if (tool === 'sacct' && lines.length === 1 && !lines[0]!.includes('|')) return { ok: false, lines: [], message: lines[0]!.trim() };
  return { ok: true, lines };
}

/** The partition's largest node and limits, from sinfo and scontrol; null where neither answers. */
export function partitionLimits(partition: string): PartitionLimits | null {
  const nodes = onPath('sinfo') ? ask('sinfo', ['--noheader', `--partition=${partition}`, '--format=%c|%m|%G']) : { ok: false, lines: [] };
  const conf = onPath('scontrol') ? ask('scontrol', ['show', 'partition', partition, '--oneliner']) : { ok: false, lines: [] };
  if (!nodes.ok && !conf.ok) return null;
  let maxCpus: number | null = null;
  let maxMemoryMb: number | null = null;
  let maxGpus: number | null = null;
  for (const line of nodes.lines) {
    const [cpus = '', mem = '', gres = ''] = line.trim().split('|');
    const c = Number(cpus.replace(/\+$/, ''));
    if (Number.isFinite(c) && c > 0) maxCpus = Math.max(maxCpus ?? 0, c);
    const m = memoryMb(mem.replace(/\+$/, ''));
    if (m !== null) maxMemoryMb = Math.max(maxMemoryMb ?? 0, m);
    maxGpus = Math.max(maxGpus ?? 0, gpusIn(gres) ?? 0);
  }
  const text = conf.lines.join(' ');
  const capText = /\bMaxCPUsPerNode=(\d+)/.exec(text)?.[1];
  const cap = capText !== undefined ? Number(capText) : null;
  const cappedByPartition = cap !== null && (maxCpus === null || cap < maxCpus);
  const maxTime = /\bMaxTime=(\S+)/.exec(text)?.[1] ?? null;
  return {
    maxCpus: cappedByPartition ? cap : maxCpus,
    cpusCappedByPartition: cappedByPartition,
    maxMemoryMb,
    maxGpus: nodes.ok ? maxGpus : null,
    maxTime: maxTime === 'UNLIMITED' ? null : maxTime,
  };
}

/** squeue's fields, in the order of SQUEUE_FORMAT. */
const SQUEUE_FORMAT = '--format=%i|%T|%M|%r|%P|%C|%m|%b|%N';

/** One squeue line as a task; a pending one with its reason in words. */
export function squeueTask(line: string, limits: (partition: string) => PartitionLimits | null): SchedulerTask {
  const [id = '', state = '', elapsed = '', reason = '', partition = '', cpus = '', mem = '', gres = '', nodes = ''] = line.trim().split('|');
  if (state !== 'PENDING') return { id, state, detail: `running for ${elapsed}${nodes ? ` on ${nodes}` : ''}${reason && reason !== 'None' ? `; ${reason}` : ''}` };
  const cpuCount = Number(cpus);
  const request = { partition, cpus: Number.isInteger(cpuCount) && cpuCount > 0 ? cpuCount : null, memoryMb: memoryMb(mem), gres: gres === '' || gres === 'N/A' ? null : gres };
  // Only the reasons whose words name the partition's limits ask sinfo and scontrol.
  const needsLimits = reason === 'PartitionConfig' || reason === 'PartitionTimeLimit';
  const explained = explainPendingReason(reason, request, needsLimits ? limits(partition) : null);
  return { id, state, detail: `pending (${reason}): ${explained.words}`, reason: explained };
}

/** `since`: the job's creation date (sacct only looks back to midnight by default). */
export function schedulerView(jobName: string, since: string): SchedulerView[] {
  const views: SchedulerView[] = [];
  if (onPath('squeue')) {
    const r = ask('squeue', ['--noheader', '--array', `--name=${jobName}`, SQUEUE_FORMAT]);
    const cache = new Map<string, PartitionLimits | null>();
    const limits = (p: string) => {
      if (!cache.has(p)) cache.set(p, partitionLimits(p));
      return cache.get(p)!;
    };
    views.push({
      tool: 'squeue',
      ok: r.ok,
      ...(r.message ? { message: r.message } : {}),
      tasks: r.lines.map((l) => squeueTask(l, limits)),
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
