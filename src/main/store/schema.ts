import type { DatabaseKind } from './db-guard';
import type { Migration } from './migrate';

/**
 * Project database schema. Content-keyed caches (embeddings by audio SHA-256 × model
 * SHA-256 × settings) let two shards merge with INSERT OR IGNORE.
 *
 * Migration numbers are reserved by area so parallel work never collides:
 * 1 base, 10–19 data import, 20–29 inference, 30–39 audits, 40–49 reports, 50–59 hardening,
 * 60–69 cluster (shard databases add their own tables from 65 up: src/main/store/shard-db.ts).
 */
export const projectMigrations: Migration[] = [
  {
    version: 1,
    name: 'base',
    sql: `
CREATE TABLE project (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE datasets (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('target','attribute','asr','verification')),
  source_kind TEXT NOT NULL,            -- manifest | folder | common-voice | ...
  source_path TEXT NOT NULL,
  manifest_sha256 TEXT,
  mapping_json TEXT NOT NULL DEFAULT '{}',
  settings_json TEXT NOT NULL DEFAULT '{}',
  status TEXT NOT NULL DEFAULT 'importing', -- importing | ready | cancelled | failed
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE clips (
  id TEXT PRIMARY KEY,
  dataset_id TEXT NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
  row_index INTEGER NOT NULL,           -- 1-based data row in the manifest (or file order)
  path TEXT NOT NULL,                   -- absolute, resolved
  rel_path TEXT NOT NULL,               -- as written in the source
  sha256 TEXT,
  duration_s REAL,
  sample_rate INTEGER,                  -- original
  channels INTEGER,
  codec TEXT,
  rms REAL,
  peak REAL,
  speaker TEXT,
  groups_json TEXT NOT NULL DEFAULT '{}',  -- {"gender":"female","accent":"us"}
  transcript TEXT,
  hypothesis TEXT,
  valence REAL,
  metadata_json TEXT NOT NULL DEFAULT '{}',
  status TEXT NOT NULL DEFAULT 'ok',     -- ok | warning | excluded
  issues_json TEXT NOT NULL DEFAULT '[]', -- [{"code":"narrowband","severity":"warning","message":"..."}]
  excluded_by_user INTEGER NOT NULL DEFAULT 0,
  UNIQUE (dataset_id, row_index)
);
CREATE INDEX clips_dataset ON clips(dataset_id);
CREATE INDEX clips_sha ON clips(sha256);

CREATE TABLE models (
  id TEXT PRIMARY KEY,                  -- equals sha256 of the model file used for inference
  name TEXT NOT NULL,
  family TEXT NOT NULL,
  front_end TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  layers INTEGER NOT NULL,
  dims_json TEXT NOT NULL,
  manifest_json TEXT NOT NULL,
  added_at TEXT NOT NULL
);

CREATE TABLE embeddings (
  audio_sha256 TEXT NOT NULL,
  model_sha256 TEXT NOT NULL,
  settings_key TEXT NOT NULL,           -- front-end settings that change the numbers
  layer_count INTEGER NOT NULL,
  dims_json TEXT NOT NULL,              -- per-layer widths
  frames INTEGER NOT NULL,
  mean BLOB NOT NULL,                   -- float32, layers concatenated
  min BLOB NOT NULL,
  max BLOB NOT NULL,
  provider TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (audio_sha256, model_sha256, settings_key)
);

CREATE TABLE plans (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  parent_id TEXT REFERENCES plans(id),
  config_json TEXT NOT NULL,
  canonical_sha256 TEXT,
  inputs_json TEXT,                     -- dataset manifest and model hashes at lock time
  locked_at TEXT,
  created_at TEXT NOT NULL
);

CREATE TABLE audits (
  id TEXT PRIMARY KEY,
  plan_id TEXT NOT NULL REFERENCES plans(id),
  plan_sha256 TEXT,
  seed INTEGER NOT NULL,
  status TEXT NOT NULL,                 -- pending | running | finished | failed | cancelled
  stage TEXT,
  error TEXT,
  started_at TEXT,
  finished_at TEXT,
  timings_json TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE results (
  audit_id TEXT NOT NULL REFERENCES audits(id) ON DELETE CASCADE,
  unit_key TEXT NOT NULL,               -- one finished unit, e.g. speat/model/test/strategy
  section TEXT NOT NULL,
  result_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (audit_id, unit_key)
);

CREATE TABLE reports (
  id TEXT PRIMARY KEY,
  audit_id TEXT NOT NULL REFERENCES audits(id),
  path TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  signer TEXT,
  fingerprint TEXT,
  created_at TEXT NOT NULL
);

CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  kind TEXT NOT NULL,
  detail_json TEXT NOT NULL DEFAULT '{}'
);
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
`,
  },
  {
    version: 10,
    name: 'saved column mappings',
    sql: `
CREATE TABLE column_mappings (
  name TEXT PRIMARY KEY,
  mapping_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX datasets_source ON datasets(source_kind, source_path, role);`,
  },
  {
    // One import can serve several sections (a spreadsheet with group labels, transcripts
    // and recogniser output is both SpEAT targets and WER data). datasets.role stays the
    // role the dataset was first imported for; dataset_roles lists every role it serves.
    // Existing datasets become one-role datasets.
    version: 11,
    name: 'datasets serving several roles',
    sql: `
CREATE TABLE dataset_roles (
  dataset_id TEXT NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('target','attribute','asr','verification')),
  PRIMARY KEY (dataset_id, role)
);
INSERT INTO dataset_roles (dataset_id, role) SELECT id, role FROM datasets;
CREATE INDEX dataset_roles_role ON dataset_roles(role);`,
  },
  {
    // What an import found in its labels (src/main/data/labels.ts): the sets of spellings
    // that differ only in case, spaces or invisible characters and how the auditor decided
    // each, the labels made one without asking (NFC, trimming), and the files a folder
    // import skipped. The decisions themselves are in settings_json, since they change
    // the stored labels; this is the record `datasets show` and the report print.
    version: 12,
    name: 'label record of an import',
    sql: `ALTER TABLE datasets ADD COLUMN labels_json TEXT NOT NULL DEFAULT '{}';`,
  },
  {
    // One run of a plan at a time: the process working on a plan's run holds its row and
    // refreshes heartbeat_at; a row whose process is gone (or silent) is taken over.
    // inputs_sha256: what the run's data were when it started, so a resume after the data
    // changed starts a new run instead of mixing old and new.
    version: 31,
    name: 'one run of a plan at a time',
    sql: `
CREATE TABLE run_locks (
  plan_id TEXT PRIMARY KEY REFERENCES plans(id),
  audit_id TEXT NOT NULL REFERENCES audits(id),
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  token TEXT NOT NULL,
  started_at TEXT NOT NULL,
  heartbeat_at TEXT NOT NULL
);
ALTER TABLE audits ADD COLUMN inputs_sha256 TEXT;`,
  },
  {
    version: 60,
    name: 'cluster jobs and where cached embeddings came from',
    // The embeddings table and its content key are unchanged: a cluster shard's rows merge
    // with INSERT OR IGNORE like any other. embedding_origins only says, for rows a
    // cluster import added, which job and shard computed them.
    sql: `
CREATE TABLE cluster_jobs (
  id TEXT PRIMARY KEY,                  -- job.json jobId
  name TEXT NOT NULL,                   -- Slurm job name
  model_sha256 TEXT NOT NULL,
  settings_key TEXT NOT NULL,
  shards INTEGER NOT NULL,
  clips INTEGER NOT NULL,
  job_dir TEXT NOT NULL,                -- where it was exported or imported from (it may move)
  datasets_json TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE embedding_origins (
  audio_sha256 TEXT NOT NULL,
  model_sha256 TEXT NOT NULL,
  settings_key TEXT NOT NULL,
  job_id TEXT NOT NULL,
  shard INTEGER NOT NULL,
  host TEXT,                            -- node that computed it
  scheduler_job TEXT,                   -- e.g. Slurm "<array job>_<task>"
  imported_at TEXT NOT NULL,
  PRIMARY KEY (audio_sha256, model_sha256, settings_key)
);
CREATE INDEX embedding_origins_job ON embedding_origins(job_id);`,
  },
  {
    // Recordings with several channels were mixed to mono by ffmpeg's matrix (stereo at
    // 1.41 ×, 7.1 at 4.41 × one channel); they are now averaged (audio/mix.ts). Their
    // cached embeddings came from the old mix: dropped, so the next run computes them
    // from the samples the models now get instead of mixing both in one audit.
    version: 70,
    name: 'embeddings of multi-channel recordings, mixed before channels were averaged',
    sql: `
DELETE FROM embedding_origins WHERE audio_sha256 IN (SELECT sha256 FROM clips WHERE channels > 1 AND sha256 IS NOT NULL);
DELETE FROM embeddings WHERE audio_sha256 IN (SELECT sha256 FROM clips WHERE channels > 1 AND sha256 IS NOT NULL);`,
  },
];

