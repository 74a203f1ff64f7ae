/**
 * Path text helpers for display and for the save-as name (the renderer has no node:path).
 * Paths come from the engine, absolute and resolved; Windows paths use backslashes.
 */
function sepOf(p: string): '/' | '\\' {
  return p.includes('\\') && !p.includes('/') ? '\\' : '/';
}

export function baseName(p: string): string {
  const s = p.replace(/[\\/]+$/, '');
  const i = Math.max(s.lastIndexOf('/'), s.lastIndexOf('\\'));
  return i < 0 ? s : s.slice(i + 1);
}

export function dirName(p: string): string {
  const s = p.replace(/[\\/]+$/, '');
  const i = Math.max(s.lastIndexOf('/'), s.lastIndexOf('\\'));
  if (i < 0) return '';
  if (i === 0) return s.slice(0, 1);
  // "C:\\x" -> "C:\\"
  if (i === 2 && s[1] === ':') return s.slice(0, 3);
  return s.slice(0, i);
}

export function joinPath(folder: string, name: string): string {
  const sep = sepOf(folder);
  return folder.endsWith('/') || folder.endsWith('\\') ? `${folder}${name}` : `${folder}${sep}${name}`;
}

/** Why a save-as file name cannot be used, or null. */
export function fileNameProblem(name: string): string | null {
  if (name.trim() === '') return 'type a file name, for example audit-report.pdf';
  if (/[\\/]/.test(name)) return 'a file name cannot contain / or \\; to save in another folder, press “Choose folder…”';
  if (name === '.' || name === '..') return 'type a file name, for example audit-report.pdf';
  if (name.includes('\0')) return 'the name contains an invalid character';
  return null;
}
