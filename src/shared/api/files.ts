import { z } from 'zod';

/**
 * Files and folders the renderer may name. Under the 'granted' path policy (Electron
 * and web hosts) every path field of an operation (declared in its `paths` list) must
 * lie inside a grant: something the user picked in a dialog (`files.pick`), chose in the
 * web host's in-app chooser (`files.browse` + `files.grant`), the app's own resources
 * or a known project folder. See src/main/security/path-policy.ts.
 */

/** What the user is picking: decides the dialog's kind, title and file filters. */
export const PickPurpose = z.enum(['manifest', 'folder', 'model', 'p12', 'pdf', 'save-pdf', 'project-folder', 'job-folder']);
export type PickPurpose = z.infer<typeof PickPurpose>;

/**
 * A path field of an operation's input, as a dotted path into the parsed input. A
 * string is a file or folder the operation reads; the object form says it writes there
 * (a save target or a new folder), or that the value may also be a project id.
 */
export type PathFieldSpec = string | { field: string; access?: 'read' | 'write'; projectRef?: boolean };

export interface PickResult {
  /** The chosen path (absolute, symlinks resolved), or null when the dialog was cancelled. */
  path: string | null;
}

export interface BrowseEntry {
  name: string;
  kind: 'file' | 'folder';
  /** Bytes for files, null for folders. */
  size: number | null;
}

export interface BrowseListing {
  /** The folder listed (absolute, symlinks resolved). */
  path: string;
  /** Its parent when that is still inside a browsable root, else null. */
  parent: string | null;
  /** Folders the chooser may show: the home folder and the temporary folder. */
  roots: string[];
  entries: BrowseEntry[];
  /** More entries than were returned. */
  truncated: boolean;
}

export interface GrantResult {
  path: string;
  kind: 'file' | 'folder';
}

const AbsPath = z.string().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters');

export const fileOperations = {
  'files.pick': {
    input: z.strictObject({ purpose: PickPurpose }),
    result: null as unknown as PickResult,
    summary: 'Ask the user to choose a file or folder in a native dialog (desktop app only); the choice may then be used as a path',
  },
  'files.browse': {
    input: z.strictObject({ path: AbsPath.optional() }),
    result: null as unknown as BrowseListing,
    summary: 'List a folder under the home or temporary folder for the in-app chooser (web host only)',
  },
  'files.grant': {
    input: z.strictObject({ path: AbsPath, purpose: PickPurpose.optional() }),
    result: null as unknown as GrantResult,
    summary: 'Allow a file or folder chosen in the in-app chooser to be used as a path (web host only)',
  },
} as const;
