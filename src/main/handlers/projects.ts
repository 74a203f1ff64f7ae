import type { HandlerMap } from './types';

export const projectHandlers: HandlerMap<'projects.create' | 'projects.list' | 'projects.open' | 'projects.rename' | 'projects.delete'> = {
  'projects.create': ({ name, dir }, { store }) => store.create(name, dir),
  'projects.list': (_input, { store }) => store.recent(),
  'projects.open': ({ id, path, asCopy }, { store }) => (id !== undefined ? store.openId(id) : store.openPath(path!, { asCopy: asCopy ?? false })),
  'projects.rename': ({ id, name }, { store }) => store.rename(id, name),
  'projects.delete': ({ id, deleteFiles }, { store }) => store.delete(id, deleteFiles),
};
