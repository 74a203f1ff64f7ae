import { expect, type Locator, type Page, type TestInfo } from '@playwright/test';
import { checkAccessibility } from '../axe';

/**
 * No horizontal overflow of the page and no visible control narrower than 12 px (squashed
 * checkboxes, buttons). The screen checks are soft assertions: the journey goes on, so one
 * run names every screen's findings, and the test still fails on any of them.
 */
export async function checkLayout(page: Page, screen: string): Promise<void> {
  const r = await page.evaluate(() => {
    const controls = [...document.querySelectorAll<HTMLElement>('button, input:not([type="hidden"]), select, textarea, summary, a[href], [role="tab"], [role="checkbox"], [role="radio"]')];
    const narrow = controls
      .filter((el) => {
        const rect = el.getBoundingClientRect();
        const style = getComputedStyle(el);
        // Hidden controls (closed details, other tabs, visually hidden helpers) take no space.
        return rect.width > 0 && rect.height > 0 && style.visibility !== 'hidden' && !el.closest('.visually-hidden');
      })
      .map((el) => ({ what: `${el.tagName.toLowerCase()}${el.getAttribute('type') ? `[${el.getAttribute('type')}]` : ''} "${(el.getAttribute('aria-label') ?? el.textContent ?? el.id).trim().slice(0, 40)}"`, width: el.getBoundingClientRect().width }))
      .filter((c) => c.width < 12);
    // A box that scrolls sideways inside the page hides what sticks out (a table's last
    // columns, the end of its sentences) just as a page that overflows does. Only the
    // preview of the auditor's own spreadsheet may scroll: its columns are theirs.
    const clipped = [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((el) => {
        const style = getComputedStyle(el);
        if (style.overflowX !== 'auto' && style.overflowX !== 'scroll') return false;
        if (el.closest('[data-scrolls-sideways]') || el.clientWidth === 0) return false;
        return el.scrollWidth > el.clientWidth + 1;
      })
      .map((el) => `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''} "${(el.getAttribute('aria-label') ?? el.querySelector('caption, h2, h3, h4')?.textContent ?? '').trim().slice(0, 50)}": ${el.scrollWidth} px in ${el.clientWidth} px`);
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, narrow, clipped };
  });
  expect.soft(r.scrollWidth, `"${screen}" scrolls sideways: ${r.scrollWidth} px of content in a ${r.innerWidth} px window`).toBeLessThanOrEqual(r.innerWidth);
  expect.soft(r.clipped, `"${screen}" has boxes that scroll sideways, hiding part of their content`).toEqual([]);
  expect.soft(r.narrow, `"${screen}" has controls narrower than 12 px`).toEqual([]);
}

/**
 * Numbers printed with more digits than anyone reads (e.g. "-0.174364290558346"): more than
 * three significant digits after the point ("0.0047" and "0.00001" are fine, "0.17436" is
 * not). Full precision belongs in hover titles and exports. A decision threshold right after
 * the word "threshold" is exempt: it is printed with as many decimals as tell apart the
 * thresholds its section names (src/shared/threshold-format.ts; "0.92351" beside "0.92420").
 */
export function unroundedNumbers(line: string): string[] {
  return [...line.matchAll(/\d+\.(\d+)/g)]
    .filter((m) => m[1]!.replace(/^0+/, '').length > 3)
    .filter((m) => !/\bthreshold\s*(?:=|of|at)?\s*$/i.test(line.slice(Math.max(0, m.index! - 24), m.index!)))
    .map((m) => m[0]);
}

