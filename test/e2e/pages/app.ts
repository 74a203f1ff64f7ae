import { expect, type Locator, type Page, type TestInfo } from '@playwright/test';
import { checkAccessibility } from '../axe';

/** Page model of the auditor's app: screens by what the auditor sees, not by CSS. */
export class AuditorApp {
  private shot = 0;
  constructor(
    readonly page: Page,
    readonly info: TestInfo,
  ) {}

  /** Accessibility check plus a full-page screenshot, attached to the test. */
  async record(name: string): Promise<void> {
    await checkAccessibility(this.page, name, this.info);
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

  async next(): Promise<void> {
    const next = this.page.getByRole('button', { name: /^Next: / });
    await expect(next).toBeEnabled({ timeout: 60_000 });
    await next.click();
  }
}
