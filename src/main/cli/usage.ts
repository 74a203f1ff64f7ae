import { parseCommandArgs, UsageError, type CommandSpec, type ParsedArgs } from './args';

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
    'datasets import --project DIR (--manifest FILE | --folder DIR | --common-voice DIR) [--role target|attribute|asr|verification[,…]] [--map column=role,…] [--mapping-name NAME] [--save-mapping NAME] [--name NAME] [--group-label LABEL] [--split validated.tsv] [--min-duration S] [--max-duration S] [--labels FILE.json]   (--labels: your choice for labels that differ only in case, spaces or invisible characters; without it such labels stop the import, listed under "problems")',
    'datasets list --project DIR',
    'datasets show --project DIR --id DATASET_ID [--limit N] [--offset N] [--problems FILE.csv]',
    'datasets preview --manifest FILE [--rows N] [--map column=role,…] [--labels FILE.json]   (also checks the labels of the speaker and group columns, of --map or of the suggested mapping: variants that differ only in case, spaces or invisible characters are listed under "problems")',
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
    'stats speat (--input FILE.json | --associations FILE.json) [--permutations N] [--seed S] [--bootstrap R --sample-sizes k1,k2,… [--paired]] [--mde [--alpha A]] [--threads T]   (FILE.json may hold speakersX and speakersY, one speaker id per row of X and Y: a speaker with several clips makes speakers the unit, printed as unit beside pTwoSided)',
    'stats wer --input FILE.csv [--reference-group G (else every pair, Holm over all pairs)] [--normalize basic|none|english|whisper-english|whisper-basic] [--secondary-normalize MODE] [--bootstrap R] [--permutations N] [--by utterance|speaker] [--nagq K] [--lr-bootstrap B] [--seed S] [--mde-simulations N [--alpha A]]',
    'stats fdi --input FILE.csv [--threshold T] [--thresholds FROM:TO:STEP] [--alpha A] [--orientation harm|paper] [--bootstrap R] [--null-permutations N] [--seed S]',
    'stats ser --input FILE.json [--learning-rates 1e-3,1e-4,1e-5] [--steps N] [--seed S] [--batch-size B] [--hidden H] [--eval-every K] [--patience P]',
  ],
  audit: [
    'audit lock --project DIR --plan FILE.json   (save and pre-register a plan; exit 1 with one line per reason when a section cannot run)',
    "audit run --project DIR (--plan FILE.json [--locked PLAN_ID] | --resume RUN_ID)   (--plan resumes the plan's latest unfinished run; progress on stderr, summary on stdout)",
    'audit results --project DIR --run RUN_ID [--limit N] [--offset N] [--out FILE.json]',
    'audit list --project DIR',
  ],
  report: [
    'report build (--project DIR --run ID | --results FILE.json) --out FILE.pdf [--identity ID] [--passphrase P] [--auditor NAME] [--organisation ORG] [--remedial-actions TEXT] [--reaudit-date YYYY-MM-DD] [--allow-incomplete]   (--allow-incomplete: sign even though a planned section did not run; the cover says so)',
    'report verify FILE.pdf [--require-trusted]   (the verdict in one line on stderr, the details as JSON on stdout; exit 0 when the signature is valid, 1 otherwise; with --require-trusted also 1 when the signer is not a trusted identity)',
    'report extract FILE.pdf --out DIR   (write the files attached inside the report: results.json, the locked plan, the statement, the report-data CSVs; exit 1 when the report does not verify, the files are written anyway)',
  ],
  identity: [
    'identity create --name NAME --org ORGANISATION [--email EMAIL] [--passphrase P]',
    'identity import --p12 FILE [--passphrase P12_PASSPHRASE] [--key-passphrase P]',
    "identity trust (--cert FILE | --report FILE.pdf [--fingerprint HEX])   (trust another auditor's certificate for report verify: from a certificate file, or the one that signed a report once you confirm its fingerprint with the auditor by phone or in person; asked at the terminal, else give --fingerprint)",
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

/**
 * Each command's options and positionals, by its words: what the parser accepts
 * (cli/args.ts). test/unit/cli/usage.test.ts checks every entry against the command's
 * usage line above (the same options, a value where the line shows one, `…` for a
 * repeatable one), so the two cannot drift apart.
 */
export const COMMAND_SPECS: Readonly<Record<string, CommandSpec>> = {
  'projects create': { options: { name: 'string', dir: 'string' } },
  'projects list': { options: {} },
  'projects open': { options: { id: 'string', dir: 'string', 'as-copy': 'boolean' } },
  'projects rename': { options: { id: 'string', name: 'string' } },
  'projects delete': { options: { id: 'string', 'delete-files': 'boolean' } },
  call: { options: { input: 'string' }, positionals: ['OPERATION'] },
  demo: { options: { out: 'string', seed: 'string', fast: 'boolean' } },
  'datasets import': {
    options: {
      project: 'string',
      manifest: 'string',
      folder: 'string',
      'common-voice': 'string',
      role: 'string',
      map: 'string',
      'mapping-name': 'string',
      'save-mapping': 'string',
      name: 'string',
      'group-label': 'string',
      split: 'string',
      'min-duration': 'string',
      'max-duration': 'string',
      labels: 'string',
    },
  },
  'datasets list': { options: { project: 'string' } },
  'datasets show': { options: { project: 'string', id: 'string', limit: 'string', offset: 'string', problems: 'string' } },
  'datasets preview': { options: { manifest: 'string', rows: 'string', map: 'string', labels: 'string' } },
  'datasets exclude': { options: { project: 'string', id: 'string', rows: 'string', include: 'boolean' } },
  'mappings save': { options: { project: 'string', name: 'string', map: 'string' } },
  'mappings list': { options: { project: 'string' } },
  'models list': { options: {} },
  'models import': { options: { file: 'string', manifest: 'string', folder: 'string', name: 'string', licence: 'string', source: 'string' } },
  'models layers': { options: { id: 'string' } },
  'models catalogue': { options: {} },
  'models download': { options: { id: 'string', 'allow-downloads': 'boolean' } },
  embed: { options: { project: 'string', dataset: 'string', model: 'string', provider: 'string', threads: 'string' } },
  'stats speat': { options: { input: 'string', associations: 'string', permutations: 'string', seed: 'string', bootstrap: 'string', 'sample-sizes': 'string', paired: 'boolean', mde: 'boolean', alpha: 'string', threads: 'string' } },
  'stats wer': { options: { input: 'string', 'reference-group': 'string', normalize: 'string', 'secondary-normalize': 'string', bootstrap: 'string', permutations: 'string', by: 'string', nagq: 'string', 'lr-bootstrap': 'string', seed: 'string', 'mde-simulations': 'string', alpha: 'string' } },
  'stats fdi': { options: { input: 'string', threshold: 'string', thresholds: 'string', alpha: 'string', orientation: 'string', bootstrap: 'string', 'null-permutations': 'string', seed: 'string' } },
  'stats ser': {
    options: { input: 'string', 'learning-rates': 'string', steps: 'string', seed: 'string', 'batch-size': 'string', hidden: 'string', 'eval-every': 'string', patience: 'string' },
  },
  'audit lock': { options: { project: 'string', plan: 'string' } },
  'audit run': { options: { project: 'string', plan: 'string', locked: 'string', resume: 'string' } },
  'audit results': { options: { project: 'string', run: 'string', limit: 'string', offset: 'string', out: 'string' } },
  'audit list': { options: { project: 'string' } },
  'report build': {
    options: {
      project: 'string',
      run: 'string',
      results: 'string',
      out: 'string',
      identity: 'string',
      passphrase: 'string',
      auditor: 'string',
      organisation: 'string',
      'remedial-actions': 'string',
      'reaudit-date': 'string',
      'allow-incomplete': 'boolean',
    },
  },
  'report verify': { options: { 'require-trusted': 'boolean' }, positionals: ['FILE.pdf'] },
  'report extract': { options: { out: 'string' }, positionals: ['FILE.pdf'] },
  'identity create': { options: { name: 'string', org: 'string', email: 'string', passphrase: 'string' } },
  'identity import': { options: { p12: 'string', passphrase: 'string', 'key-passphrase': 'string' } },
  'identity trust': { options: { cert: 'string', report: 'string', fingerprint: 'string' } },
  'identity trusted': { options: {} },
  'identity list': { options: {} },
  'cluster export': {
    options: {
      project: 'string',
      dataset: 'string[]',
      model: 'string',
      shards: 'string',
      out: 'string',
      partition: 'string',
      time: 'string',
      'gpus-per-task': 'string',
      'cpus-per-task': 'string',
      'audio-root': 'string',
    },
  },
  'cluster run-shard': { options: { job: 'string', shard: 'string', 'audio-root': 'string', provider: 'string', threads: 'string', 'progress-every': 'string' } },
  'cluster status': { options: { job: 'string' } },
  'cluster import': { options: { project: 'string', job: 'string' } },
};

/** The command whose words begin `words` (the longest, so `stats wer` wins over a shorter one), or undefined. */
export function matchCommand(words: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const key of Object.keys(COMMAND_SPECS)) {
    const path = key.split(' ');
    if (path.every((p, i) => words[i] === p) && (!best || path.length > best.split(' ').length)) best = key;
  }
  return best;
}

