/**
 * Path policy: which filesystem paths an API caller may name.
 *
 * The renderer is the least trusted part of the app (it shows auditor-supplied data), so
 * under the 'granted' policy (Electron and web hosts) a path reaches a handler only when
 * it lies inside a grant: a file or folder the user chose in a dialog (files.pick) or in
 * the web host's in-app chooser (files.browse + files.grant), the app's own resources
 * (the demo corpus), or a known project folder. Symlinks are resolved before the check
 * (a link inside a granted folder that points outside it is refused), `..` segments and
 * relative paths are refused outright, and the checked field is rewritten to the
 * resolved path so the handler opens exactly what was checked.
 *
 * The Equivox data folder (identities and their keys, the registry, trusted
 * certificates) is never grantable, nor any folder above it, and no path inside it is
 * accepted, except inside the project folders it holds (dataDir/projects): a grant of
 * the data folder would hand the signing key to whoever drives the renderer.
 *
 * The CLI uses 'any': its user types paths in their own shell, with their own rights.
 *
 * Every operation declares its path fields (`paths` in src/shared/api/*.ts); the check
 * runs in one place, src/main/api.ts, after zod validation and before the handler.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { PathFieldSpec, PickPurpose } from '../../shared/api/files';
import { ApiError } from '../../shared/errors';
import { isEqualOrInside, samePath } from '../paths/same-path';

export type PathPolicy = 'any' | 'granted';
export type PathAccess = 'read' | 'write';

export interface Grant {
  path: string;
  kind: 'file' | 'folder';
  access: PathAccess;
}

export interface PathGuardOptions {
  /** Folders readable without a grant (the app's resources). */
  readRoots?: () => string[];
  /** Folders readable and writable without a grant (known project folders). */
  projectRoots?: () => string[];
  /** True when the value is a known project id (for fields that take an id or a folder). */
  isProjectId?: (value: string) => boolean;
  /** The Equivox data folder: never grantable, nothing inside it accepted (see dataFolderProblem). */
  dataDir?: string;
  /**
   * Earlier default data folders, guarded as the data folder is: the one data folder copied
   * their keys and never deleted them (store/data-migration.ts).
   */
  earlierDataDirs?: () => string[];
}

/** Purposes whose choice the operation may write to (a save target, a new project's folder, where a cluster job folder goes). */
const WRITE_PURPOSES: ReadonlySet<PickPurpose> = new Set<PickPurpose>(['save-pdf', 'project-folder', 'job-folder']);

export function accessOf(purpose: PickPurpose | undefined): PathAccess {
  return purpose !== undefined && WRITE_PURPOSES.has(purpose) ? 'write' : 'read';
}

/**
 * The real path of `p`: symlinks resolved. A path that does not exist yet (a save
 * target) resolves through its nearest existing ancestor.
 */
export function resolveReal(p: string): string {
  let head = p;
  const tail: string[] = [];
  for (;;) {
    try {
      const real = realpathSync(head);
      return tail.length === 0 ? real : join(real, ...tail.reverse());
    } catch (err) {
      const parent = dirname(head);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === head) throw err;
      tail.push(basename(head));
      head = parent;
    }
  }
}

function realOrSelf(p: string): string {
  try {
    return resolveReal(p);
  } catch {
    return p;
  }
}

/**
 * Why a resolved path may not be used because of the Equivox data folder, or null: it
 * is the data folder, inside it (outside its projects/ folder), or — when `ancestors` —
 * a folder that holds it.
 */
export function dataFolderProblem(real: string, dataDir: string, options: { ancestors?: boolean } = {}): string | null {
  const data = realOrSelf(dataDir);
  if (isEqualOrInside(real, data) && !isEqualOrInside(real, join(data, 'projects'))) {
    return `this is inside Equivox's own data folder (${data}), which holds the signing keys; it is never read as input`;
  }
  if (options.ancestors && isEqualOrInside(data, real)) {
    return `this folder holds Equivox's own data folder (${data}) with the signing keys; choose a folder inside it that holds only your recordings`;
  }
  return null;
}

/** Refusal naming the field, for the auditor to fix in the UI. */
function refuse(field: string, message: string): ApiError {
  return new ApiError('validation', `${field}: ${message}`, field);
}

/**
 * Syntax checks that need no filesystem: absolute, no `..`, no NUL. Returns the reason
 * a path is refused, or null.
 */
export function pathSyntaxProblem(value: string): string | null {
  if (value.includes('\0')) return 'a path must not contain NUL characters';
  if (!isAbsolute(value)) return 'must be a full path chosen with Choose…, not a relative one';
  if (value.split(/[\\/]+/).includes('..')) return "'..' is not allowed in a path; choose the file with Choose…";
  return null;
}