/** Registry of recent projects, in the user's Equivox data folder. */
export const appMigrations: Migration[] = [
  {
    version: 1,
    name: 'recent projects',
    sql: `
CREATE TABLE recent_projects (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  path TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  opened_at TEXT NOT NULL
);`,
  },
  {
    // Which file Equivox last opened at a registered folder (device and inode of its
    // project.sqlite): a folder whose file is still that one was checked here before, so
    // listing it opens nothing and opening it skips the checks for files from elsewhere
    // (store/db-check.ts). Rows from before this migration have none.
    version: 2,
    name: 'recent projects: the file last opened',
    sql: `ALTER TABLE recent_projects ADD COLUMN file_id TEXT;`,
  },
];

/** A project's project.sqlite: what its check compares with, and how its refusals read. */
export const PROJECT_DB: DatabaseKind = {
  migrations: projectMigrations,
  what: 'project folder',
  advice: 'Open a copy made by Equivox, or import the recordings again.',
  field: 'path',
};

/** The data folder's equivox.sqlite. */
export const REGISTRY_DB: DatabaseKind = {
  migrations: appMigrations,
  what: "data folder's list of recent projects (equivox.sqlite)",
  advice: 'Move equivox.sqlite out of the Equivox data folder: Equivox starts a new list, and the projects stay in their folders.',
  field: 'path',
};
