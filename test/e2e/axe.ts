import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, type TestInfo } from '@playwright/test';

export interface AxeSummary {
  screen: string;
  serious: string[];
  other: string[];
}

/**
 * Run axe (WCAG 2.1 A/AA rules) on the current screen; fail on serious or critical
 * violations, attach the full list of findings to the test.
 */
export async function checkAccessibility(page: Page, screen: string, info: TestInfo): Promise<AxeSummary> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const describe = (v: (typeof result.violations)[number]) => `${v.id} [${v.impact}]: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`;
  const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map(describe);
  const other = result.violations.filter((v) => !(v.impact === 'serious' || v.impact === 'critical')).map(describe);
  const summary = { screen, serious, other };
  await info.attach(`axe-${screen}.json`, { body: JSON.stringify(summary, null, 2), contentType: 'application/json' });
  expect.soft(serious, `axe found serious or critical problems on "${screen}"`).toEqual([]);
  return summary;
}