function getField(input: unknown, dotted: string): unknown {
  let cur: unknown = input;
  for (const key of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function setField(input: unknown, dotted: string, value: string): void {
  const keys = dotted.split('.');
  let cur = input as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) cur = cur[key] as Record<string, unknown>;
  cur[keys[keys.length - 1]!] = value;
}

export function normaliseSpec(spec: PathFieldSpec): { field: string; access: PathAccess; projectRef: boolean } {
  return typeof spec === 'string'
    ? { field: spec, access: 'read', projectRef: false }
    : { field: spec.field, access: spec.access ?? 'read', projectRef: spec.projectRef ?? false };
}

export class PathGuard {
  private readonly grants: Grant[] = [];

  constructor(
    readonly policy: PathPolicy,
    private readonly options: PathGuardOptions = {},
  ) {}

  /** Grants made so far (newest last). */
  list(): readonly Grant[] {
    return this.grants;
  }

  /**
   * Record a path the user chose. It must exist, except a save target, whose parent
   * folder must. Returns the resolved path that later checks compare against.
   */
  grant(path: string, purpose?: PickPurpose, field = 'path'): Grant {
    const problem = pathSyntaxProblem(path);
    if (problem) throw refuse(field, problem);
    const access = accessOf(purpose);
    let real: string;
    let kind: Grant['kind'];
    if (existsSync(path)) {
      real = realpathSync(path);
      kind = statSync(real).isDirectory() ? 'folder' : 'file';
    } else if (purpose === 'save-pdf' || purpose === 'project-folder') {
      if (!existsSync(dirname(path))) throw refuse(field, `the folder ${dirname(path)} does not exist`);
      real = resolveReal(path);
      kind = purpose === 'project-folder' ? 'folder' : 'file';
    } else {
      throw refuse(field, `nothing exists at ${path}`);
    }
    const dataProblem = this.dataFolderRefusal(real, true);
    if (dataProblem) throw refuse(field, dataProblem);
    const grant: Grant = { path: real, kind, access };
    this.grants.push(grant);
    return grant;
  }

  /** dataFolderProblem for a resolved path, except inside a known project folder (those may live in dataDir/projects). */
  private dataFolderRefusal(real: string, ancestors: boolean): string | null {
    if (!this.options.dataDir) return null;
    if ((this.options.projectRoots?.() ?? []).some((root) => isEqualOrInside(real, realOrSelf(root)))) return null;
    for (const dir of [this.options.dataDir, ...(this.options.earlierDataDirs?.() ?? [])]) {
      const problem = dataFolderProblem(real, dir, { ancestors });
      if (problem) return problem;
    }
    return null;
  }

  /**
   * Refuse a path inside the data folder whatever the policy (the CLI included): inputs
   * such as manifests are never read from there. Returns nothing; throws like check().
   */
  refuseDataFolder(field: string, value: string): void {
    const problem = this.dataFolderRefusal(realOrSelf(value), false);
    if (problem) throw refuse(field, problem);
  }

  /** Whether a resolved path is covered for this access. */
  allows(real: string, access: PathAccess): boolean {
    for (const g of this.grants) {
      if (access === 'write' && g.access !== 'write') continue;
      if (g.kind === 'file' ? samePath(real, g.path) : isEqualOrInside(real, g.path)) return true;
    }
    const roots = [...(this.options.projectRoots?.() ?? []), ...(access === 'read' ? this.options.readRoots?.() ?? [] : [])];
    return roots.some((root) => {
      try {
        return isEqualOrInside(real, resolveReal(root));
      } catch {
        return false;
      }
    });
  }

  /**
   * Check one path value for `field`; returns the resolved path the handler should use.
   * Throws ApiError('validation', "<field>: …", field) when it is not allowed.
   */
  check(field: string, value: string, access: PathAccess = 'read'): string {
    if (this.policy === 'any') return value;
    const problem = pathSyntaxProblem(value);
    if (problem) throw refuse(field, problem);
    let real: string;
    try {
      real = resolveReal(value);
    } catch (err) {
      throw refuse(field, `cannot read ${value} (${(err as NodeJS.ErrnoException).code ?? 'error'}); choose it with Choose…`);
    }
    const dataProblem = this.dataFolderRefusal(real, false);
    if (dataProblem) throw refuse(field, dataProblem);
    if (!this.allows(real, access)) {
      const noun = existsSync(real) && statSync(real).isDirectory() ? 'folder' : 'file';
      if (!samePath(real, value) && this.allows(value, access)) {
        throw refuse(field, `this ${noun} is a link to a place outside the chosen folder; choose the target itself with Choose…`);
      }
      throw refuse(
        field,
        access === 'write'
          ? `this ${noun} was not chosen in a save dialog; choose where to save it with Choose…`
          : `this ${noun} was not chosen in a file dialog; choose it with Choose…`,
      );
    }
    return real;
  }

  /**
   * Check every declared path field of a parsed input (absent optional fields are
   * skipped) and rewrite each to its resolved path. A no-op under 'any'.
   */
  checkInput(specs: readonly PathFieldSpec[] | undefined, input: unknown): void {
    if (this.policy === 'any' || !specs) return;
    for (const spec of specs) {
      const { field, access, projectRef } = normaliseSpec(spec);
      const value = getField(input, field);
      if (value === undefined) continue;
      if (typeof value !== 'string') throw refuse(field, 'must be a path');
      if (projectRef && this.options.isProjectId?.(value)) continue;
      setField(input, field, this.check(field, value, access));
    }
  }
}