/** The words of the command at the start of `argv`: those before its first option. */
export function leadingWords(argv: readonly string[]): readonly string[] {
  const firstOption = argv.findIndex((a) => a.startsWith('-'));
  return firstOption < 0 ? argv : argv.slice(0, firstOption);
}

/** A whole command line (`report verify --require-trusted FILE`): its command, options and positionals. */
export function parseCommandLine(argv: readonly string[]): ParsedArgs {
  const words = leadingWords(argv);
  const command = matchCommand(words);
  if (command === undefined) throw new UsageError(`unknown command "${words.join(' ')}"\n${usageText(words[0])}`);
  return parseCommandArgs(argv.slice(command.split(' ').length), COMMAND_SPECS[command]!, command);
}

/**
 * Usage for one command (`command`: its words), for the commands under `first` when it
 * names a group, otherwise for all of them.
 */
export function usageText(first?: string, command?: string): string {
  let lines = first !== undefined && Object.hasOwn(USAGE, first) ? USAGE[first]! : Object.values(USAGE).flat();
  if (command !== undefined) {
    const own = lines.filter((l) => l === command || l.startsWith(`${command} `));
    if (own.length > 0) lines = own;
  }
  return ['usage: equivox <command> [options]', '', ...lines.map((l) => `  ${l}`)].join('\n');
}
