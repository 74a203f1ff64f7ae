/**
 * Labels as the auditor must see them to tell spellings apart: "female " and "female",
 * "spk1" and "spk\u200B1" look the same on screen. Used wherever a set of label variants
 * is shown (the Data step, the CLI's problems entry, the report's appendix).
 *
 * The invisible characters are every default-ignorable code point and every format
 * (Cf) character, plus the control characters (Cc) that are not whitespace: zero-width
 * space, joiner and non-joiner, word joiner, the byte order mark (zero-width no-break
 * space), soft hyphen, combining grapheme joiner, variation selectors, bidi marks and
 * overrides, tag characters, Hangul fillers. Unlike names (visible-text.ts), labels show
 * ZWJ and ZWNJ too: an auditor deciding whether two spellings are one group must see
 * every character that tells them apart.
 */
import type { LabelVariantSet } from './api/datasets';

/** What spellings of a set differ in (LabelDifference), in words. */
export const DIFFERENCE_PLAIN: Record<'case' | 'spaces' | 'invisible' | 'compatibility', string> = {
  case: 'letter case',
  spaces: 'spaces',
  invisible: 'invisible characters',
  compatibility: 'character width or ligatures',
};

/** The invisible characters of a label (see above). */
export const LABEL_INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]|(?!\s)\p{Cc}/gu;

const NAMES: Record<number, string> = {
  0x00ad: 'soft hyphen',
  0x034f: 'combining grapheme joiner',
  0x061c: 'Arabic letter mark',
  0x180e: 'Mongolian vowel separator',
  0x200b: 'zero-width space',
  0x200c: 'zero-width non-joiner',
  0x200d: 'zero-width joiner',
  0x200e: 'left-to-right mark',
  0x200f: 'right-to-left mark',
  0x202a: 'left-to-right embedding',
  0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting',
  0x202d: 'left-to-right override',
  0x202e: 'right-to-left override',
  0x2060: 'word joiner',
  0x2066: 'left-to-right isolate',
  0x2067: 'right-to-left isolate',
  0x2068: 'first strong isolate',
  0x2069: 'pop directional isolate',
  0xfe0e: 'text variation selector',
  0xfe0f: 'emoji variation selector',
  0xfeff: 'byte order mark (zero-width no-break space)',
};

function hex(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** "U+200B zero-width space"; other code points by number ("U+E0041 invisible character"). */
export function invisibleName(ch: string): string {
  const cp = ch.codePointAt(0)!;
  return `${hex(cp)} ${NAMES[cp] ?? 'invisible character'}`;
}

/**
 * A label with what cannot be seen written out: invisible characters as "<U+200B>",
 * spaces at either end or doubled as "␣", other spaces (no-break, ideographic, tabs) as
 * "<U+00A0>". Plain labels come back unchanged.
 */
export function visibleSpelling(s: string): string {
  const marked = s.replace(LABEL_INVISIBLE, (ch) => `<${hex(ch.codePointAt(0)!)}>`);
  // Single spaces between words stay; every other space is shown.
  return marked.replace(/\s/gu, (ch, at: number, all: string) => {
    if (ch !== ' ') return `<${hex(ch.codePointAt(0)!)}>`;
    const inside = at > 0 && at < all.length - 1 && !/\s/u.test(all[at - 1]!) && !/\s/u.test(all[at + 1]!);
    return inside ? ' ' : '␣';
  });
}

/** Whether a label is written in decomposed form (accents as separate marks, as macOS writes file names). */
export function isDecomposed(s: string): boolean {
  return s !== s.normalize('NFC');
}

/** A set's spellings with their counts: `“Female” (40), “female” (4)`. */
export function spellingsText(set: Pick<LabelVariantSet, 'spellings'>): string {
  return set.spellings.map((s) => `“${visibleSpelling(s.value)}” (${s.count})`).join(', ');
}

/** How a set was decided, in words: `one label, written “Female”` or `kept apart`, and whether the choice was made for every set of its column. */
export function decisionText(set: Pick<LabelVariantSet, 'decision'>): string {
  const d = set.decision;
  if (d === null) return 'not decided';
  const what = 'keep' in d ? 'kept apart' : `one label, written “${visibleSpelling(d.into)}”`;
  return d.by === 'every' ? `${what} (chosen for every set of the column)` : what;
}
