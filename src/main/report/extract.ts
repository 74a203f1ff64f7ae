/**
 * `report extract`: the files attached inside a report, written into a folder for a second
 * auditor to re-check (rerun `stats …` on the report data). The report is verified first and
 * the verdict returned with the files; the files are written either way, so a damaged report
 * can still be examined, and each says whether it matches the signed statement.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ExtractedReport } from '../../shared/api/reports';
import { UserError } from '../../shared/errors';
import { quoteUserText } from '../../shared/quote';
import { writeFileAtomic } from '../atomic-write';
import { sha256Hex } from './statement';
import { extractAttachments, verifyReport } from './verify';

/** A name from the PDF is untrusted: one plain file name, never a path. */
const SAFE_NAME = /^(?!\.{1,2}$)[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

export function extractReport(bytes: Buffer, out: string): ExtractedReport {
  const verification = verifyReport(bytes);
  const files = extractAttachments(bytes);
  if (files.length === 0) throw new UserError('this PDF has no attached files to extract', 'path');
  const names = new Set<string>();
  for (const f of files) {
    if (!SAFE_NAME.test(f.name)) throw new UserError(`attachment ${quoteUserText(f.name)} has a name that is not a plain file name (letters, digits, ".", "_", "-"); nothing was written`, 'path');
    if (names.has(f.name)) throw new UserError(`the PDF attaches two files named ${quoteUserText(f.name)}; nothing was written`, 'path');
    names.add(f.name);
  }
  mkdirSync(out, { recursive: true, mode: 0o700 });
  const written = files.map((f) => {
    const path = join(out, f.name);
    writeFileAtomic(path, f.data);
    const sha256 = sha256Hex(f.data);
    const info = verification.attachments.find((a) => a.name === f.name);
    return { name: f.name, path, size: f.data.length, sha256, matchesStatement: info?.matchesStatement ?? null };
  });
  return { out, valid: verification.valid, problems: verification.problems, files: written };
}
