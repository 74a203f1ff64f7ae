/** ui.*-style read-only listings for the screens (see src/shared/api/ui.ts). */
import type { ReportRecord } from '../../shared/api/ui';
import type { HandlerMap } from './types';

interface ReportRow {
  id: string;
  audit_id: string;
  path: string;
  sha256: string;
  signer: string | null;
  fingerprint: string | null;
  created_at: string;
}

export const uiHandlers: HandlerMap<'reports.list'> = {
  'reports.list': ({ projectId }, { store }): ReportRecord[] => {
    const rows = store
      .db(projectId)
      .prepare('SELECT id, audit_id, path, sha256, signer, fingerprint, created_at FROM reports ORDER BY created_at DESC, id DESC LIMIT 200')
      .all() as ReportRow[];
    return rows.map((r) => ({ id: r.id, auditId: r.audit_id, path: r.path, sha256: r.sha256, signer: r.signer, fingerprint: r.fingerprint, createdAt: r.created_at }));
  },
};
