/**
 * JSON nested 10^5 levels (issue 33 item 8): the web host answered 500 `internal` "Maximum
 * call stack size exceeded" (JSON.parse copes; the structured clone to the engine process
 * recurses). It is a malformed request: 400, `code: 'validation'`, `field: 'input'`, as
 * docs/security.md row 8 says for invalid JSON. Through the real web host, and the
 * transport's own guard with a stand-in engine whose channel clones as fork's does (v8.serialize).
 */
import { serialize } from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineClient, type EngineProcess, type FromEngine } from '../../../src/main/engine-transport';
import { jsonNestsBeyond, MAX_JSON_DEPTH } from '../../../src/main/web-security';
import { startHost, type RunningHost } from '../../e2e/web-host';

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;

describe('jsonNestsBeyond', () => {
  it('counts arrays and objects opened inside one another, not brackets inside strings', () => {
    expect(jsonNestsBeyond(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonNestsBeyond(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonNestsBeyond(`${'{"a":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`)).toBe(true);
    // Siblings do not add up, and brackets in strings (escaped quotes included) are text.
    expect(jsonNestsBeyond(`[${Array.from({ length: 500 }, () => nested(10)).join(',')}]`)).toBe(false);
    expect(jsonNestsBeyond(JSON.stringify({ name: `${'['.repeat(1000)}\\"${'{'.repeat(1000)}` }))).toBe(false);
  });
});

describe('the web host', () => {
  let host: RunningHost;
  beforeAll(async () => {
    host = await startHost();
  }, 90_000);
  afterAll(async () => {
    await host?.stop();
  });

  const post = async (op: string, body: string) => {
    const res = await fetch(`${host.base}/api/invoke/${op}`, { method: 'POST', headers: { 'X-Equivox-Token': host.token, 'Content-Type': 'application/json' }, body });
    return { status: res.status, body: (await res.json()) as { ok: boolean; error?: { code: string; message: string; field?: string } } };
  };

  it('answers JSON nested 10^5 levels with 400 naming the limit, and goes on answering', async () => {
    for (const body of [nested(100_000), nested(100_000, '{"a":', '}'), `{"projectId":${nested(5000)}}`]) {
      const r = await post('app.info', body);
      expect(r.status).toBe(400);
      expect(r.body.error).toEqual({ code: 'validation', message: `the request body nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep`, field: 'input' });
    }
    // Within the limit the operation's own validation answers (still 400, never 500).
    const within = await post('projects.create', `{"name":${nested(MAX_JSON_DEPTH - 1)}}`);
    expect(within.status).toBe(400);
    expect(within.body.error?.code).toBe('validation');
    expect((await post('app.info', '{}')).status).toBe(200);
  });
});

describe('the transport', () => {
  it('turns an input the structured clone refuses into a validation error, not an internal one', async () => {
    let listener: (m: FromEngine) => void = () => {};
    const proc: EngineProcess = {
      pid: undefined,
      channel: {
        send(m) {
          serialize(m); // what fork's 'advanced' serialization does with every message
          if (m.t === 'init') queueMicrotask(() => listener({ t: 'ready', resumed: [] }));
          if (m.t === 'call') queueMicrotask(() => listener({ t: 'reply', id: m.id, ok: true, result: 'answered' }));
        },
        onMessage(l) {
          listener = l;
        },
      },
      onExit() {},
      kill() {},
    };
    const client = new EngineClient(() => proc, { host: 'web', pathPolicy: 'granted', picker: false, shell: false });
    await client.whenReady();
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    await expect(client.invoke('app.info', deep)).rejects.toMatchObject({ code: 'validation', field: 'input', message: expect.stringMatching(/^the input of app\.info cannot be passed to the engine/) });
    expect(await client.invoke('app.info', {})).toBe('answered');
  });
});
