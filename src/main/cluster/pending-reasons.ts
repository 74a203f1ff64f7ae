/**
 * Why a Slurm task is still waiting, in words an auditor (or the cluster's admin) can act
 * on. squeue gives a reason code (`%r`, see squeue(1) "JOB REASON CODES"); a job that can
 * never start there (PartitionConfig: it asks more than any node of the partition has)
 * waits forever without a word, and `sbatch --wait` with it (issue 20.4). Pure: the
 * partition's limits are passed in by scheduler.ts, which asks sinfo and scontrol.
 */

/** What the waiting task asks for, from squeue. */
export interface TaskRequest {
  partition: string;
  /** CPUs the task asks (`%C`), when squeue says. */
  cpus: number | null;
  /** Memory per node in MB (`%m`), when set. */
  memoryMb: number | null;
  /** Generic resources per node (`%b`, e.g. `gres/gpu:2`), when any. */
  gres: string | null;
}

/** The partition's largest node, from sinfo and scontrol (null where they did not say). */
export interface PartitionLimits {
  /** The most CPUs a node of the partition has, after the partition's MaxCPUsPerNode. */
  maxCpus: number | null;
  /** Whether that maximum is the partition's MaxCPUsPerNode rather than the nodes' own. */
  cpusCappedByPartition: boolean;
  maxMemoryMb: number | null;
  /** GPUs on the partition's best-equipped node (0 when none has any). */
  maxGpus: number | null;
  maxTime: string | null;
}

