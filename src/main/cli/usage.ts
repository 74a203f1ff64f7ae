/**
 * Usage text of every command, by first word, without loading any command module: the
 * modules import the engine, onnxruntime and the PDF stack, and loading them all to print
 * `--help` took 0.7 s. test/unit/cli/usage.test.ts checks these lines against the
 * `usage` of the commands themselves, so the two cannot drift apart.
 */
export const USAGE: Readonly<Record<string, readonly string[]>> = {
  projects: [
    'projects create --name NAME [--dir DIR]',
    'projects list',
    'projects open (--id ID | --dir DIR [--as-copy])   (--as-copy: the folder is a copy of a project kept elsewhere; give it its own id)',
    'projects rename --id ID --name NAME',
    'projects delete --id ID [--delete-files]',
  ],
  call: [
    'call OPERATION [--input JSON]   (any API operation, e.g. call projects.list)',
  ],
  demo: [
    'demo [--out DIR] [--seed N] [--fast]   (demo project, all four audits, results in DIR, default ./demo-output)',
  ],
  datasets: [
    'datasets import --project DIR (--manifest FILE | --folder DIR | --common-voice DIR) [--role target|attribute|asr|verification[,…]] [--map column=role,…] [--mapping-name NAME] [--save-mapping NAME] [--name NAME] [--group-label LABEL] [--split validated.tsv] [--min-duration S] [--max-duration S]',
    'datasets list --project DIR',
    'datasets show --project DIR --id DATASET_ID',
    'datasets preview --manifest FILE [--rows N]',
    'datasets exclude --project DIR --id DATASET_ID --rows 3,7,9 [--include]',
  ],
  mappings: [
    'mappings save --project DIR --name NAME --map column=role,…',
    'mappings list --project DIR',
  ],
  models: [
    'models list',
    'models import (--file MODEL.onnx [--manifest JSON] | --folder HF_FOLDER) [--name NAME] [--licence L] [--source S]',
    'models layers --id ID|ALIAS   (exposed hidden states and their widths)',
    'models catalogue   (exports that can be downloaded on request)',
    'models download --id CATALOGUE_ID --allow-downloads   (the only command that uses the network)',
  ],
  embed: [
    'embed --project DIR|ID --dataset ID --model ID|ALIAS [--provider auto|cuda|dml|coreml|webgpu|cpu] [--threads N]',
  ],
  stats: [
    'stats speat --input FILE.json [--permutations N] [--seed S] [--bootstrap R --sample-sizes k1,k2,… [--paired]] [--mde [--alpha A]] [--threads T]',
    'stats wer --input FILE.csv [--reference-group G] [--normalize basic|none|english|whisper-english|whisper-basic] [--secondary-normalize MODE] [--bootstrap R] [--permutations N] [--by utterance|speaker] [--nagq K] [--seed S] [--mde-simulations N [--alpha A]]',
    'stats fdi --input FILE.csv [--threshold T] [--thresholds FROM:TO:STEP] [--alpha A] [--orientation harm|paper] [--bootstrap R] [--null-permutations N] [--seed S]',
    'stats ser --input FILE.json [--learning-rates 1e-3,1e-4,1e-5] [--steps N] [--seed S] [--batch-size B] [--hidden H] [--eval-every K] [--patience P]',
  ],
  audit: [
    'audit lock --project DIR --plan FILE.json   (save and pre-register a plan; exit 1 with one line per reason when a section cannot run)',
    "audit run --project DIR (--plan FILE.json [--locked PLAN_ID] | --resume RUN_ID)   (--plan resumes the plan's latest unfinished run; progress on stderr, summary on stdout)",
    'audit results --project DIR --run RUN_ID',
    'audit list --project DIR',
  ],
  report: [
    'report build (--project DIR --run ID | --results FILE.json) --out FILE.pdf [--identity ID] [--passphrase P] [--auditor NAME] [--organisation ORG] [--allow-incomplete]   (--allow-incomplete: sign even though a planned section did not run; the cover says so)',
    'report verify FILE.pdf [--require-trusted]   (exit 0 when the signature is valid, 1 otherwise; with --require-trusted also 1 when the signer is not a trusted identity)',
  ],
  identity: [
    'identity create --name NAME --org ORGANISATION [--email EMAIL] [--passphrase P]',
    'identity import --p12 FILE [--passphrase P12_PASSPHRASE] [--key-passphrase P]',
    'identity trust --cert FILE   (trust another auditor\'s certificate for report verify; check its fingerprint with them first)',
    'identity trusted   (the certificates report verify trusts)',
    'identity list',
  ],
  cluster: [
    'cluster export --project DIR --dataset ID [--dataset ID …] --model ID|ALIAS [--shards N] [--out JOBDIR] [--partition P] [--time HH:MM:SS] [--gpus-per-task N] [--cpus-per-task N] [--audio-root PATH]',
    'cluster run-shard --job JOBDIR --shard K [--audio-root PATH] [--provider auto|cuda|dml|coreml|webgpu|cpu] [--threads N] [--progress-every SECONDS]',
    'cluster status --job JOBDIR   (finished, partial and missing shards; squeue/sacct where installed)',
    'cluster import --project DIR --job JOBDIR   (merge finished shards into the project\'s cache)',
  ],
};

/** Usage for the commands under `first` when it names a group, otherwise for all of them. */
export function usageText(first?: string): string {
  const lines = first !== undefined && USAGE[first] ? USAGE[first] : Object.values(USAGE).flat();
  return ['usage: equivox <command> [options]', '', ...lines.map((l) => `  ${l}`)].join('\n');
}
