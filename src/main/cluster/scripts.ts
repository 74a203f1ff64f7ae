/**
 * The job folder's scripts: submit.sbatch (a Slurm array job, one task per shard),
 * run-local.sh (the same shards one after another, for a workstation) and README.txt for
 * the cluster's admin. Every value written into a script is either validated to a safe
 * alphabet (partition, time) or single-quoted here.
 */
import type { JobFile } from './format';

/** A word for bash, single-quoted unless it is plainly safe. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function hours(seconds: number): string {
  return seconds >= 3600 ? `${(seconds / 3600).toFixed(1)} h` : `${Math.round(seconds / 60)} min`;
}

/** The lines both scripts share: telemetry off, how to start Equivox, optional settings from the environment. */
function preamble(job: JobFile): string[] {
  const command = job.cli.command.length > 0 ? job.cli.command.map(shellQuote).join(' ') : '';
  return [
    '# onnxruntime-node carries a telemetry client; it stays off in every process that can load it.',
    'export ORT_DISABLE_TELEMETRY=1',
    '',
    '# How Equivox starts on this machine (recorded at export: ' + job.cli.kind + ').',
    '# Set EQUIVOX_CLI to override it, e.g. EQUIVOX_CLI="node /opt/equivox/out/cli/equivox.mjs".',
    'if [ -n "${EQUIVOX_CLI:-}" ]; then',
    '  read -r -a EQUIVOX <<< "$EQUIVOX_CLI"',
    'else',
    command ? `  EQUIVOX=(${command})` : `  echo "equivox: this job was exported without a runnable Equivox command; set EQUIVOX_CLI (see README.txt)" >&2; exit 2`,
    'fi',
    '',
    '# Optional: EQUIVOX_AUDIO_ROOT (where the recordings are on this machine, default the',
    '# folder they were in when the job was exported) and EQUIVOX_PROVIDER (auto, cuda, cpu).',
    'EXTRA=()',
    'if [ -n "${EQUIVOX_AUDIO_ROOT:-}" ]; then EXTRA+=(--audio-root "$EQUIVOX_AUDIO_ROOT"); fi',
    'if [ -n "${EQUIVOX_PROVIDER:-}" ]; then EXTRA+=(--provider "$EQUIVOX_PROVIDER"); fi',
  ];
}

export function submitScript(job: JobFile): string {
  const r = job.resources;
  const directives = [
    `#SBATCH --job-name=${job.jobName}`,
    `#SBATCH --array=0-${job.shardCount - 1}`,
    '#SBATCH --ntasks=1',
    `#SBATCH --cpus-per-task=${r.cpusPerTask}`,
    ...(r.gpusPerTask !== null ? [`#SBATCH --gpus-per-task=${r.gpusPerTask}`] : []),
    ...(r.partition !== null ? [`#SBATCH --partition=${r.partition}`] : []),
    ...(r.time !== null ? [`#SBATCH --time=${r.time}`] : []),
    // Slurm does not create folders: export creates logs/.
    '#SBATCH --output=logs/shard-%a-job-%A.log',
    // Ask for SIGTERM two minutes before the time limit: the task stops after the clip it
    // is on, and a resubmitted task resumes from there.
    '#SBATCH --signal=B:TERM@120',
  ];
  return [
    '#!/bin/bash',
    `# Equivox cluster job ${job.jobId}: ${job.clips} recordings (${hours(job.audioSeconds)} of audio) in ${job.shardCount} shards, model ${job.model.name}.`,
    '# Submit from this folder:     cd THIS_FOLDER && sbatch submit.sbatch',
    '# Run only shard 2 again:      sbatch --array=2 submit.sbatch',
    '# See README.txt first.',
    ...directives,
    '',
    'set -euo pipefail',
    ': "${SLURM_ARRAY_TASK_ID:?submit this script with sbatch; on a workstation run run-local.sh}"',
    'JOB_DIR="${EQUIVOX_JOB_DIR:-${SLURM_SUBMIT_DIR:-$PWD}}"',
    'if [ ! -f "$JOB_DIR/job.json" ]; then',
    '  echo "equivox: $JOB_DIR holds no job.json: submit from the job folder (cd JOB_FOLDER && sbatch submit.sbatch) or set EQUIVOX_JOB_DIR" >&2',
    '  exit 2',
    'fi',
    '',
    ...preamble(job),
    '',
    'exec "${EQUIVOX[@]}" cluster run-shard --job "$JOB_DIR" --shard "$SLURM_ARRAY_TASK_ID" ${EXTRA[@]+"${EXTRA[@]}"}',
    '',
  ].join('\n');
}

