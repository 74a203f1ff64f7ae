import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { operationNames } from '../../../src/shared/api';
import { createApi } from '../../../src/main/api';
import { createEngine } from '../../../src/main/engine';

const engine = createEngine({ host: 'test', dataDir: mkdtempSync(join(tmpdir(), 'equivox-api-')) });
const api = createApi(engine);
afterAll(() => engine.close());

describe('api.invoke validation', () => {
  it.each(operationNames)('%s rejects a non-object input and unknown fields with a validation error', async (name) => {
    await expect(api.invoke(name, 'not an object')).rejects.toMatchObject({ code: 'validation' });
    await expect(api.invoke(name, { __proto_pollution__: 1, surpriseField: true })).rejects.toMatchObject({ code: 'validation' });
  });

  it('names the missing field', async () => {
    await expect(api.invoke('projects.rename', { name: 'x' })).rejects.toMatchObject({ code: 'validation', field: 'id' });
  });

  it('rejects unknown operations', async () => {
    await expect(api.invoke('projects.drop', {})).rejects.toMatchObject({ code: 'unknown_operation' });
  });

  it('writes nothing on a refused call', async () => {
    const before = await api.invoke('projects.list', {});
    await expect(api.invoke('projects.create', { name: '' })).rejects.toMatchObject({ field: 'name' });
    expect(await api.invoke('projects.list', {})).toEqual(before);
  });
});
