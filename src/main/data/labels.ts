/**
 * Labels that mean one person or group are one (METHODS.md § "The unit of inference",
 * Labels). Speaker ids and group labels are compared in two steps:
 *
 * 1. Without asking (meaning cannot change), every cell is put in Unicode NFC (names from
 *    Macs are decomposed: "Zoë" as "Zoe" + U+0308) and trimmed of whitespace and the byte
 *    order mark at its ends (JavaScript's trim). Where that made two ways of writing one
 *    label the same, the dataset records it ("unified").
 * 2. Values that then still differ only in letter case, spaces inside (doubled, tabs,
 *    no-break spaces), invisible characters (label-text.ts: zero-width space and joiners,
 *    soft hyphen, BOM, every default-ignorable or format character) or compatibility
 *    forms (full-width letters, ligatures: NFKC) form a set of variants. The import does
 *    not start until the auditor has said, for every set, whether it is one label (and
 *    which spelling it keeps) or several; the decision is stored with the dataset.
 *
 * Nothing is merged and nothing split without the auditor's word: an undecided set stops
 * the import before any clip is read. Case folding is full folding approximated by upper-
 * then lower-casing ("Straße" and "STRASSE" are variants), without locale rules.
 */
import type { ColumnMapping, LabelCheck, LabelChoice, LabelDifference, LabelRecord, LabelSpelling, LabelVariantSet, UnifiedLabel } from '../../shared/api/datasets';
import { LABEL_SETS_SHOWN } from '../../shared/api/datasets';
import { UserError } from '../../shared/errors';
import { invisibleName, LABEL_INVISIBLE, visibleSpelling } from '../../shared/label-text';
import { quoteUserText } from '../../shared/quote';

/** Printable ASCII with no space at either end: already NFC and trimmed (most cells; normalize() costs more than the rest of the check). */
const PLAIN_ASCII = /^[!-~](?:[ -~]*[!-~])?$/;

/** A cell as it is compared and stored: NFC, whitespace (and BOM) trimmed at both ends. */
export function canonicalLabel(raw: string): string {
  return PLAIN_ASCII.test(raw) ? raw : raw.normalize('NFC').trim();
}

const stripInvisible = (s: string) => s.replace(LABEL_INVISIBLE, '');
const collapseSpaces = (s: string) => s.replace(/\s+/gu, ' ').trim();
const compatible = (s: string) => s.normalize('NFKC');
const foldCase = (s: string) => s.toUpperCase().toLowerCase().normalize('NFKC');

/** The steps from a canonical label to its variant key, each named by what it erases. */
const STEPS: [LabelDifference, (s: string) => string][] = [
  ['invisible', stripInvisible],
  ['spaces', collapseSpaces],
  ['compatibility', compatible],
  ['case', foldCase],
];

/** Two canonical labels with the same key differ only in what STEPS erase. */
export function variantKey(value: string): string {
  let s = value;
  for (const [, step] of STEPS) s = step(s);
  return s;
}

/** What a set's spellings differ in: each step that made distinct spellings equal. */
function differencesOf(values: readonly string[]): LabelDifference[] {
  const out: LabelDifference[] = [];
  let forms = [...values];
  for (const [name, step] of STEPS) {
    const next = forms.map(step);
    if (new Set(next).size < new Set(forms).size) out.push(name);
    forms = next;
  }
  return out;
}

/** The columns whose values are labels: the speaker column, then each group label (a column mapped as both counts as the speaker). */
export function labelColumns(mapping: Pick<ColumnMapping, 'speaker' | 'groups'>): { column: string; kind: 'speaker' | 'group' }[] {
  const out: { column: string; kind: 'speaker' | 'group' }[] = [];
  if (mapping.speaker) out.push({ column: mapping.speaker, kind: 'speaker' });
  for (const g of mapping.groups) if (!out.some((c) => c.column === g)) out.push({ column: g, kind: 'group' });
  return out;
}

interface ValueTally {
  count: number;
  /** The first row that carried it (ties between equally common spellings go to it). */
  first: number;
  /** Raw spellings and their counts, only once one differed from the canonical value. */
  written: Map<string, number> | null;
}

/** Per label column, every canonical value with its count and raw spellings: one pass over the rows. */
export class LabelTally {
  private readonly byColumn = new Map<string, Map<string, ValueTally>>();
  readonly columns: { column: string; kind: 'speaker' | 'group' }[];

