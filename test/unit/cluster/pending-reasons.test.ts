/**
 * squeue's reason codes in words (issue 20.4). The real PartitionConfig, JobHeldUser and
 * BeginTime come from a real Slurm in slurm.test.ts; this table checks the words of every
 * common reason, and which of them mean the job can never start as it is.
 */
import { describe, expect, it } from 'vitest';
import { explainPendingReason, gpusIn, memoryMb, type PartitionLimits } from '../../../src/main/cluster/pending-reasons';
import { squeueTask } from '../../../src/main/cluster/scheduler';

const request = { partition: 'gpu', cpus: 8, memoryMb: null, gres: null };
const node: PartitionLimits = { maxCpus: 4, cpusCappedByPartition: false, maxMemoryMb: 64_000, maxGpus: 2, maxTime: '2-00:00:00' };

describe('pending reasons in words', () => {
  it.each([
    ['PartitionConfig', true, /^it can never start on partition gpu: the job asks 8 CPUs per task and the nodes of partition gpu have at most 4 CPUs\. Cancel it .*smaller --cpus-per-task/],
    ['PartitionNodeLimit', true, /^it can never start on partition gpu as asked: the number of nodes/],
    ['PartitionTimeLimit', true, /^it can never start on partition gpu: its time limit is longer than the partition allows \(at most 2-00:00:00\)\. .*shorter --time/],
    ['Resources', false, /^waiting for free resources: the nodes it fits on are busy/],
    ['Priority', false, /^waiting its turn: jobs with a higher priority come first/],
    ['ReqNodeNotAvail', false, /^a node it needs is not available \(down, drained, or reserved/],
    ['QOSMaxCpuPerUserLimit', false, /^your running jobs already use as many CPUs as the quality of service \(QOS\) allows one user/],
    ['AssocGrpCpuLimit', false, /^the jobs of your account already use all the CPUs the account may use at once/],
    ['BeginTime', false, /^it was submitted to start later \(sbatch --begin\)/],
    ['Dependency', false, /^it waits for another job to finish first/],
    ['DependencyNeverSatisfied', true, /will never start/],
    ['JobHeldUser', true, /^it is held .*scontrol release JOBID/],
    ['JobHeldAdmin', true, /^it is held by the cluster's admin/],
    ['BadConstraints', true, /match no node/],
    ['QOSMaxWallDurationPerJobLimit', true, /longer than the quality of service allows/],
  ] as const)('%s', (code, blocked, words) => {
    const r = explainPendingReason(code, request, node);
    expect(r).toMatchObject({ code, blocked });
    expect(r.words).toMatch(words);
  });

  it('PartitionConfig names what is too big: CPUs (the nodes’ or the partition’s cap), GPUs, memory, or all three when the limits are unknown', () => {
    expect(explainPendingReason('PartitionConfig', { ...request, cpus: 2 }, { ...node, maxCpus: 1, cpusCappedByPartition: true }).words).toMatch(
      /^it can never start on partition gpu: the job asks 2 CPUs per task and partition gpu lets a job use at most 1 CPU per node \(MaxCPUsPerNode\)\./,
    );
    expect(explainPendingReason('PartitionConfig', { ...request, cpus: 1, gres: 'gres/gpu:4' }, node).words).toMatch(/the job asks 4 GPUs per task and the nodes of partition gpu have at most 2\./);
    expect(explainPendingReason('PartitionConfig', { ...request, cpus: 1, memoryMb: 128_000 }, node).words).toMatch(/the job asks 128000 MB of memory per node and the nodes of partition gpu have at most 64000 MB\./);
    expect(explainPendingReason('PartitionConfig', request, null).words).toMatch(/^it can never start on partition gpu: the job asks more CPUs, GPUs or memory than any node of partition gpu has\./);
  });

  it('an unknown code is passed on, not guessed at', () => {
    expect(explainPendingReason('SomethingNew', request, null)).toEqual({ code: 'SomethingNew', blocked: false, words: 'squeue gives the reason "SomethingNew" (see "JOB REASON CODES" in man squeue).' });
  });

  it('reads squeue’s resource fields', () => {
    expect([gpusIn('gres/gpu:2'), gpusIn('gpu:a100:3'), gpusIn('gres:gpu:1'), gpusIn('gpu'), gpusIn('N/A'), gpusIn('(null)'), gpusIn('gres/shard:2')]).toEqual([2, 3, 1, 1, null, null, null]);
    expect([memoryMb('2000M'), memoryMb('4G'), memoryMb('512K'), memoryMb('0'), memoryMb('')]).toEqual([2000, 4096, 0.5, null, null]);
  });

  it('one squeue line per task: running ones say where, pending ones why (asking the partition’s limits only when the words need them)', () => {
    const asked: string[] = [];
    const limits = (p: string) => {
      asked.push(p);
      return node;
    };
    expect(squeueTask('41_0|RUNNING|1:02|None|gpu|8|0|N/A|node7', limits)).toEqual({ id: '41_0', state: 'RUNNING', detail: 'running for 1:02 on node7' });
    expect(squeueTask('41_1|PENDING|0:00|Priority|gpu|8|0|N/A|', limits).reason).toMatchObject({ code: 'Priority', blocked: false });
    expect(asked).toEqual([]);
    const t = squeueTask('41_2|PENDING|0:00|PartitionConfig|gpu|8|0|N/A|', limits);
    expect(asked).toEqual(['gpu']);
    expect(t.detail).toBe(`pending (PartitionConfig): ${t.reason!.words}`);
    expect(t.reason).toMatchObject({ code: 'PartitionConfig', blocked: true, words: expect.stringMatching(/asks 8 CPUs per task and the nodes of partition gpu have at most 4 CPUs/) });
  });
});