export interface PendingReason {
  code: string;
  words: string;
  /** True when the task cannot start where it is without a change (cancel, change, resubmit). */
  blocked: boolean;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `gres/gpu:2`, `gpu:a100:2`, `gres:gpu:1`: the GPU count asked, or null. */
export function gpusIn(gres: string | null): number | null {
  if (!gres || gres === 'N/A' || gres === '(null)') return null;
  let total = 0;
  let found = false;
  for (const part of gres.split(',')) {
    if (!/\bgpu\b/.test(part)) continue;
    found = true;
    const n = Number(/:(\d+)(?:\(|$)/.exec(part)?.[1] ?? '1');
    total += Number.isFinite(n) ? n : 1;
  }
  return found ? total : null;
}

/** squeue's `%m`: "2000M", "4G", "0" (none). */
export function memoryMb(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([KMGT]?)$/i.exec(text.trim());
  if (!m) return null;
  const n = Number(m[1]);
  if (n === 0) return null;
  const scale = { '': 1, K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024 }[m[2]!.toUpperCase() as '' | 'K' | 'M' | 'G' | 'T'];
  return n * scale;
}

/** What exceeds the partition's largest node, in words ("it asks 3 CPUs; … have at most 2"). */
function tooBig(r: TaskRequest, p: PartitionLimits | null): string {
  const where = `partition ${r.partition}`;
  if (p) {
    if (r.cpus !== null && p.maxCpus !== null && r.cpus > p.maxCpus) {
      const limit = p.cpusCappedByPartition ? `${where} lets a job use at most ${plural(p.maxCpus, 'CPU')} per node (MaxCPUsPerNode)` : `the nodes of ${where} have at most ${plural(p.maxCpus, 'CPU')}`;
      return `the job asks ${plural(r.cpus, 'CPU')} per task and ${limit}`;
    }
    const gpus = gpusIn(r.gres);
    if (gpus !== null && p.maxGpus !== null && gpus > p.maxGpus) return `the job asks ${plural(gpus, 'GPU')} per task and the nodes of ${where} have at most ${p.maxGpus}`;
    if (r.memoryMb !== null && p.maxMemoryMb !== null && r.memoryMb > p.maxMemoryMb) return `the job asks ${Math.round(r.memoryMb)} MB of memory per node and the nodes of ${where} have at most ${Math.round(p.maxMemoryMb)} MB`;
  }
  return `the job asks more CPUs, GPUs or memory than any node of ${where} has`;
}

/**
 * The reason code of a pending task in words. Codes not listed are passed on with a
 * pointer to squeue's manual rather than guessed at.
 */
export function explainPendingReason(code: string, r: TaskRequest, p: PartitionLimits | null): PendingReason {
  const part = `partition ${r.partition}`;
  const fixSize = `Cancel it (scancel), then export the job again with a smaller --cpus-per-task (or --gpus-per-task), or choose another partition with --partition, or edit the #SBATCH lines of submit.sbatch.`;
  const table: Record<string, [string, boolean]> = {
    PartitionConfig: [`it can never start on ${part}: ${tooBig(r, p)}. ${fixSize}`, true],
    PartitionNodeLimit: [`it can never start on ${part} as asked: the number of nodes it asks is outside what the partition allows, or the partition's nodes are down or drained. Ask the cluster's admin, or choose another partition.`, true],
    PartitionTimeLimit: [`it can never start on ${part}: its time limit is longer than the partition allows${p?.maxTime ? ` (at most ${p.maxTime})` : ''}. Cancel it and export again with a shorter --time.`, true],
    PartitionDown: [`${part} is down; the task waits until the cluster's admin brings it back up.`, false],
    PartitionInactive: [`${part} is inactive; the task waits until the cluster's admin activates it.`, false],
    Resources: ['waiting for free resources: the nodes it fits on are busy. It starts when enough CPUs, GPUs and memory are free.', false],
    Priority: ['waiting its turn: jobs with a higher priority come first.', false],
    ReqNodeNotAvail: ['a node it needs is not available (down, drained, or reserved, for example for maintenance). It starts when the node is back, or when a reservation ends.', false],
    NodeDown: ['a node it needs is down; it starts when the node is back.', false],
    Reservation: ['waiting for its advance reservation to begin.', false],
    QOSMaxCpuPerUserLimit: ['your running jobs already use as many CPUs as the quality of service (QOS) allows one user; it starts when some of them finish.', false],
    QOSMaxGRESPerUser: ['your running jobs already use as many GPUs (or other generic resources) as the quality of service allows one user; it starts when some of them finish.', false],
    QOSMaxJobsPerUserLimit: ['you already run as many jobs as the quality of service allows one user; it starts when some of them finish.', false],
    QOSGrpCpuLimit: ['the jobs of your quality of service already use all the CPUs it allows; it starts when some of them finish.', false],
    QOSMaxWallDurationPerJobLimit: ['its time limit is longer than the quality of service allows: it will not start. Cancel it and export again with a shorter --time.', true],
    AssocGrpCpuLimit: ['the jobs of your account already use all the CPUs the account may use at once; it starts when some of them finish.', false],
    AssocGrpGRES: ['the jobs of your account already use all the GPUs (or other generic resources) the account may use at once; it starts when some of them finish.', false],
    AssocGrpMemLimit: ['the jobs of your account already use all the memory the account may use at once; it starts when some of them finish.', false],
    AssocGrpJobsLimit: ['your account already runs as many jobs as it may at once; it starts when some of them finish.', false],
    AssocMaxJobsLimit: ['you already run as many jobs as your account allows; it starts when some of them finish.', false],
    AssocGrpCPUMinutesLimit: ['your account has used up its CPU time; ask the cluster\'s admin for more.', true],
    BeginTime: ['it was submitted to start later (sbatch --begin) and waits until then.', false],
    Dependency: ['it waits for another job to finish first (sbatch --dependency).', false],
    DependencyNeverSatisfied: ['it waits for a job that failed or was cancelled, so it will never start. Cancel it and submit again without the dependency.', true],
    JobHeldUser: ['it is held (submitted with --hold, or held with scontrol hold). Release it with: scontrol release JOBID', true],
    JobHeldAdmin: ['it is held by the cluster\'s admin; ask them to release it.', true],
    BadConstraints: ['its constraints (--constraint, node features) match no node: it will never start as it is. Cancel it and change the #SBATCH lines.', true],
    InvalidAccount: ['its account is not valid on this cluster; cancel it and submit with a valid --account.', true],
    InvalidQOS: ['its quality of service (QOS) is not valid for your account; cancel it and submit with a valid --qos.', true],
    'launch failed requeued held': ['Slurm could not start it and held it; ask the cluster\'s admin (scontrol show job JOBID says why).', true],
    None: ['just submitted: the scheduler has not looked at it yet.', false],
  };
  const known = Object.hasOwn(table, code) ? table[code] : undefined;
  if (known) return { code, words: known[0], blocked: known[1] };
  return { code, words: `squeue gives the reason "${code}" (see "JOB REASON CODES" in man squeue).`, blocked: false };
}
