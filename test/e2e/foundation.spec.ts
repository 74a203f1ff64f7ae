import { request as httpRequest } from 'node:http';
import { expect, test } from '@playwright/test';
import { startHost, type RunningHost } from './web-host';

/** A raw HTTP request (Playwright would normalise a malformed path before sending it). */
function raw(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(host.base);
    const req = httpRequest({ host: u.hostname, port: Number(u.port), path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

let host: RunningHost;

test.beforeAll(async () => {
  host = await startHost();
});

test.afterAll(async () => {
  await host.stop();
});

test('creates a project through the UI and still sees it after a reload', async ({ page }) => {
  await page.goto(host.url);
  await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeVisible();
  // The token leaves the address bar once read.
  expect(page.url()).not.toContain('token=');
  await page.getByLabel('Project name').fill('Pilot audit');
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Pilot audit' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('list', { name: 'Recent projects' }).getByRole('button', { name: 'Pilot audit' })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('home-after-reload.png') });
});

test('refuses API calls without the token and validates input naming the field', async ({ request }) => {
  const noToken = await request.post(`${host.base}/api/invoke/projects.list`, { data: {} });
  expect(noToken.status()).toBe(401);
  const wrongToken = await request.post(`${host.base}/api/invoke/projects.list`, { data: {}, headers: { 'X-Equivox-Token': 'x'.repeat(32) } });
  expect(wrongToken.status()).toBe(401);

  const headers = { 'X-Equivox-Token': host.token };
  const before = await (await request.post(`${host.base}/api/invoke/projects.list`, { data: {}, headers })).json();

  const wrongType = await request.post(`${host.base}/api/invoke/projects.create`, { data: { name: 42 }, headers });
  expect(wrongType.status()).toBe(400);
  expect((await wrongType.json()).error).toMatchObject({ code: 'validation', field: 'name' });

  const missing = await request.post(`${host.base}/api/invoke/projects.rename`, { data: { name: 'x' }, headers });
  expect((await missing.json()).error).toMatchObject({ code: 'validation', field: 'id' });

  const unknown = await request.post(`${host.base}/api/invoke/projects.explode`, { data: {}, headers });
  expect(unknown.status()).toBe(400);
  expect((await unknown.json()).error.code).toBe('unknown_operation');

  const extra = await request.post(`${host.base}/api/invoke/projects.create`, { data: { name: 'ok', evil: true }, headers });
  expect((await extra.json()).error).toMatchObject({ code: 'validation', field: 'evil' });

  // Nothing was written by the refused calls.
  const after = await (await request.post(`${host.base}/api/invoke/projects.list`, { data: {}, headers })).json();
  expect(after.result).toEqual(before.result);
});

test('listens on 127.0.0.1 only and rejects foreign Host headers', async ({ request }) => {
  expect(new URL(host.base).hostname).toBe('127.0.0.1');
  const res = await request.post(`${host.base}/api/invoke/projects.list`, { data: {}, headers: { 'X-Equivox-Token': host.token, Host: 'evil.example:80' } });
  expect(res.status()).toBe(403);
});

test.describe('web host hygiene', () => {
  test('the launch URL trades its token for an HttpOnly SameSite=Strict cookie and redirects to the page without it', async () => {
    const launch = await raw(new URL(host.url).pathname + new URL(host.url).search);
    expect(launch.status).toBe(303);
    expect(launch.headers.location).toBe('/');
    const setCookie = String(launch.headers['set-cookie']);
    expect(setCookie).toContain(`equivox_token_${new URL(host.base).port}=${host.token}`);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const cookie = setCookie.split(';')[0]!;
    expect((await raw('/api/invoke/projects.list', { cookie }, 'POST')).status).toBe(200);
    expect((await raw('/?token=wrong-token')).status).toBe(401);
  });

  test('the API takes the token only from the header or the cookie, never from the query string', async () => {
    expect((await raw(`/api/invoke/projects.list?token=${host.token}`, {}, 'POST')).status).toBe(401);
    expect((await raw(`/api/events?token=${host.token}`)).status).toBe(401);
    expect((await raw('/api/invoke/projects.list', { 'X-Equivox-Token': host.token }, 'POST')).status).toBe(200);
  });

  test('refuses another Origin and cross-site requests even with the token', async () => {
    const token = { 'X-Equivox-Token': host.token };
    const port = new URL(host.base).port;
    expect((await raw('/api/invoke/projects.list', { ...token, Origin: 'http://127.0.0.1:1' }, 'POST')).status).toBe(403);
    expect((await raw('/api/invoke/projects.list', { ...token, Origin: 'https://evil.example' }, 'POST')).status).toBe(403);
    expect((await raw('/api/invoke/projects.list', { ...token, 'Sec-Fetch-Site': 'cross-site' }, 'POST')).status).toBe(403);
    expect((await raw('/api/invoke/projects.list', { ...token, 'Sec-Fetch-Site': 'same-site' }, 'POST')).status).toBe(403);
    expect((await raw('/api/invoke/projects.list', { ...token, Origin: `http://127.0.0.1:${port}`, 'Sec-Fetch-Site': 'same-origin' }, 'POST')).status).toBe(200);
  });

  test('answers 400 to malformed percent-encoding, and nosniff on every response', async () => {
    const token = { 'X-Equivox-Token': host.token };
    const bad = await raw('/%E0%A4%A');
    expect(bad.status).toBe(400);
    expect((await raw('/api/invoke/%ZZ', token, 'POST')).status).toBe(400);
    const responses = [
      bad,
      await raw('/'),
      await raw('/no-such-file.js'),
      await raw('/api/invoke/projects.list', {}, 'POST'),
      await raw('/api/invoke/projects.list', token, 'POST'),
      await raw('/api/invoke/projects.create', token, 'POST'),
      await raw('/api/invoke/projects.list', { ...token, Origin: 'https://evil.example' }, 'POST'),
      await raw('/?token=wrong'),
    ];
    expect(new Set(responses.map((r) => r.status))).toEqual(new Set([400, 200, 404, 401, 403]));
    for (const r of responses) expect(r.headers['x-content-type-options'], `${r.status} ${r.body.slice(0, 80)}`).toBe('nosniff');
  });

  test('the page works with the cookie alone: progress events arrive over the cookie-authenticated event stream', async ({ page }) => {
    await page.goto(host.url);
    await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeVisible();
    expect(page.url()).toBe(`${host.base}/`);
    const got = await page.evaluate(async () => {
      const events = new EventSource('/api/events');
      const first = new Promise<string>((resolve) => (events.onmessage = (m) => resolve(String(m.data))));
      const res = await fetch('/api/invoke/jobs.selfTest', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ units: 20, unitMs: 5 }) });
      const event = await Promise.race([first, new Promise<string>((r) => setTimeout(() => r('timeout'), 10_000))]);
      events.close();
      return { status: res.status, event };
    });
    expect(got.status).toBe(200);
    expect(got.event).toMatch(/"type":"job\./);
  });
});
