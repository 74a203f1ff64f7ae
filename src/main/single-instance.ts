/**
 * One Equivox per user: a second start (a double-click on the icon, a file opened from the
 * desktop) would start a second engine on the same data folder, with its own job queue
 * writing to the same projects. Electron's single-instance lock settles it: the second
 * process quits at once, and the first brings its window forward. Electron's `app` and
 * windows are passed in (index.ts), so this runs and is tested without Electron.
 */

/** The part of Electron's `app` this needs. */
export interface InstanceApp {
  requestSingleInstanceLock(): boolean;
  quit(): void;
  on(event: 'second-instance', listener: () => void): unknown;
}

/** The part of a BrowserWindow this needs. */
export interface FocusableWindow {
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  show(): void;
  focus(): void;
}

/**
 * True when this process holds the lock and goes on starting. False when another Equivox
 * holds it: Electron has told that one (its 'second-instance' event) and this one quits.
 */
export function holdSingleInstance(app: InstanceApp, windows: () => readonly FocusableWindow[]): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', () => {
    const win = windows().find((w) => !w.isDestroyed());
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  });
  return true;
}
