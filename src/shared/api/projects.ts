import { z } from 'zod';
import { Id, type Project } from './common';

const Name = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

export const projectOperations = {
  'projects.create': {
    input: z.strictObject({ name: Name, dir: z.string().min(1).optional() }),
    paths: [{ field: 'dir', access: 'write' }],
    result: null as unknown as Project,
    summary: 'Create a project folder holding project.sqlite',
  },
  'projects.list': {
    input: z.strictObject({}),
    result: null as unknown as Project[],
    summary: 'Recent projects, most recently opened first; a project whose folder is gone, or whose file was refused, is marked missing (with the problem)',
  },
  'projects.open': {
    input: z.strictObject({
      id: Id.optional(),
      path: z.string().min(1).optional(),
      /** Open a folder that is a copy of a project registered at another folder as a copy: it gets a new id. */
      asCopy: z.boolean().optional(),
    }).refine(
      (v) => (v.id === undefined) !== (v.path === undefined),
      { message: 'give exactly one of id or path', path: ['id'] },
    ),
    paths: ['path'],
    result: null as unknown as Project,
    summary: 'Open a project by id (from the recent list) or by folder; a copied folder opens only with asCopy (it then gets its own id)',
  },
  'projects.rename': {
    input: z.strictObject({ id: Id, name: Name }),
    result: null as unknown as Project,
    summary: 'Rename a project',
  },
  'projects.delete': {
    input: z.strictObject({ id: Id, deleteFiles: z.boolean().default(false) }),
    /** leftOver: where the folder, already moved out of its place, still holds a file another program keeps open (delete it later). */
    result: null as unknown as { id: string; deletedFiles: boolean; leftOver?: string },
    summary: 'Forget a project; with deleteFiles also remove its folder (refused while a job of the project runs)',
  },
} as const;
