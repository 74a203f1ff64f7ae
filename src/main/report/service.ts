/**
 * reports.build: load an audit run's results (project database or a results.json file),
 * sign the report with an identity from the data folder, write the PDF, the signed
 * statement and the exports, and record the report in the project's `reports` table.
 */
import { createHash, randomUUID } from 'node:crypto';
import { storageError } from '../error-shape';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { BuiltReport, OperationInputReportsBuild } from './service-types';
import { RESULTS_SCHEMA_VERSION, type AuditResults } from '../../shared/results';
import { NotFoundError, UserError } from '../../shared/errors';
import { completeness, completenessText } from '../../shared/completeness';
import { SECTION_SHORT } from '../../shared/requirements';
import type { JobServices } from '../engine-services';
import { getKeyProtector, listIdentities, unlockProtectedKey } from '../identity';
import type { RenderInput } from './render-task';
import { readInputFile } from '../security/input-file';
import { quoteUserText } from '../../shared/quote';
import { canonicalJson } from '../../shared/plan';
import { planRows } from '../store/plans';
import { insertReport, latestReportIdAt, updateReport } from '../store/reports';
import { auditStatus, storedResultsJson } from '../store/results';
import { samePath } from '../paths/same-path';

function parseResults(text: string, where: string): AuditResults {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UserError(`${where} is not valid JSON`);
  }
  const r = parsed as Partial<AuditResults>;
  if (!r || typeof r !== 'object' || r.schemaVersion !== RESULTS_SCHEMA_VERSION) {
    throw new UserError(`${where} has results schema version ${quoteUserText(String(r?.schemaVersion))}; this Equivox reads version ${RESULTS_SCHEMA_VERSION}`);
  }
  if (!r.audit || !r.project || !Array.isArray(r.models) || !Array.isArray(r.datasets)) throw new UserError(`${where} is missing audit, project, models or datasets`);
  return r as AuditResults;
}

/**
 * A report of an audit in which nothing ran is refused; one in which some planned section
 * did not run needs explicit confirmation (its cover then says "Incomplete audit").
 */
export function assertReportable(results: AuditResults, allowIncomplete: boolean): void {
  const c = completeness(results);
  const why = c.notRun.map((n) => `${SECTION_SHORT[n.section]}: ${n.reason}`).join('; ');
  if (c.ran.length === 0) throw new UserError(`no section of this audit produced results (${why}), so there is nothing to report; fix the data and run the audit again`, 'auditId');
  if (!c.complete && !allowIncomplete) {
    throw new UserError(
      `this audit is incomplete: ${completenessText(c)} (not run: ${why}); confirm to sign a report of it anyway (the cover will say “Incomplete audit”), or fix the data and run the audit again`,
      'allowIncomplete',
    );
  }
}

/** The locked plan's hashed bytes (canonical JSON of plan and inputs), when this project still holds the plan the results name. */
function lockedPlanBytes(db: Parameters<typeof planRows>[0], results: AuditResults): Buffer | undefined {
  const want = results.audit.planSha256;
  if (!want) return undefined;
  const plan = planRows(db).find((p) => p.canonical_sha256 === want);
  if (!plan) return undefined;
  const bytes = Buffer.from(canonicalJson({ plan: JSON.parse(plan.config_json) as unknown, inputs: plan.inputs_json ? (JSON.parse(plan.inputs_json) as unknown) : null }), 'utf8');
  // Only the exact bytes that were hashed at locking: anything else would not be the locked plan.
  return createHash('sha256').update(bytes).digest('hex') === want ? bytes : undefined;
}

export async function buildReportFiles(engine: JobServices, input: OperationInputReportsBuild): Promise<BuiltReport> {
  let results: AuditResults;
  let lockedPlan: Buffer | undefined;
  let record: ((row: { path: string; sha256: string; signer: string; fingerprint: string }) => string) | null = null;
  if (input.resultsPath) {
    const file = resolve(input.resultsPath);
    results = parseResults((await readInputFile(file, 'results', 'resultsPath')).toString('utf8'), file);
  } else {
    const project = await engine.store.resolve(input.project!);
    const db = engine.store.db(project.id);
    const json = storedResultsJson(db, input.auditId!);
    if (json === undefined) {
      const status = auditStatus(db, input.auditId!);
      throw status !== undefined
        ? new UserError(`audit run ${input.auditId} has no assembled results yet (status: ${status}); run or finish the audit first`, 'auditId')
        : new NotFoundError(`no audit run "${input.auditId}" in project ${project.name}`, 'auditId');
    }
    results = parseResults(json, `results of audit run ${input.auditId}`);
    lockedPlan = lockedPlanBytes(db, results);
    record = (r) => {
      // A rebuild to the same file replaced that file: its row is updated, not joined by a second one naming the same path.
      const now = new Date().toISOString();
      const same = latestReportIdAt(db, input.auditId!, (stored) => samePath(stored, r.path));
      if (same !== undefined) {
        updateReport(db, same, r, now);
        return same;
      }
      const id = randomUUID();
      insertReport(db, { id, auditId: input.auditId!, path: r.path, sha256: r.sha256, signer: r.signer, fingerprint: r.fingerprint, createdAt: now });
      return id;
    };
  }
  assertReportable(results, input.allowIncomplete ?? false);
  const identities = listIdentities(engine.dataDir);
  let identityId = input.identityId;
  if (!identityId) {
    if (identities.length === 0) throw new UserError('no auditor identity yet: create one with "identity create --name NAME --org ORGANISATION" or import one with "identity import --p12 FILE"', 'identityId');
    if (identities.length > 1) throw new UserError(`several identities exist (${identities.map((i) => i.id).join(', ')}): choose one with --identity`, 'identityId');
    identityId = identities[0]!.id;
  }
  const out = resolve(input.out);
  const base = basename(out, extname(out));
  const folder = dirname(out);
  const statementPath = join(folder, `${base}.statement.json`);
  const attestationPath = join(folder, `${base}.intoto.jsonl`);
  const exportsDir = join(folder, `${base}-data`);
  // The key, the layout, signing and the file writes in a job worker, so the engine keeps
  // answering meanwhile; the reports row is written here, on the engine's own connection.
  // A key kept by the OS key store is unlocked here: the store answers only this thread (under Electron, by asking the host).
  const unlockedKey = await unlockProtectedKey(engine.dataDir, identityId, getKeyProtector());
  const written = await engine.jobs.start('reports.render', {
    results,
    dataDir: engine.dataDir,
    identityId,
    ...(input.passphrase !== undefined ? { passphrase: input.passphrase } : {}),
    ...(unlockedKey ? { unlockedKey } : {}),
    ...(input.auditor !== undefined ? { auditor: input.auditor } : {}),
    ...(input.organisation !== undefined ? { organisation: input.organisation } : {}),
    out,
    statementPath,
    attestationPath,
    exportsDir,
    ...(lockedPlan ? { lockedPlan: lockedPlan.toString('utf8') } : {}),
    followUp: { ...(input.remedialActions ? { remedialActions: input.remedialActions } : {}), ...(input.reauditDate ? { reauditDate: input.reauditDate } : {}) },
  } satisfies RenderInput).result;
  const { sha256, exports, pages, signer, fingerprint } = written;
  let reportId: string | null;
  try {
    reportId = record ? record({ path: out, sha256, signer, fingerprint }) : null;
  } catch (err) {
    throw storageError(err, { folder, step: 'writing the report' }) ?? err;
  }
  return { reportId, path: out, statementPath, attestationPath, exportsDir, exports, sha256, signer, fingerprint, pages };
}
