/**
 * Text from the user's files (a header line, a cell, a column name, a JSON snippet) in an
 * error message: at most 200 characters of it, cut with "…" (issue 23.7). A 50 MB header
 * line was echoed whole into the error, on stdout and stderr, and 58 MB of JSON came
 * back from a preview. Every message that quotes file content goes through here.
 */
export const MAX_QUOTED_CHARS = 200;

/** `text` whole when short; else its first characters (never half of a surrogate pair) and "…", 200 characters of it in all. */
export function quoteUserText(text: string, max = MAX_QUOTED_CHARS): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** Values joined with ", " for a message ("found: a, b, c"), the whole list within the same limit. */
export function quoteUserList(values: readonly string[], max = MAX_QUOTED_CHARS): string {
  // Joining a million column names only to cut them: stop once past the limit.
  const parts: string[] = [];
  let length = 0;
  let rest = false;
  for (const v of values) {
    if (length > max) {
      rest = true;
      break;
    }
    parts.push(v.length > max ? v.slice(0, max) : v);
    length += Math.min(v.length, max) + 2;
  }
  const joined = parts.join(', ');
  return quoteUserText(rest ? `${joined}, …` : joined, max);
}
