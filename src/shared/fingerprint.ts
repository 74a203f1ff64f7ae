/**
 * Certificate fingerprints as people pass them on (read out on the phone, pasted from a
 * message): SHA-256 of the certificate, 64 hexadecimal digits, written with or without
 * colons, spaces or dashes, in either case. One reading for the engine and the app.
 */

/** The 64 hex digits, upper case, or null when the text is not a whole SHA-256 fingerprint. */
export function normaliseFingerprint(text: string): string | null {
  const hex = text.replace(/[\s:.-]/g, '').toUpperCase();
  return /^[0-9A-F]{64}$/.test(hex) ? hex : null;
}

/** In groups of four digits, easier to read aloud and compare than colon pairs. */
export function fingerprintGroups(fingerprint: string): string[] {
  return fingerprint.replace(/[\s:.-]/g, '').toUpperCase().match(/.{1,4}/g) ?? [];
}

/**
 * How typed text compares with the fingerprint: 'match', 'partial' (a correct beginning,
 * not finished), or the 1-based group of four digits where they first differ.
 */
export function compareFingerprint(typed: string, fingerprint: string): { state: 'empty' | 'match' | 'partial' } | { state: 'differs'; group: number } {
  const want = fingerprint.replace(/[\s:.-]/g, '').toUpperCase();
  const got = typed.replace(/[\s:.-]/g, '').toUpperCase();
  if (got === '') return { state: 'empty' };
  for (let i = 0; i < got.length; i += 1) if (got[i] !== want[i]) return { state: 'differs', group: Math.floor(i / 4) + 1 };
  return got.length === want.length ? { state: 'match' } : { state: 'partial' };
}
