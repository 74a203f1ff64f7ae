/** A language code in English words ("German"); with `withCode`, "German (de)". The code alone where the browser has no name for it. */
export function languageName(code: string, withCode = false): string {
  try {
    const name = new Intl.DisplayNames(['en'], { type: 'language' }).of(code);
    if (name && name !== code) return withCode ? `${name} (${code})` : name;
  } catch {
    // An unknown code: show it as it is.
  }
  return code;
}
