import type { AppInfo } from '../../../shared/api/app';
import { call } from '../api';

let hostPromise: Promise<AppInfo['host']> | null = null;
let infoPromise: Promise<AppInfo> | null = null;

/** What the engine reported about itself (host, platform, data folder), asked once per page. */
export function appInfo(): Promise<AppInfo> {
  infoPromise ??= call('app.info', {}).then(
    (info) => info,
    (err: unknown) => {
      infoPromise = null;
      throw err;
    },
  );
  return infoPromise;
}

/** Where models can run on the engine's platform, in words (onnxruntime's execution providers). */
export function providersText(platform: string): string {
  if (platform === 'linux') return 'an NVIDIA graphics card (CUDA), when Equivox was installed with GPU support, else the processor (CPU)';
  if (platform === 'win32') return 'the graphics card (DirectML), else the processor (CPU)';
  if (platform === 'darwin') return 'the Apple Neural Engine or graphics (Core ML), else the processor (CPU)';
  return 'the processor (CPU)';
}

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
