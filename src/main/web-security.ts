/**
 * Security policy shared by the Electron host and the web host: one CSP, one rule for
 * which URLs the app may show; and how deeply a request body may nest.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // React and ECharts set styles through the CSSOM; inline style attributes need this.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const APP_SCHEME = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://equivox`;

/** The only pages the Electron window may show: the app shell on app://equivox. */
export function isAppUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === 'equivox';
  } catch {
    return false;
  }
}

/**
 * How deeply a JSON request body nests, found by scanning it (strings skipped), before
 * anything is built from it. JSON.parse itself copes with 10^5 levels, but the structured
 * clone that carries a request to the engine process recurses and overflows the stack
 * ("Maximum call stack size exceeded", a 500); no operation's input nests deeper than a
 * dozen levels.
 */
export const MAX_JSON_DEPTH = 64;

/** True when `text` opens more than `max` arrays or objects inside one another. */
export function jsonNestsBeyond(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}
