import type { AppInfo } from '../../../shared/api/app';
import { call } from '../api';

let hostPromise: Promise<AppInfo['host']> | null = null;

/**
 * Which host runs the engine: 'electron' has native file dialogs (files.pick); the web
 * host has the in-app chooser (files.browse + files.grant). Asked once per page.
 */
export function hostKind(): Promise<AppInfo['host']> {
  hostPromise ??= call('app.info', {}).then(
    (info) => info.host,
    (err: unknown) => {
      hostPromise = null; // ask again next time
      throw err;
    },
  );
  return hostPromise;
}
