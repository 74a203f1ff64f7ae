/**
 * Worker thread for `stats speat`'s bootstrap (see speat-threads.ts): waits for the job,
 * then takes sizes from the shared queue until it is empty, posting each size's SE.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BootstrapPlan } from '../stats/speat';
import type { BootstrapJob, BootstrapWorkerData, BootstrapWorkerMessage } from './speat-threads';

const { queue, id } = workerData as BootstrapWorkerData;
const port = parentPort!;

port.once('message', (job: BootstrapJob) => {
  const plan = new BootstrapPlan(job.sX, job.sY, job.options);
  const next = new Int32Array(queue, 0, 1);
  const owners = new Int32Array(queue, 4, job.sizes.length);
  for (;;) {
    const t = Atomics.add(next, 0, 1);
    if (t >= job.order.length) break;
    const index = job.order[t]!;
    Atomics.store(owners, index, id);
    const message: BootstrapWorkerMessage = { index, point: plan.point(job.sizes[index]!, index) };
    port.postMessage(message);
  }
  port.close();
});
