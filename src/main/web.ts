/**
 * Web host: the renderer built for the browser plus the API over HTTP, on 127.0.0.1
 * only, a random free port and a per-launch token. It exists so the real renderer and
 * the real engine are tested together in Chromium where Electron cannot run.
 *
 * The token is a secret for this launch (valid until the host stops). The launch URL
 * carries it once: opening it sets an HttpOnly, SameSite=Strict cookie for this port
 * and redirects to the same page without the token, so it leaves the address bar and
 * history. After that the API accepts the token only from that cookie or the
 * X-Equivox-Token header, never from a query string. Requests that carry an Origin
 * other than the host's own, or that a browser marks as cross-site (Sec-Fetch-Site),
 * are refused, as are foreign Host headers (DNS rebinding). Malformed URLs get 400, and
 * every response says nosniff.
 */
// First, before anything can load onnxruntime-node: its native telemetry off.
import './security/telemetry-off';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { toErrorShape } from './error-shape';
import { forkEngine } from './engine-fork';
import { emptyDir } from './security/empty-dir';
import { defaultDataDir } from './store/data-dir';
import { EngineClient } from './engine-transport';
import { isEqualOrInside, samePath } from './paths/same-path';
import { CONTENT_SECURITY_POLICY, jsonNestsBeyond, MAX_JSON_DEPTH } from './web-security';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.ico': 'image/x-icon',
};

const MAX_BODY = 10 * 1024 * 1024;

export interface WebHost {
  url: string;
  token: string;
  port: number;
  /** The engine process behind the API (engine-process.ts), restarted when it dies. */
  engine: EngineClient;
  close(): Promise<void>;
}

function tokenMatches(given: string | null | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Headers every response carries. */
const BASE_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' } as const;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': 'application/json; charset=utf-8' });
  res.end(text);
}

function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  res.end(text);
}

