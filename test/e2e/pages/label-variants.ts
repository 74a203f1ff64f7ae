import { expect, type Locator, type Page } from '@playwright/test';
import { escapeRegExp } from './app';

/**
 * Page model of the Data step's label check (components/LabelVariants.tsx): the sets of
 * spellings that differ only in case, spaces or invisible characters, each with its
 * counts and the auditor's choice, and the labels unified without asking.
 */
export class LabelVariantsPanel {
  readonly region: Locator;
  constructor(readonly page: Page) {
    this.region = page.getByRole('region', { name: 'Labels that may mean the same group or person' });
  }

  /** One set, by its column as the legend names it ("Group label “gender”", "Speaker column “speaker”"). */
  set(legend: string): Locator {
    return this.region.getByRole('group', { name: new RegExp(`^${escapeRegExp(legend)}: `) });
  }

  /** The spellings of a set as shown, with their counts and notes, row by row. */
  async spellings(legend: string): Promise<string[][]> {
    const rows = this.set(legend).getByRole('table').getByRole('row');
    const n = await rows.count();
    const out: string[][] = [];
    for (let i = 1; i < n; i++) out.push((await rows.nth(i).getByRole('cell').allInnerTexts()).map((t) => t.trim()));
    return out;
  }

  /** Say that a set is one label written `spelling` (as shown), or different labels (`keep`). */
  async decide(legend: string, answer: { into: string } | 'keep'): Promise<void> {
    const set = this.set(legend);
    const radio = answer === 'keep' ? set.getByRole('radio', { name: /keep them apart$/ }) : set.getByRole('radio', { name: new RegExp(`^One (group|speaker), written “${escapeRegExp(answer.into)}”$`) });
    await radio.check();
    await expect(radio).toBeChecked();
  }

  status(): Locator {
    return this.region.getByRole('status');
  }

  /** The line saying how many labels were made the same without asking; click it to list them. */
  unifiedSummary(): Locator {
    return this.region.getByText(/written in more than one way (was|were) made the same without asking$/);
  }

  unifiedItems(): Locator {
    return this.region.getByRole('listitem');
  }
}
