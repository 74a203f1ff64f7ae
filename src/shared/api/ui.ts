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

/** A report file's bytes for the browser host, which cannot open files on this computer itself. */
export interface ReportFile {
  name: string;
  mime: 'application/pdf' | 'application/json' | 'text/csv' | 'application/octet-stream';
  base64: string;
  bytes: number;
}

/** Opening a recorded report with the desktop's own programs (Electron only). */
export const reportFileOperations = {
  'reports.open': {
    input: z.strictObject({ projectId: Id, reportId: Id, action: z.enum(['open', 'folder']) }),
    result: null as unknown as { opened: string },
    summary: 'Open a recorded report in the default PDF viewer, or show it in its folder (desktop app only)',
  },
  'reports.download': {
    input: z.strictObject({
      projectId: Id,
      reportId: Id,
      /** Which file of the report: the PDF (omitted), its signed statement, or one data file by name (e.g. "wer-groups.csv"). */
      part: z.union([z.literal('pdf'), z.literal('statement'), z.string().regex(/^data\/[^/\\]{1,255}$/)]).optional(),
    }),
    result: null as unknown as ReportFile,
    summary: "A recorded report's PDF, signed statement or one of its data files, for the browser preview to save as a download",
  },
} as const;
