/**
 * Electron host: window, security settings, the app:// protocol, IPC. Kept thin: the
 * engine (api.ts and below) runs identically in the CLI and the web host.
 */
// First, before anything can load onnxruntime-node: its native telemetry off.
import './security/telemetry-off';
import { app, BrowserWindow, dialog, net, protocol, safeStorage, session, shell, utilityProcess, type OpenDialogOptions, type WebContents } from 'electron';
import { join, normalize } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EngineClient, type EngineProcess, type FromEngine } from './engine-transport';
import { registerIpc } from './ipc';
import { defaultDataDir, userDataDir } from './paths/data-folders';
import { isEqualOrInside, samePath } from './paths/same-path';
import { emptyDir } from './security/empty-dir';
import { holdSingleInstance } from './single-instance';
import { APP_ORIGIN, APP_SCHEME, CONTENT_SECURITY_POLICY, isAppUrl } from './web-security';
import type { PickPurpose } from '../shared/api/files';

// The user-data folder is the one paths/data-folders.ts computes (the CLI and the web host
// find the data folder inside it the same way), set before anything reads it: the single-
// instance lock, Chromium's profile. Electron would otherwise name it after package.json
// ("equivox" from source) and, on Windows, put it in the Roaming profile.
app.setPath('userData', userDataDir());

protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

const rendererRoot = join(import.meta.dirname, '..', 'renderer');

function serveApp(): void {
  protocol.handle(APP_SCHEME, (request) => {
    const url = new URL(request.url);
    if (url.host !== 'equivox') return new Response('not found', { status: 404 });
    const rel = decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname);
    const file = normalize(join(rendererRoot, rel));
    if (samePath(file, rendererRoot) || !isEqualOrInside(file, rendererRoot)) return new Response('forbidden', { status: 403 });
    return net.fetch(pathToFileURL(file).toString()).then((res) => {
      const headers = new Headers(res.headers);
      headers.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      return new Response(res.body, { status: res.status, headers });
    });
  });
}

/** Applied to every WebContents: no navigation away, no new windows, no permissions. */
function secureContents(contents: WebContents): void {
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  // An offline tool has no reason to open windows or external pages.
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

const OPEN_DIALOGS: Record<Exclude<PickPurpose, 'save-pdf'>, OpenDialogOptions> = {
  manifest: { title: 'Choose the spreadsheet of recordings', properties: ['openFile'], filters: [{ name: 'CSV or TSV', extensions: ['csv', 'tsv', 'txt'] }] },
  folder: { title: 'Choose a folder', properties: ['openDirectory'] },
  model: { title: 'Choose the model file', properties: ['openFile'], filters: [{ name: 'ONNX model', extensions: ['onnx'] }] },
  p12: { title: "Choose your organisation's certificate file", properties: ['openFile'], filters: [{ name: 'PKCS#12', extensions: ['p12', 'pfx'] }] },
  pdf: { title: 'Choose the report to check', properties: ['openFile'], filters: [{ name: 'PDF', extensions: ['pdf'] }] },
  'project-folder': { title: 'Choose a project folder', properties: ['openDirectory', 'createDirectory'] },
  'job-folder': { title: 'Choose a folder for the cluster job', properties: ['openDirectory', 'createDirectory'] },
};

/** The native dialog behind files.pick: runs in this (main) process, so the renderer never names a path itself. */
async function pickWithDialog(purpose: PickPurpose, parent: BrowserWindow | undefined): Promise<string | null> {
  if (purpose === 'save-pdf') {
    const options = { title: 'Save the report as', defaultPath: 'equivox-report.pdf', filters: [{ name: 'PDF', extensions: ['pdf'] }] };
    const r = parent ? await dialog.showSaveDialog(parent, options) : await dialog.showSaveDialog(options);
    return r.canceled || !r.filePath ? null : r.filePath;
  }
  const options = OPEN_DIALOGS[purpose];
  const r = parent ? await dialog.showOpenDialog(parent, options) : await dialog.showOpenDialog(options);
  return r.canceled ? null : (r.filePaths[0] ?? null);
}

/** engine-process.js (its own entry in electron.vite.config.ts) as an Electron utility process. */
function forkUtilityEngine(dataDir: string): EngineProcess {
  // In an empty folder of its own (security/empty-dir.ts), not / (macOS) or the home folder (Linux).
  const child = utilityProcess.fork(join(import.meta.dirname, 'engine-process.js'), [], { serviceName: 'Equivox engine', stdio: 'inherit', cwd: emptyDir(dataDir) });
  const exits: ((reason: string) => void)[] = [];
  let ended: string | null = null;
  child.on('exit', (code) => {
    ended = `exit code ${code}`;
    for (const l of exits.splice(0)) l(ended);
  });
  return {
    get pid() {
      return child.pid;
    },
    channel: { send: (m) => child.postMessage(m), onMessage: (l) => child.on('message', (m: unknown) => l(m as FromEngine)) },
    onExit: (l) => (ended !== null ? l(ended) : void exits.push(l)),
    kill: () => void child.kill(),
  };
}

async function main(): Promise<void> {
  const windows: BrowserWindow[] = [];
  // A second Equivox would run a second engine on the same data folder: it quits, this one comes forward.
  if (!holdSingleInstance(app, () => windows)) return;
  await app.whenReady();
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  // Chromium's spellchecker downloads dictionaries from Google on Windows and Linux.
  ses.setSpellCheckerEnabled(false);
  serveApp();
  app.on('web-contents-created', (_e, contents) => secureContents(contents));

  // Paths from the renderer only through a native dialog in this process (files.pick).
  // The engine (API, jobs, stores, onnxruntime) in a utility process: a native crash there
  // ends that process only, and this one restarts it (EngineClient); the window never waits on it.
  const dataDir = defaultDataDir();
  const engine = new EngineClient(
    () => forkUtilityEngine(dataDir),
    { host: 'electron', dataDir, pathPolicy: 'granted', picker: true, shell: true, keyStore: 'safeStorage' },
    {
      picker: (purpose) => pickWithDialog(purpose, windows[0]),
      // Reports open in the desktop's own viewer; the engine passes only paths it recorded.
      shell: { openPath: (path) => shell.openPath(path), showItemInFolder: (path) => shell.showItemInFolder(path) },
      // Auditors' signing keys are encrypted with the OS key store (Keychain, DPAPI, libsecret)
      // where one is available; safeStorage exists only in this process, so the engine asks here.
      keyStore: {
        // On Linux without a keyring safeStorage "encrypts" with a password built into Chromium
        // (backend basic_text): that protects nothing, so it counts as no key store and the
        // auditor chooses a passphrase instead.
        isAvailable: () => safeStorage.isEncryptionAvailable() && !(process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text'),
        encrypt: (plain) => safeStorage.encryptString(plain.toString('base64')),
        decrypt: (cipher) => Buffer.from(safeStorage.decryptString(cipher), 'base64'),
      },
    },
  );
  registerIpc(engine, engine.events, () => windows.map((w) => w.webContents));

  const win = new BrowserWindow({
    width: 1280,
    height: 860,
    show: false,
    title: 'Equivox',
    webPreferences: {
      preload: join(import.meta.dirname, '..', 'preload', 'index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
      // Middle-click would otherwise open links in new windows (electronegativity AUXCLICK_JS_CHECK).
      disableBlinkFeatures: 'Auxclick',
    },
  });
  windows.push(win);
  win.once('ready-to-show', () => win.show());
  await win.loadURL(`${APP_ORIGIN}/index.html`);

  app.on('window-all-closed', () => {
    void engine.close().finally(() => app.quit());
  });
}

void main();
