/**
 * How long, and how much memory, a model may take for a piece of work before the job
 * runner ends the process it runs in (issue 33 item 5; docs/security.md § "Model budgets"
 * gives the figures and why). A model is a program: a Loop whose condition never turns
 * false runs for ever inside onnxruntime, and a graph can allocate without end. Neither can
 * be told apart from a slow, honest model in advance, so each is given a budget
 * proportional to the work — the model's size, and for inference the audio's length —
 * with a wide margin over what an honest model takes on a slow laptop, and the work runs
 * where it can be ended (jobs/runner.ts, a job process).
 *
 * EQUIVOX_MODEL_TIME_SCALE and EQUIVOX_MODEL_MEMORY_SCALE multiply every budget (a very
 * slow computer: 2 or more; the tests: a small fraction, so a never-ending model fails in
 * seconds).
 */

import type { WorkBudget } from '../jobs/task';

/** A budget the job runner holds a worker to while it is set (jobs/task.ts). */
export type ModelBudget = WorkBudget;

const MB = 1024 * 1024;
const GB = 1024 * MB;

function scale(name: string): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : 1;
}

function scaled(seconds: number, bytes: number): { seconds: number; bytes: number } {
  return { seconds: seconds * scale('EQUIVOX_MODEL_TIME_SCALE'), bytes: Math.round(bytes * scale('EQUIVOX_MODEL_MEMORY_SCALE')) };
}

/**
 * Import: the model is loaded three times (the original, the graph with every state as an
 * output, the cut graph) and run on a 1 s test clip each time. Honest base-size exports
 * (95 M parameters, 360 MB) take seconds; 2 minutes plus a minute per GB leaves more than
 * ten times that on a slow laptop. Memory: the protobuf decoded and re-encoded in
 * JavaScript (about three copies) and up to two sessions at once (two more, plus
 * onnxruntime's arena): 1 GB plus 8 times the model's size.
 */
export function importBudget(modelBytes: number, subject: string): ModelBudget {
  return { subject, doing: 'checking its layers on a 1 s test clip', ...scaled(120 + 60 * (modelBytes / GB), GB + 8 * modelBytes) };
}

/**
 * Loading a model for inference (one or two sessions): a minute plus a minute per GB;
 * memory 1 GB plus 4 times its size (the weights, onnxruntime's optimised copy of them,
 * and its arena).
 */
export function loadBudget(modelBytes: number, subject: string): ModelBudget {
  return { subject, doing: 'loading it', ...scaled(60 + 60 * (modelBytes / GB), GB + 4 * modelBytes) };
}

/**
 * One recording through a loaded model. Clips are run in chunks of at most 30 s, so the
 * memory a run needs is bounded by the chunk (activations: frames × width × layers, and
 * attention maps of frames² per head), not by the clip: 1 GB plus twice the model. Time
 * grows with the audio and with the model's size: a base-size model runs at 1.5 to 12
 * seconds of audio per second on two busy cores (providers.ts allowSpinning), so 30 s
 * plus 2 s per second of audio per 100 MB of model is about 20 times the slowest rate
 * measured (a 10 s clip with a 360 MB model: 102 s).
 */
export function clipBudget(modelBytes: number, audioSeconds: number, subject: string, clip: string): ModelBudget {
  return {
    subject,
    doing: `reading ${clip} (${audioSeconds.toFixed(1)} s of audio)`,
    ...scaled(30 + 2 * audioSeconds * Math.max(1, modelBytes / (100 * MB)), GB + 2 * modelBytes),
  };
}
