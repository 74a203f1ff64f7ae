/**
 * Security policy shared by the Electron host and the web host: one CSP, one rule for
 * which URLs the app may show.
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
