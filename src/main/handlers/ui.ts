/** ui.*-style read-only listings for the screens (see src/shared/api/ui.ts). */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type { ReportFile, ReportRecord } from '../../shared/api/ui';
import { NotFoundError, UserError } from '../../shared/errors';
import type { HandlerServices } from '../engine-services';
import type { HandlerMap } from './types';
import { recentReports, reportPath } from '../store/reports';

/**
 * The file of a report recorded in the project: only paths the engine itself wrote and
 * recorded in the reports table are ever opened or read, never one the caller names.
 */
function recordedReport(engine: HandlerServices, projectId: string, reportId: string): string {
  const path = reportPath(engine.store.db(projectId), reportId);
  if (path === undefined) throw new NotFoundError(`no report ${reportId} in this project`, 'reportId');
  if (!existsSync(path)) throw new UserError(`the report is no longer at ${path}: it was moved or deleted`, 'reportId');
  return path;
}

/**
 * A file the report build wrote beside the recorded PDF (report/service.ts names them):
 * NAME.statement.json, or a plain file directly inside NAME-data/. The part names a data
 * file by its bare name, so nothing outside those two places can be reached.
 */
function reportPart(pdf: string, part: string): string {
  if (part === 'pdf') return pdf;
  const base = basename(pdf, extname(pdf));
  const file = part === 'statement' ? join(dirname(pdf), `${base}.statement.json`) : join(dirname(pdf), `${base}-data`, part.slice('data/'.length));
  const name = part === 'statement' ? 'the signed statement' : `the data file ${basename(file)}`;
  const what = lstatSync(file, { throwIfNoEntry: false });
  if (!what) throw new UserError(`${name} of this report is no longer at ${file}: it was moved or deleted`, 'part');
  if (!what.isFile()) throw new UserError(`${file} is not a plain file (a link or folder), so it is not offered as ${name}`, 'part');
  if (basename(file) !== part.replace(/^data\//, '') && part !== 'statement') throw new UserError(`no data file ${part} in this report`, 'part');
  return file;
}

function mimeOf(file: string): ReportFile['mime'] {
  const ext = extname(file).toLowerCase();
  return ext === '.pdf' ? 'application/pdf' : ext === '.json' ? 'application/json' : ext === '.csv' ? 'text/csv' : 'application/octet-stream';
}

export const uiHandlers: HandlerMap<'reports.list' | 'reports.open' | 'reports.download'> = {
  'reports.open': async ({ projectId, reportId, action }, engine) => {
    const path = recordedReport(engine, projectId, reportId);
    if (!engine.shell) {
      throw new UserError(engine.host === 'web' ? 'the browser preview cannot open files on this computer; use Download' : 'this host cannot open files; the report is at the path shown', 'action');
    }
    if (action === 'folder') engine.shell.showItemInFolder(path);
    else {
      const problem = await engine.shell.openPath(path);
      if (problem) throw new UserError(`could not open ${basename(path)}: ${problem}`, 'reportId');
    }
    return { opened: path };
  },
  'reports.download': ({ projectId, reportId, part }, engine) => {
    const path = reportPart(recordedReport(engine, projectId, reportId), part ?? 'pdf');
    const bytes = readFileSync(path);
    return { name: basename(path), mime: mimeOf(path), base64: bytes.toString('base64'), bytes: bytes.length };
  },
  'reports.list': ({ projectId }, { store }): ReportRecord[] => {
    const rows = recentReports(store.db(projectId));
    return rows.map((r) => ({ id: r.id, auditId: r.audit_id, path: r.path, sha256: r.sha256, signer: r.signer, fingerprint: r.fingerprint, createdAt: r.created_at }));
  },
};
