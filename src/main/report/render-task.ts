import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { RenderJobInput, RenderJobOutput } from '../../shared/jobs';
import { removeStaleTemps, replaceDir, tempSibling, writeFileAtomic } from '../atomic-write';
import { storageError } from '../error-shape';
import { assertReplaceable } from '../file-locks';
import { loadSigningIdentity } from '../identity';
import type { Task } from '../jobs/task';
import { buildReport, writeExports } from './index';

/** The job's input and output, declared in the job map (src/shared/jobs.ts). */
export type RenderInput = RenderJobInput;
export type RenderOutput = RenderJobOutput;

/** The files directly in `dir` (none when it does not exist). */
function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir).map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/**
 * Lays out, signs and writes a report in a job worker: seconds of synchronous work (PDF
 * layout, RSA signing, CSV tables, fsync) that would otherwise stop the engine answering
 * anything else meanwhile. The key is loaded here, first, so a wrong passphrase is said
 * before anything is written.
 */
export const renderReportTask: Task<RenderInput, RenderOutput> = async (input) => {
  const identity = loadSigningIdentity(input.dataDir, input.identityId, {
    ...(input.passphrase !== undefined ? { passphrase: input.passphrase } : {}),
    ...(input.unlockedKey !== undefined ? { unlockedKey: input.unlockedKey } : {}),
  });
  const { results, out, statementPath, attestationPath, exportsDir } = input;
  const folder = dirname(out);
  mkdirSync(folder, { recursive: true });
  // A file of an earlier build open in another program (the PDF in Acrobat, a table in Excel)
  // stops the build here, before any file of the report changed.
  const untouched = 'Nothing was written: the report and its files are as they were.';
  for (const file of [out, statementPath, attestationPath, ...filesIn(exportsDir)]) assertReplaceable(file, { note: untouched });
  // What a killed build left here (hidden temporary copies of the PDF, statement or data files).
  removeStaleTemps(folder);
  removeStaleTemps(exportsDir);
  const { pdf, statement, attestation } = await buildReport(results, {
    identity,
    ...(input.auditor !== undefined ? { auditor: input.auditor } : {}),
    ...(input.organisation !== undefined ? { organisation: input.organisation } : {}),
    reportFileName: basename(out),
    ...(input.lockedPlan !== undefined ? { lockedPlan: Buffer.from(input.lockedPlan, 'utf8') } : {}),
    ...(input.followUp !== undefined ? { followUp: input.followUp } : {}),
  });
  const statementText = `${JSON.stringify(statement, null, 2)}\n`;
  const sha256 = createHash('sha256').update(pdf).digest('hex');
  // One unit: the data files, then the statement, then the PDF, each complete or absent
  // (owner-only and atomic: a report holds group-level findings about real people), and
  // the reports row (service.ts) only once all three are in place. A build killed part
  // way reports nothing, and running it again completes it.
  let exports: string[];
  try {
    const staging = tempSibling(exportsDir);
    try {
      const staged = writeExports(results, staging);
      replaceDir(staging, exportsDir);
      exports = staged.map((f) => join(exportsDir, basename(f)));
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      throw err;
    }
    writeFileAtomic(statementPath, statementText);
    writeFileAtomic(attestationPath, `${JSON.stringify(attestation)}\n`);
    writeFileAtomic(out, pdf);
  } catch (err) {
    // The results document is most of what the data files hold; their tables about as much again.
    const need = pdf.length + statementText.length + 2 * JSON.stringify(results).length;
    throw storageError(err, { folder, step: 'writing the report', needBytes: need, estimate: 'an estimate: the signed PDF, its statement, and the data files at about twice the size of the results' }) ?? err;
  }
  const pages = (pdf.toString('latin1').match(/\/Type \/Page\b(?!s)/g) ?? []).length || null;
  const signer = `${identity.info.name}${identity.info.organisation ? `, ${identity.info.organisation}` : ''}`;
  return { sha256, exports, pages, signer, fingerprint: identity.info.fingerprint };
};
