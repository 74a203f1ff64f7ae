import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { _electron as electron, expect, test } from '@playwright/test';
import type { EquivoxBridge } from '../../src/shared/api';

declare global {
  interface Window {
    equivox?: EquivoxBridge;
  }
}

// The Electron binary is downloaded by electron's install script, which cannot reach
// its download host on machines without internet; there the desktop suite is skipped.
function electronBinary(): string | null {
  try {
    const require = createRequire(import.meta.url);
    const path = require('electron') as unknown as string;
    return typeof path === 'string' && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

const binary = electronBinary();

test.describe('desktop app (Electron)', () => {
  test.skip(binary === null, 'no Electron binary on this machine (its download is blocked offline); the web-host suite covers the renderer and engine');

  test('opens the app window with the security settings applied', async () => {
    const app = await electron.launch({ executablePath: binary!, args: ['out/main/index.js'] });
    const page = await app.firstWindow();
    await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeVisible();
    // No Node in the page, only the two bridge functions.
    const exposed = await page.evaluate(() => ({
      require: typeof (window as unknown as { require?: unknown }).require,
      process: typeof (window as unknown as { process?: unknown }).process,
      bridge: Object.keys(window.equivox ?? {}).sort(),
    }));
    expect(exposed).toEqual({ require: 'undefined', process: 'undefined', bridge: ['invoke', 'onEvent'] });
    // Navigation away from the app shell is refused.
    await page.evaluate(() => {
      window.location.href = 'https://example.com/';
    });
    await page.waitForTimeout(500);
    expect(page.url()).toMatch(/^app:\/\/equivox\//);
    await app.close();
  });
});
