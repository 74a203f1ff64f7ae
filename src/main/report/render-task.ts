import type { AuditResults } from '../../shared/results';
import { getKeyProtector, loadSigningIdentity } from '../identity';
import type { Task } from '../jobs/task';
import { buildReport, type ReportStatement } from './index';

export interface RenderInput {
  results: AuditResults;
  dataDir: string;
  identityId: string;
  passphrase?: string;
  auditor?: string;
  organisation?: string;
  reportFileName: string;
}

/**
 * Lays out and signs the PDF in a job worker: seconds of synchronous work that would
 * otherwise stop the engine answering anything else (app.info, progress) meanwhile.
 * The key is loaded again here (a KeyObject does not travel to a worker with the input);
 * the caller has already loaded it once, so a wrong passphrase is reported before this.
 */
export const renderReportTask: Task<RenderInput, { pdf: Uint8Array; statement: ReportStatement }> = async (input) => {
  const identity = loadSigningIdentity(input.dataDir, input.identityId, { ...(input.passphrase !== undefined ? { passphrase: input.passphrase } : {}), protector: getKeyProtector() });
  return buildReport(input.results, {
    identity,
    ...(input.auditor !== undefined ? { auditor: input.auditor } : {}),
    ...(input.organisation !== undefined ? { organisation: input.organisation } : {}),
    reportFileName: input.reportFileName,
  });
};
