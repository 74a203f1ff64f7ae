/**
 * Audit runs in the project database: the lock that keeps one run of a plan at a time,
 * and the fingerprint of a run's input data that decides whether a stopped run may be
 * resumed. SQL lives here; src/main/audits/run.ts decides when to call it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import { UserError } from '../../shared/errors';
import { usableClipWhere } from './clips';
import { recordEvent } from './events';

/** A lock whose holder has not refreshed it for this long is taken over, even if its process id is alive (reused ids, a hung process). */
export const RUN_LOCK_STALE_MS = 10 * 60_000;
/** How often a running audit refreshes its lock. */
export const RUN_LOCK_HEARTBEAT_MS = 5_000;

export interface RunLockRow {
  planId: string;
  auditId: string;
  pid: number;
  host: string;
  token: string;
  startedAt: string;
  heartbeatAt: string;
}

/** The lock this process holds on a plan. */
export interface RunLock {
  planId: string;
  auditId: string;
  token: string;
  /** The lock of a process that had died (or fallen silent) and was taken over, if any. */
  tookOver: RunLockRow | null;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readRunLock(db: Database.Database, planId: string): RunLockRow | undefined {
  return db
    .prepare('SELECT plan_id AS planId, audit_id AS auditId, pid, host, token, started_at AS startedAt, heartbeat_at AS heartbeatAt FROM run_locks WHERE plan_id = ?')
    .get(planId) as RunLockRow | undefined;
}

/**
 * Whether the process that wrote `row` still works on it: on this computer, its process
 * is alive and it refreshed the lock recently; on another computer (a project on a shared
 * drive) only the refresh can tell.
 */
export function runLockLive(row: RunLockRow, now = Date.now()): boolean {
  const fresh = now - Date.parse(row.heartbeatAt) < RUN_LOCK_STALE_MS;
  if (row.host !== hostname()) return fresh;
  return fresh && processAlive(row.pid);
}

/** The message for a second caller while a plan's run is live. */
export function runLockedMessage(row: RunLockRow): string {
  const where = row.host === hostname() ? `process ${row.pid}` : `process ${row.pid} on ${row.host}`;
  return `run ${row.auditId} of this plan is already running (${where}, since ${row.startedAt}): one run of a plan at a time. Wait for it to finish, then run the plan again to see its results, or stop that run first`;
}

/** Refuse when another live process holds the plan's lock. */
export function assertPlanFree(db: Database.Database, planId: string): void {
  const row = readRunLock(db, planId);
  if (row && runLockLive(row)) throw new UserError(runLockedMessage(row), 'planId');
}

/**
 * Take the lock of `planId` for this process, in one transaction with choosing the run
 * (`chooseAudit` runs only once the lock is ours, so two callers can never both pick or
 * create a run). A live holder's lock is refused with its run id; a dead one's is taken
 * over.
 */
export function claimRunLock(db: Database.Database, planId: string, chooseAudit: () => string): RunLock {
  const token = randomUUID();
  return db.transaction((): RunLock => {
    const row = readRunLock(db, planId);
    if (row && runLockLive(row)) throw new UserError(runLockedMessage(row), 'planId');
    const auditId = chooseAudit();
    const now = new Date().toISOString();
    db.prepare(
      `INSERT INTO run_locks (plan_id, audit_id, pid, host, token, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(plan_id) DO UPDATE SET audit_id = excluded.audit_id, pid = excluded.pid, host = excluded.host, token = excluded.token,
         started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
    ).run(planId, auditId, process.pid, hostname(), token, now, now);
    if (row) {
      recordEvent(db, 'audit.lock-taken-over', { planId, auditId, from: { auditId: row.auditId, pid: row.pid, host: row.host, heartbeatAt: row.heartbeatAt } }, now);
    }
    return { planId, auditId, token, tookOver: row ?? null };
  })();
}

/** Refresh the lock; false when it is no longer ours (taken over after we fell silent). */
export function heartbeatRunLock(db: Database.Database, lock: RunLock): boolean {
  return db.prepare('UPDATE run_locks SET heartbeat_at = ? WHERE plan_id = ? AND token = ?').run(new Date().toISOString(), lock.planId, lock.token).changes === 1;
}

export function releaseRunLock(db: Database.Database, lock: RunLock): void {
  db.prepare('DELETE FROM run_locks WHERE plan_id = ? AND token = ?').run(lock.planId, lock.token);
}

/**
 * A fingerprint of everything of the datasets that an audit reads: their clips' audio
 * hashes, labels, transcripts, ratings and who is excluded. Equal fingerprints mean a
 * stopped run's finished units still describe the data.
 */
export function inputsFingerprint(db: Database.Database, datasetIds: readonly string[]): string {
  const h = createHash('sha256');
  const clips = db.prepare(
    'SELECT row_index, sha256, status, excluded_by_user, speaker, groups_json, transcript, hypothesis, valence FROM clips WHERE dataset_id = ? ORDER BY row_index',
  );
  for (const id of [...datasetIds].sort()) {
    h.update(`dataset ${id}\n`);
    for (const r of clips.iterate(id) as IterableIterator<Record<string, unknown>>) h.update(`${JSON.stringify(Object.values(r))}\n`);
  }
  return h.digest('hex');
}

export function storedInputsFingerprint(db: Database.Database, auditId: string): string | null {
  return (db.prepare('SELECT inputs_sha256 AS s FROM audits WHERE id = ?').get(auditId) as { s: string | null } | undefined)?.s ?? null;
}

export function recordInputsFingerprint(db: Database.Database, auditId: string, fingerprint: string): void {
  db.prepare('UPDATE audits SET inputs_sha256 = ? WHERE id = ? AND inputs_sha256 IS NULL').run(fingerprint, auditId);
}

/**
 * Estimated bytes of embeddings still to store for `datasetId` with a model of `widths`
 * (mean, min and max float32 vectors per recording, plus about 200 bytes of row).
 */
export function pendingEmbeddingBytes(db: Database.Database, datasetId: string, modelSha256: string, settingsKey: string, widths: readonly number[]): number {
  const n = (
    db
      .prepare(
        `SELECT COUNT(*) AS n FROM clips c WHERE c.dataset_id = ? AND ${usableClipWhere('c')} AND c.sha256 IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.audio_sha256 = c.sha256 AND e.model_sha256 = ? AND e.settings_key = ?)`,
      )
      .get(datasetId, modelSha256, settingsKey) as { n: number }
  ).n;
  const floats = widths.reduce((a, b) => a + b, 0);
  return n * (3 * 4 * floats + 200);
}