/** Words a non-programmer should never see: script paths and source file names. */
export const DEVELOPER_TEXT = /(^|[\s("'“])scripts\/|\b[\w.-]+\.(mjs|cjs|ts|tsx)\b/;

export async function checkWording(page: Page, screen: string): Promise<void> {
  const { texts, shown } = await page.evaluate(() => {
    const attr = (names: string[]) => [...document.querySelectorAll(names.map((n) => `[${n}]`).join(', '))].flatMap((el) => names.map((a) => el.getAttribute(a) ?? ''));
    // Chart labels are SVG text, which innerText leaves out.
    const svg = [...document.querySelectorAll('svg text, svg title')].map((t) => t.textContent ?? '');
    const read = [document.body.innerText, ...svg, ...attr(['aria-label', 'placeholder', 'alt'])];
    return { texts: [...read, ...attr(['title'])], shown: read };
  });
  const bad = texts.flatMap((t) => t.split('\n')).filter((line) => DEVELOPER_TEXT.test(line));
  expect.soft(bad, `"${screen}" shows developer file names`).toEqual([]);
  // One number formatter everywhere: what is read is rounded (hover titles keep full precision).
  const raw = shown.flatMap((t) => t.split('\n')).filter((line) => unroundedNumbers(line).length > 0);
  expect.soft(raw, `"${screen}" shows unrounded numbers`).toEqual([]);
}

/** Page model of the auditor's app: screens by what the auditor sees, not by CSS. */
export class AuditorApp {
  private shot = 0;
  constructor(
    readonly page: Page,
    readonly info: TestInfo,
  ) {}

  /**
   * Accessibility, layout and wording checks plus a full-page screenshot, attached to the
   * test: axe (no serious or critical finding), no horizontal overflow, no visible control
   * narrower than 12 px, and no developer file names in what the screen shows.
   */
  async record(name: string): Promise<void> {
    // No tooltip opened by where the mouse happened to stop.
    await this.page.mouse.move(0, 0);
    await checkAccessibility(this.page, name, this.info);
    await checkLayout(this.page, name);
    await checkWording(this.page, name);
    this.shot += 1;
    const file = this.info.outputPath(`${String(this.shot).padStart(2, '0')}-${name}.png`);
    await this.page.screenshot({ path: file, fullPage: true });
    await this.info.attach(name, { path: file, contentType: 'image/png' });
  }

  heading(name: string | RegExp): Locator {
    return this.page.getByRole('heading', { level: 1, name });
  }

  async createProject(name: string): Promise<void> {
    await this.page.getByLabel('Project name').fill(name);
    await this.page.getByRole('button', { name: 'Create project' }).click();
    await expect(this.heading(name)).toBeVisible();
  }

  async openProject(name: string): Promise<void> {
    await this.page.getByRole('list', { name: 'Recent projects' }).getByRole('button', { name }).click();
    await expect(this.heading(name)).toBeVisible();
  }

  async expectStep(n: number, name: string): Promise<void> {
    await expect(this.heading(`Step ${n} of 8: ${name}`)).toBeVisible();
    await expect(this.page.getByRole('navigation', { name: 'Audit steps' }).getByRole('button', { name: new RegExp(name) })).toHaveAttribute('aria-current', 'step');
  }

  /**
   * Choose a file or folder with the in-app chooser (the web host's): open it with the
   * "Choose…" button of `label`, go to the folder, and pick the file (or the folder).
   */
  async choose(label: string, path: string, kind: 'file' | 'folder' = 'file', shot?: string, startsIn?: string): Promise<void> {
    const page = this.page;
    await page.getByRole('button', { name: new RegExp(`^Choose(?: folder)?… ${escapeRegExp(label)}$`) }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toBeVisible();
    // It opens where the auditor's files are likely to be, and never asks for an Up that cannot be pressed.
    if (startsIn) await expect(dialog.locator('.chooser-where code')).toHaveText(startsIn);
    await expect(dialog.locator('.chooser-where code')).not.toHaveText('…');
    if (await dialog.getByText(/Press Up/).count()) await expect(dialog.getByRole('button', { name: /Up to the parent folder/ })).toBeEnabled();
    const parts = path.split('/').filter(Boolean);
    const target = kind === 'file' ? parts.slice(0, -1) : parts;
    const tmpRoot = dialog.getByRole('button', { name: /^Temporary files/ });
    const rootText = /\((.*)\)/.exec(await tmpRoot.innerText())![1]!;
    await tmpRoot.click();
    await expect(dialog.locator('.chooser-where code')).toHaveText(rootText);
    const rootParts = rootText.split('/').filter(Boolean);
    // The list shows only the rows in view (the temporary folder can hold thousands):
    // scroll it until the row is there, then open it. (Typing a name to jump is tested
    // by import-spreadsheet.spec.ts; under heavy load its timing is not reliable.)
    const openRow = async (name: string, what: 'folder' | 'file') => {
      const row = dialog.getByRole('button', { name: new RegExp(`^${escapeRegExp(name)}\\s*, ${what}`) });
      const scroller = dialog.locator('.windowed');
      await expect(dialog.locator('.chooser-row[data-index="0"]')).toBeVisible();
      const [height, view] = await scroller.evaluate((el) => [el.scrollHeight, el.clientHeight]);
      // The list renders its view plus six rows (240 px) either side: steps of a view and
      // 200 px overlap, so no row is skipped, in fewer round trips than row-sized steps.
      const step = view + 200;
      for (let top = 0; (await row.count()) === 0 && top <= height; top += step) {
        // Set the position and wait two frames, so the list has rendered the rows now in view.
        await scroller.evaluate(async (el, t) => {
          el.scrollTop = t;
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        }, top);
      }
      await row.click();
    };
    for (const part of target.slice(rootParts.length)) {
      await openRow(part, 'folder');
      await expect(dialog.locator('.chooser-where code')).toHaveText(new RegExp(`/${escapeRegExp(part)}$`));
    }
    // The chooser itself is a screen of the journey: checked like the others when asked.
    if (shot) await this.record(shot);
    if (kind === 'file') await openRow(parts[parts.length - 1]!, 'file');
    else await dialog.getByRole('button', { name: 'Choose this folder' }).click();
    await expect(dialog).toBeHidden();
  }

  async next(): Promise<void> {
    const next = this.page.getByRole('button', { name: /^Next: / });
    await expect(next).toBeEnabled({ timeout: 60_000 });
    await next.click();
  }
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