export function runLocalScript(job: JobFile): string {
  return [
    '#!/bin/bash',
    `# Equivox cluster job ${job.jobId}: runs its ${job.shardCount} shards one after another on this machine,`,
    '# with the same command each Slurm array task runs. Finished shards are skipped and a',
    '# stopped shard resumes, so it is safe to run again. Logs go to logs/shard-K-local.log.',
    'set -uo pipefail',
    'JOB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
    '',
    ...preamble(job),
    '',
    'mkdir -p "$JOB_DIR/logs"',
    'failed=0',
    `for shard in $(seq 0 ${job.shardCount - 1}); do`,
    `  echo "equivox: shard $shard of ${job.shardCount}" >&2`,
    '  if ! "${EQUIVOX[@]}" cluster run-shard --job "$JOB_DIR" --shard "$shard" ${EXTRA[@]+"${EXTRA[@]}"} \\',
    '      > "$JOB_DIR/logs/shard-$shard-local.json" 2> >(tee -a "$JOB_DIR/logs/shard-$shard-local.log" >&2); then',
    '    echo "equivox: shard $shard stopped with a problem (see logs/shard-$shard-local.log)" >&2',
    '    failed=1',
    '  fi',
    'done',
    'exit $failed',
    '',
  ].join('\n');
}

export function readmeText(job: JobFile): string {
  const cli = job.cli.command.length > 0 ? job.cli.command.join(' ') : '(none: set EQUIVOX_CLI)';
  const res = job.resources;
  return `Equivox cluster job ${job.jobId}
${'='.repeat(20 + job.jobId.length)}

What this is
------------
An auditor using Equivox (an offline tool that audits speech models for bias) asks you
to compute speech-model embeddings of ${job.clips} recordings (${hours(job.audioSeconds)} of audio)
with the model "${job.model.name}". The work is split into ${job.shardCount} shards,
balanced by audio duration; each Slurm array task computes one shard and writes
out/<shard>.sqlite. Nothing else is written, and nothing is sent anywhere: Equivox opens
no network connection, and onnxruntime's telemetry is switched off in the scripts.

The recordings are not in this folder. They may be sensitive (people's voices): keep
them where your site's data-protection rules say, and delete them when the job is done.

What the nodes need
-------------------
- Node.js 20 (\`node\` on PATH) and ffmpeg (\`ffmpeg\` on PATH, or EQUIVOX_FFMPEG=/path/to/ffmpeg).
- Equivox ${job.equivoxVersion}: a copy of its source folder with its packages installed
  (\`npm ci\`; for NVIDIA GPUs \`ONNXRUNTIME_NODE_INSTALL=cuda12 npm ci\`), on a path the
  nodes can read. Run \`node scripts/ensure-native.mjs node\` there once before submitting.
  The job was exported to start it with (${job.cli.kind}):
      ${cli}
  If it lives elsewhere on your cluster, set EQUIVOX_CLI before sbatch, for example
      export EQUIVOX_CLI="node /opt/equivox/out/cli/equivox.mjs"
- The recordings, in one folder, laid out as the manifests in manifests/ list them
  (paths relative to that folder). Tell the scripts where with
      export EQUIVOX_AUDIO_ROOT=/data/equivox-audio
  Each file's SHA-256 is checked before use; a changed or missing file is recorded, not used.

Running it
----------
    cd <this folder>
    $\{EQUIVOX_CLI:-...} cluster status --job .      # optional check that Equivox starts here
    sbatch submit.sbatch                              # all ${job.shardCount} shards as one array job
    sbatch --array=2 submit.sbatch                    # only shard 2 again (after a failure)

Requested per task: ${res.cpusPerTask} CPU(s)${res.gpusPerTask !== null ? `, ${res.gpusPerTask} GPU(s)` : ''}${res.partition !== null ? `, partition ${res.partition}` : ''}${res.time !== null ? `, time limit ${res.time}` : ''}.
Edit the #SBATCH lines of submit.sbatch if your site needs other settings (account, QOS,
memory); do not change the array range or the command.

A task that is stopped (time limit, preemption, node failure) leaves
out/<shard>.sqlite.partial; submitting that shard again resumes where it stopped. A
finished shard is out/<shard>.sqlite (renamed only when complete). Progress is in
logs/shard-<shard>-job-<jobid>.log, one line per step.

    $\{EQUIVOX_CLI:-...} cluster status --job .      # finished / partial / missing shards

On a workstation without Slurm, \`bash run-local.sh\` runs the shards one after another.

What to send back
-----------------
The whole out/ folder (out/*.sqlite). It holds the embeddings and, per recording, the
path and SHA-256 from the manifests; no audio. The auditor imports it with
\`cluster import\` or "Run on a cluster…" in the app.

Files
-----
job.json        what the job is: model and settings keys, shards, Equivox version
manifests/      one list of recordings per shard (relative path, SHA-256, duration)
models/         the model files (SHA-256 in job.json; checked before every run)
submit.sbatch   the Slurm array job
run-local.sh    the same shards, one after another
logs/           Slurm's output, one file per task
out/            the results, one database per shard
`;
}
