/**
 * Golden values from test/golden/stats_golden.py (numpy/scipy); each entry carries the
 * Python expression that produced it: `python3 test/golden/stats_golden.py` regenerates them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const path = fileURLToPath(new URL('../../golden/stats_golden.json', import.meta.url));
const data = JSON.parse(readFileSync(path, 'utf8')) as Record<string, { command: string; value: unknown }>;

export function golden<T = number>(name: string): T {
  const entry = data[name];
  if (!entry) throw new Error(`no golden value "${name}"`);
  return entry.value as T;
}

export function goldenData<T>(name: string): T {
  return data[name] as unknown as T;
}

export const fixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/stats/${name}`, import.meta.url));