  constructor(mapping: Pick<ColumnMapping, 'speaker' | 'groups'>) {
    this.columns = labelColumns(mapping);
    for (const c of this.columns) this.byColumn.set(c.column, new Map());
  }

  add(values: Readonly<Record<string, string>>, row: number): void {
    for (const { column } of this.columns) {
      const raw = values[column] ?? '';
      const value = canonicalLabel(raw);
      if (value === '') continue;
      const by = this.byColumn.get(column)!;
      let t = by.get(value);
      if (!t) {
        t = { count: 0, first: row, written: null };
        by.set(value, t);
      }
      if (raw !== value && t.written === null) t.written = new Map([[value, t.count]]);
      t.count += 1;
      if (t.written) t.written.set(raw, (t.written.get(raw) ?? 0) + 1);
    }
  }

  /** The sets of variants (undecided) and the unified labels, most rows first. */
  findings(): { sets: LabelVariantSet[]; unified: UnifiedLabel[] } {
    const sets: (LabelVariantSet & { rows: number; first: number })[] = [];
    const unified: (UnifiedLabel & { first: number })[] = [];
    for (const { column, kind } of this.columns) {
      const byKey = new Map<string, [string, ValueTally][]>();
      for (const entry of this.byColumn.get(column)!) {
        const key = variantKey(entry[0]);
        const list = byKey.get(key);
        if (list) list.push(entry);
        else byKey.set(key, [entry]);
        const [value, t] = entry;
        if (t.written) {
          const written = [...t.written].filter(([, n]) => n > 0).map(([text, count]) => ({ text, count }));
          const how: UnifiedLabel['how'] = [];
          if (written.some((w) => w.text.trim().normalize('NFC') !== w.text.trim())) how.push('composed');
          if (written.some((w) => w.text !== w.text.trim())) how.push('trimmed');
          unified.push({ column, kind, value, count: t.count, written, how, first: t.first });
        }
      }
      for (const list of byKey.values()) {
        if (list.length < 2) continue;
        list.sort((a, b) => b[1].count - a[1].count || a[1].first - b[1].first);
        const spellings: LabelSpelling[] = list.map(([value, t]) => ({
          value,
          count: t.count,
          written: t.written ? [...t.written].filter(([, n]) => n > 0).map(([text, count]) => ({ text, count })) : [],
        }));
        const values = list.map(([v]) => v);
        const invisible = [...new Set(values.flatMap((v) => [...v.matchAll(LABEL_INVISIBLE)].map((m) => invisibleName(m[0]))))];
        sets.push({
          column,
          kind,
          spellings,
          differences: differencesOf(values),
          invisible,
          decision: null,
          rows: spellings.reduce((n, s) => n + s.count, 0),
          first: Math.min(...list.map(([, t]) => t.first)),
        });
      }
    }
    sets.sort((a, b) => b.rows - a.rows || a.first - b.first);
    unified.sort((a, b) => b.count - a.count || a.first - b.first);
    return {
      sets: sets.map(({ rows: _rows, first: _first, ...s }) => s),
      unified: unified.map(({ first: _first, ...u }) => u),
    };
  }
}

/** Count every label of the rows under a mapping. */
export function tallyLabels(rows: Iterable<{ rowIndex: number; values: Record<string, string> }>, mapping: Pick<ColumnMapping, 'speaker' | 'groups'>): LabelTally {
  const tally = new LabelTally(mapping);
  for (const r of rows) tally.add(r.values, r.rowIndex);
  return tally;
}

/** A choice for one set, its spellings canonical (an NFD or padded spelling in a choices file means the same). */
type SetChoice = { column: string; spellings: Set<string>; into: string | null; source: LabelChoice };

function canonicalChoices(choices: readonly LabelChoice[]): { sets: SetChoice[]; every: Map<string, { rule: 'most-common' | 'keep'; source: LabelChoice }> } {
  const sets: SetChoice[] = [];
  const every = new Map<string, { rule: 'most-common' | 'keep'; source: LabelChoice }>();
  for (const c of choices) {
    const column = c.column.normalize('NFC').trim();
    if ('every' in c) {
      if (!every.has(column)) every.set(column, { rule: c.every, source: c });
    } else sets.push({ column, spellings: new Set(c.spellings.map(canonicalLabel)), into: 'into' in c ? canonicalLabel(c.into) : null, source: c });
  }
  return { sets, every };
}

