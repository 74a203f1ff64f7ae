/**
 * Positive control for no-network.mjs: run the same way as the demo, it tries to reach
 * the network from the main thread and from a worker thread. Every attempt must appear
 * in EQUIVOX_NETLOG, or the guard is not watching workers and proves nothing.
 */
import { get } from 'node:http';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';

async function attempt() {
  const results = [];
  try {
    await new Promise((resolve, reject) => {
      const req = get('http://127.0.0.1:9/', resolve);
      req.on('error', reject);
    });
    results.push('http.get connected');
  } catch (err) {
    results.push(`http.get refused: ${err.code ?? err.message}`);
  }
  try {
    await fetch('http://127.0.0.1:9/');
    results.push('fetch connected');
  } catch (err) {
    results.push(`fetch refused: ${err.code ?? err.message}`);
  }
  return results;
}

/** An `eval: true` worker (as key generation uses): CommonJS source, no module file. */
const EVAL_WORKER = `
  const { parentPort } = require('node:worker_threads');
  const refused = (err) => parentPort.postMessage('http.get refused: ' + (err.code || err.message));
  try {
    require('node:http').get('http://127.0.0.1:9/eval-worker', () => parentPort.postMessage('http.get connected')).on('error', refused);
  } catch (err) {
    refused(err);
  }
`;

function reply(worker) {
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', (err) => resolve(`worker error: ${err.code ?? err.message}`));
    worker.once('exit', (code) => reject(new Error(`worker exited with ${code} before answering`)));
  });
}

if (isMainThread) {
  const main = await attempt();
  const inWorker = await reply(new Worker(new URL(import.meta.url)));
  const inEvalWorker = await reply(new Worker(EVAL_WORKER, { eval: true }));
  process.stdout.write(`${JSON.stringify({ main, worker: inWorker, evalWorker: inEvalWorker })}\n`);
} else {
  parentPort.postMessage(await attempt());
}