function cookie(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** Sec-Fetch-Site values of requests the page itself (or the user typing the URL) makes. */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw Object.assign(new Error('request body too large'), { status: 413 });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startWebHost(options: { port?: number; dataDir?: string; staticDir?: string } = {}): Promise<WebHost> {
  // Paths only through the in-app chooser (files.browse + files.grant), the demo or project folders.
  // The engine runs in its own process, so a long report build or a native crash never stalls or ends this server.
  // The engine starts in an empty folder inside its data folder, not in this process's (the checkout).
  const cwd = emptyDir(options.dataDir ?? defaultDataDir());
  const engine = new EngineClient(() => forkEngine(undefined, cwd), { host: 'web', pathPolicy: 'granted', picker: false, shell: false, ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
  await engine.whenReady();
  const api = engine;
  const token = randomBytes(24).toString('base64url');
  const staticDir = resolve(options.staticDir ?? join(process.cwd(), 'out', 'web'));
  let port = 0;

  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // DNS-rebinding guard: only our own host names.
    const host = req.headers.host ?? '';
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return send(res, 403, { ok: false, error: { code: 'validation', message: 'bad Host header' } });
    // Another site (or another local server on another port) driving this browser.
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${host}`) return send(res, 403, { ok: false, error: { code: 'validation', message: 'requests from another origin are refused', field: 'origin' } });
    let url: URL;
    let pathname: string;
    try {
      url = new URL(req.url ?? '/', `http://${host}`);
      pathname = decodeURIComponent(url.pathname);
    } catch {
      return send(res, 400, { ok: false, error: { code: 'validation', message: 'malformed URL', field: 'url' } });
    }
    const cookieName = `equivox_token_${port}`;

    if (pathname.startsWith('/api/')) {
      const site = req.headers['sec-fetch-site'];
      if (typeof site === 'string' && !OWN_FETCH_SITES.has(site)) {
        return send(res, 403, { ok: false, error: { code: 'validation', message: 'cross-site requests are refused', field: 'origin' } });
      }
      const header = req.headers['x-equivox-token'];
      const given = typeof header === 'string' ? header : cookie(req, cookieName);
      if (!tokenMatches(given, token)) {
        return send(res, 401, { ok: false, error: { code: 'validation', message: 'missing or wrong API token (send it in the X-Equivox-Token header, or open the launch URL)', field: 'token' } });
      }
      if (url.pathname === '/api/events' && req.method === 'GET') {
        res.writeHead(200, { ...BASE_HEADERS, 'Content-Type': 'text/event-stream', Connection: 'keep-alive' });
        res.write(': connected\n\n');
        // A window that connects after the engine was restarted still learns of it.
        if (engine.lastNotice) res.write(`data: ${JSON.stringify(engine.lastNotice)}\n\n`);
        const unsubscribe = engine.events.subscribe((e) => res.write(`data: ${JSON.stringify(e)}\n\n`));
        const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
        req.on('close', () => {
          clearInterval(ping);
          unsubscribe();
        });
        return;
      }
      const m = /^\/api\/invoke\/([\w.-]+)$/.exec(url.pathname);
      if (!m || req.method !== 'POST') return send(res, 404, { ok: false, error: { code: 'unknown_operation', message: `no such endpoint ${req.method} ${url.pathname}` } });
      let input: unknown;
      try {
        const body = await readBody(req);
        if (jsonNestsBeyond(body)) {
          return send(res, 400, { ok: false, error: { code: 'validation', message: `the request body nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep`, field: 'input' } });
        }
        input = body.trim() === '' ? {} : JSON.parse(body);
      } catch (err) {
        const status = (err as { status?: number }).status ?? 400;
        return send(res, status, { ok: false, error: { code: 'validation', message: status === 413 ? 'request body too large' : 'the request body is not valid JSON', field: 'input' } });
      }
      try {
        const result = await api.invoke(m[1]!, input);
        return send(res, 200, { ok: true, result: result ?? null });
      } catch (err) {
        const shape = toErrorShape(err);
        const status = shape.code === 'validation' || shape.code === 'unknown_operation' ? 400 : shape.code === 'not_found' ? 404 : shape.code === 'user' ? 422 : 500;
        return send(res, status, { ok: false, error: shape });
      }
    }

    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { ok: false, error: { code: 'validation', message: 'method not allowed' } });
    // The launch URL: trade the token for a cookie, then drop it from the address bar.
    const launchToken = url.searchParams.get('token');
    if (launchToken !== null) {
      if (!tokenMatches(launchToken, token)) return sendText(res, 401, 'This Equivox link has a wrong token: open the address the web host printed when it started.');
      url.searchParams.delete('token');
      return sendText(res, 303, 'continue', {
        Location: `${url.pathname}${url.search}`,
        'Set-Cookie': `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`,
      });
    }
    let rel = pathname;
    if (rel === '/' || !extname(rel)) rel = '/index.html';
    const file = normalize(join(staticDir, rel));
    if (samePath(file, staticDir) || !isEqualOrInside(file, staticDir) || !existsSync(file) || !statSync(file).isFile()) {
      return sendText(res, 404, existsSync(join(staticDir, 'index.html')) ? 'not found' : `the renderer is not built: run "npm run web" (looked in ${staticDir})`);
    }
    res.writeHead(200, {
      ...BASE_HEADERS,
      'Content-Type': MIME[extname(file)] ?? 'application/octet-stream',
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file).pipe(res);
  };

  const server: Server = createServer((req, res) => {
    handler(req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, { ok: false, error: toErrorShape(err) });
      else res.end();
    });
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolveListen());
  });
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    token,
    port,
    engine,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await engine.close();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const portArg = process.argv.indexOf('--port');
  const port = portArg >= 0 ? Number(process.argv[portArg + 1]) : 0;
  startWebHost({ port }).then(
    (host) => {
      // One machine-readable line for test harnesses, one for people.
      process.stdout.write(`EQUIVOX_WEB_URL=${host.url}\n`);
      process.stderr.write(`Equivox is running at ${host.url}\n(open it in a browser on this machine; press Ctrl+C to stop)\n`);
      const stop = () => void host.close().finally(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (err) => {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
