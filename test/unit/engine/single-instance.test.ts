/**
 * One Equivox per user (src/main/single-instance.ts): a second start quits and the running
 * one comes forward. Electron's `app` and window are replaced by recorders with the same
 * methods; Electron's own lock is what a real second process meets.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdSingleInstance, type FocusableWindow, type InstanceApp } from '../../../src/main/single-instance';

function fakeApp(lockFree: boolean): InstanceApp & { calls: string[]; secondInstance: () => void } {
  const listeners: (() => void)[] = [];
  const calls: string[] = [];
  return {
    calls,
    requestSingleInstanceLock: () => (calls.push('requestSingleInstanceLock'), lockFree),
    quit: () => void calls.push('quit'),
    on: (event, l) => (calls.push(`on ${event}`), listeners.push(l)),
    secondInstance: () => listeners.forEach((l) => l()),
  };
}

function fakeWindow(state: { minimized: boolean; destroyed?: boolean }): FocusableWindow & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    isDestroyed: () => state.destroyed === true,
    isMinimized: () => state.minimized,
    restore: () => void calls.push('restore'),
    show: () => void calls.push('show'),
    focus: () => void calls.push('focus'),
  };
}

describe('one Equivox at a time', () => {
  it('a second start quits at once, before any window or engine', () => {
    const app = fakeApp(false);
    expect(holdSingleInstance(app, () => [])).toBe(false);
    expect(app.calls).toEqual(['requestSingleInstanceLock', 'quit']);
  });

  it('the first one, told of a second start, restores its minimised window and brings it forward', () => {
    const app = fakeApp(true);
    const closed = fakeWindow({ minimized: false, destroyed: true });
    const win = fakeWindow({ minimized: true });
    const windows: FocusableWindow[] = [];
    expect(holdSingleInstance(app, () => windows)).toBe(true);
    expect(app.calls).toEqual(['requestSingleInstanceLock', 'on second-instance']);
    app.secondInstance(); // before the window exists: nothing to show, nothing thrown
    windows.push(closed, win);
    app.secondInstance();
    expect(closed.calls).toEqual([]);
    expect(win.calls).toEqual(['restore', 'show', 'focus']);
    const open = fakeWindow({ minimized: false });
    windows.splice(0, 2, open);
    app.secondInstance();
    expect(open.calls).toEqual(['show', 'focus']);
  });

  it('the Electron main process takes the lock before it starts anything', () => {
    const main = readFileSync(join(__dirname, '../../../src/main/index.ts'), 'utf8');
    const body = main.slice(main.indexOf('async function main()'));
    expect(body.indexOf('holdSingleInstance(app')).toBeGreaterThan(0);
    expect(body.indexOf('holdSingleInstance(app')).toBeLessThan(body.indexOf('app.whenReady()'));
    expect(body.indexOf('holdSingleInstance(app')).toBeLessThan(body.indexOf('new EngineClient('));
  });
});