/** The outcome of the check with choices applied: what to show, what to store, and the spelling each label becomes. */
export interface LabelResolution {
  check: LabelCheck;
  /** Every set's decision as a choice naming that set: stored with the dataset, reused on a re-import. */
  decided: LabelChoice[];
  /** Per column, the canonical values that a merge renames. */
  merges: Map<string, Map<string, string>>;
  /** The record the dataset keeps. */
  record: LabelRecord;
}

/**
 * Apply the auditor's choices to a tally's sets. The first choice naming a set's column
 * and all of its spellings decides it; otherwise a choice for every set of the column;
 * otherwise the same in `fallback` (the decisions a dataset kept from an earlier import);
 * otherwise it stays undecided. `unusedChoices` lists the choices given (not the
 * fallback) that decided nothing.
 */
export function resolveLabels(tally: LabelTally, choices: readonly LabelChoice[] = [], fallback: readonly LabelChoice[] = []): LabelResolution {
  const { sets, unified } = tally.findings();
  const given = canonicalChoices(choices);
  const earlier = canonicalChoices(fallback);
  const used = new Set<LabelChoice>();
  const decided: LabelChoice[] = [];
  const merges = new Map<string, Map<string, string>>();
  let undecided = 0;
  for (const set of sets) {
    const values = set.spellings.map((s) => s.value);
    let into: string | null = null;
    // The choices given decide first (a set's own, then its column's); the fallback (a dataset's stored decisions) only what they leave open.
    for (const from of [given, earlier]) {
      const own = from.sets.find((c) => c.column === set.column && values.every((v) => c.spellings.has(v)));
      const rule = own ? undefined : from.every.get(set.column);
      if (own) {
        used.add(own.source);
        into = own.into;
        set.decision = into === null ? { keep: true, by: 'set' } : { into, by: 'set' };
      } else if (rule) {
        used.add(rule.source);
        into = rule.rule === 'most-common' ? values[0]! : null;
        set.decision = into === null ? { keep: true, by: 'every' } : { into, by: 'every' };
      }
      if (set.decision) break;
    }
    if (!set.decision) {
      undecided += 1;
      continue;
    }
    decided.push(into === null ? { column: set.column, spellings: values, keep: true } : { column: set.column, spellings: values, into });
    if (into !== null) {
      const m = merges.get(set.column) ?? new Map<string, string>();
      for (const v of values) if (v !== into) m.set(v, into);
      merges.set(set.column, m);
    }
  }
  const check: LabelCheck = {
    sets: sets.slice(0, LABEL_SETS_SHOWN),
    setsTotal: sets.length,
    undecided,
    unified: unified.slice(0, LABEL_SETS_SHOWN),
    unifiedTotal: unified.length,
    unusedChoices: choices.filter((c) => !used.has(c)),
  };
  return {
    check,
    decided,
    merges,
    record: { sets: check.sets, setsTotal: check.setsTotal, unified: check.unified, unifiedTotal: check.unifiedTotal },
  };
}

/** The spelling a cell's label is stored as: canonical, then renamed where the auditor merged its set. */
export function labelWriter(merges: ReadonlyMap<string, ReadonlyMap<string, string>>): (column: string, raw: string) => string {
  return (column, raw) => {
    const value = canonicalLabel(raw);
    return merges.get(column)?.get(value) ?? value;
  };
}

/** One set in words: `gender: “Female” (40), “female” (4)`. */
export function describeSet(set: Pick<LabelVariantSet, 'column' | 'spellings'>): string {
  return `${quoteUserText(set.column, 60)}: ${set.spellings.map((s) => `“${quoteUserText(visibleSpelling(s.value), 60)}” (${s.count})`).join(', ')}`;
}

/** The import's refusal while sets are undecided: how many, the first few, and what to do. */
export function undecidedError(check: LabelCheck): UserError {
  const open = check.sets.filter((s) => s.decision === null);
  const shown = open.slice(0, 3).map(describeSet).join('; ');
  const n = check.undecided;
  return new UserError(
    `${n === 1 ? 'one set' : `${n} sets`} of labels that differ only in letter case, spaces or invisible characters ${n === 1 ? 'is' : 'are'} undecided (nothing says whether ${n === 1 ? 'it is' : 'each is'} one group or speaker, or several): ${shown}${n > 3 ? '; …' : ''}. Choose for each before importing; nothing is merged or kept apart without your word`,
    'labelChoices',
  );
}
