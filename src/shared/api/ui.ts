import { z } from 'zod';
import { Id } from './common';

/** A signed report the engine recorded in a project (the `reports` table). */
export interface ReportRecord {
  id: string;
  auditId: string;
  /** Where the PDF was saved. */
  path: string;
  sha256: string;
  signer: string | null;
  fingerprint: string | null;
  /** ISO time the report was signed. */
  createdAt: string;
}

/** Small read-only operations the screens use to show what the engine already knows. */
export const uiOperations = {
  'reports.list': {
    input: z.strictObject({ projectId: Id }),
    result: null as unknown as ReportRecord[],
    summary: "A project's signed reports, newest first",
  },
} as const;
