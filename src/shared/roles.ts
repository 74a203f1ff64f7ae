/**
 * What each kind of dataset is for, in the auditor's words, and which columns a
 * spreadsheet needs to serve it. One dataset can serve several roles (one import of a
 * spreadsheet with group labels, transcripts and recogniser output is both SpEAT targets
 * and WER data); the renderer proposes the roles a mapping supports, the importer checks
 * them and the requirement checks (src/shared/requirements.ts) read them.
 */
import type { ColumnMappingInput, DatasetRole } from './api/datasets';
import type { Section } from './results';

export const ROLES: readonly DatasetRole[] = ['target', 'attribute', 'asr', 'verification'];

/** Plain names of the roles, as the app and the CLI's messages show them. */
export const ROLE_PLAIN: Record<DatasetRole, string> = {
  target: 'recordings of the speaker groups to compare',
  attribute: 'recordings rated as pleasant or unpleasant',
  asr: 'recordings with reference transcripts, for speech recognition errors',
  verification: 'recordings for speaker-verification trials',
};

/** The sections each role feeds. */
export const ROLE_SECTIONS: Record<DatasetRole, Section[]> = {
  target: ['speat', 'ser'],
  attribute: ['speat', 'ser'],
  asr: ['wer'],
  verification: ['fdi'],
};

/** The column a role cannot do without (besides the audio path), as a mapping key. */
export const ROLE_COLUMN: Partial<Record<DatasetRole, 'valence' | 'transcript' | 'speaker'>> = {
  attribute: 'valence',
  asr: 'transcript',
  verification: 'speaker',
};

/** Plain names of the mapping's columns. */
export const COLUMN_PLAIN: Record<'path' | 'speaker' | 'transcript' | 'valence' | 'hypothesis' | 'groups', string> = {
  path: 'audio file path',
  speaker: 'speaker',
  transcript: 'reference transcript',
  valence: 'pleasantness rating',
  hypothesis: 'recogniser output (hypothesis)',
  groups: 'group label (gender, accent, age…)',
};

/** Why a mapping cannot serve a role, or null when it can. */
export function roleProblem(role: DatasetRole, mapping: Pick<ColumnMappingInput, 'speaker' | 'transcript' | 'valence' | 'groups'>): string | null {
  const column = ROLE_COLUMN[role];
  if (column && !mapping[column]) return `map a ${COLUMN_PLAIN[column]} column first`;
  if (role === 'target' && (mapping.groups ?? []).length === 0) return `map at least one ${COLUMN_PLAIN.groups} column first`;
  return null;
}

/** Roles a mapping's columns support, in the usual order. */
export function rolesSupportedBy(mapping: Pick<ColumnMappingInput, 'speaker' | 'transcript' | 'valence' | 'groups'>): DatasetRole[] {
  return ROLES.filter((r) => roleProblem(r, mapping) === null);
}

/** Every role of an import request: `role` first, then the others, each once. */
export function importRoles(role: DatasetRole, roles: readonly DatasetRole[] | undefined): DatasetRole[] {
  return [...new Set([role, ...(roles ?? [])])];
}
