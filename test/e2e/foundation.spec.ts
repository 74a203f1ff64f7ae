import { expect, test } from '@playwright/test';
import { startHost, type RunningHost } from './web-host';

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
