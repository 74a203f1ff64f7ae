/**
 * Label variants on the command line (src/main/data/labels.ts): `datasets import` and
 * `datasets preview` report undecided sets as a `problems` entry (code "label_variants",
 * each set with its spellings, counts and what they differ in), and `--labels FILE.json`
 * passes the auditor's word: a list of choices,
 *
 *   {"column": "gender", "spellings": ["Female", "female"], "into": "Female"}   one label, spelt "Female"
 *   {"column": "speaker", "spellings": ["spk1", "SPK1"], "keep": true}          different labels
 *   {"column": "speaker", "every": "most-common"}                               every set of the column, merged into its most frequent spelling ("keep": every set kept apart)
 *
 * The problems entry lists each undecided set as {column, spellings} ready to copy into
 * that file; adding "into" or "keep" is the auditor's part.
 */
import type { LabelCheck, LabelChoice, LabelVariantSet } from '../../shared/api/datasets';
import { LabelChoices } from '../../shared/api/datasets';
import { UserError } from '../../shared/errors';
import { DIFFERENCE_PLAIN, visibleSpelling } from '../../shared/label-text';
import { quoteUserText } from '../../shared/quote';
import { readInputFile } from '../security/input-file';
import { describeSet } from '../data/labels';

/** Read and check a `--labels` file; errors name the file and the entry at fault. */
export async function readLabelChoices(file: string): Promise<LabelChoice[]> {
  const bytes = await readInputFile(file, 'label-choices', 'labels');
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new UserError(`the label choices ${file} are not valid JSON: ${quoteUserText((err as Error).message)}`, 'labels');
  }
  const parsed = LabelChoices.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    const where = first.path.length ? `entry ${first.path.map((p) => (typeof p === 'number' ? `${p + 1}` : String(p))).join(' → ')}: ` : '';
    throw new UserError(
      `the label choices ${file} do not read as a list of choices (${where}${first.message}); each is {"column": C, "spellings": [...], "into": S}, {"column": C, "spellings": [...], "keep": true} or {"column": C, "every": "most-common" | "keep"}`,
      'labels',
    );
  }
  return parsed.data;
}

/** A spelling with what cannot be seen written out, beside the text itself, where they differ. */
function spellingOut(s: { value: string; count: number; written: { text: string; count: number }[] }) {
  const shown = visibleSpelling(s.value);
  return {
    value: s.value,
    ...(shown !== s.value ? { shown } : {}),
    count: s.count,
    ...(s.written.length > 0 ? { written: s.written.map((w) => ({ shown: visibleSpelling(w.text), count: w.count })) } : {}),
  };
}

function setOut(set: LabelVariantSet) {
  return { column: set.column, kind: set.kind, differences: set.differences, ...(set.invisible.length ? { invisible: set.invisible } : {}), spellings: set.spellings.map(spellingOut) };
}

/** The `problems` entries of a label check: undecided sets (they stop an import), and choices that decide nothing. */
export function labelProblems(check: LabelCheck): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (check.undecided > 0) {
    const open = check.sets.filter((s) => s.decision === null);
    const n = check.undecided;
    out.push({
      code: 'label_variants',
      message: `${n === 1 ? 'one set' : `${n} sets`} of labels differ only in letter case, spaces or invisible characters; nothing is merged or kept apart until you say which for each`,
      sets: open.map(setOut),
      ...(open.length < n ? { setsNotListed: n - open.length } : {}),
      toDecide: open.map((s) => ({ column: s.column, spellings: s.spellings.map((x) => x.value) })),
      fix: 'copy "toDecide" into a JSON file, add "into": SPELLING (one label, spelt so) or "keep": true (different labels) to each entry, and pass it with --labels FILE.json; {"column": C, "every": "most-common"} or {"column": C, "every": "keep"} decides every set of a column at once',
    });
  }
  if (check.unusedChoices.length > 0) {
    out.push({
      code: 'label_choices_unused',
      message: `${check.unusedChoices.length} of the label choices given decide no set of spellings in the data (a column or spelling written differently, or the data changed)`,
      choices: check.unusedChoices,
    });
  }
  return out;
}

/** One line per undecided set for stderr (the first 10), and one for the rest. */
export function labelProblemLines(check: LabelCheck): string[] {
  const open = check.sets.filter((s) => s.decision === null);
  const lines = open.slice(0, 10).map((s) => `  ${describeSet(s)} (differ in ${s.differences.map((d) => DIFFERENCE_PLAIN[d]).join(', ')})`);
  if (check.undecided > lines.length) lines.push(`  … and ${check.undecided - lines.length} more (see "problems" in the output)`);
  return lines;
}
