/**
 * Where the in-app chooser opens when it has no better idea: the folder last used for
 * any purpose, else the open project's folder (reports, exports and often the auditor's
 * spreadsheets sit near it), else the home folder.
 */
let projectFolder: string | null = null;
let lastAny: string | null = null;

export function setProjectFolder(path: string | null): void {
  projectFolder = path;
}

export function rememberFolder(path: string): void {
  lastAny = path;
}

/** Candidates in order of likelihood; the chooser takes the first it may list. */
export function likelyFolders(): string[] {
  return [lastAny, projectFolder].filter((p): p is string => !!p);
}
