/**
 * Derives malformed inputs from an operation's zod 4 schema, each with the field the
 * validation error must name. Used by test/e2e/malformed-input.spec.ts.
 *
 * zod 4 keeps .refine/.superRefine on the same schema (as checks), so an object with a
 * refinement still has its `shape`; optional/default/nullable/pipe wrappers are unwrapped.
 */
import type { z } from 'zod';

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  entries?: Record<string, string | number>;
  values?: unknown[];
  element?: z.ZodType;
  discriminator?: string;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function bag(schema: z.ZodType): { minimum?: number; maximum?: number; format?: string } {
  return (schema as unknown as { _zod: { bag?: { minimum?: number; maximum?: number; format?: string } } })._zod.bag ?? {};
}

/** Strip optional/default/nullable/readonly/pipe wrappers; reports whether the field may be left out. */
export function unwrap(schema: z.ZodType): { core: z.ZodType; optional: boolean } {
  let core = schema;
  let optional = false;
  for (;;) {
    const def = defOf(core);
    if (def.type === 'optional' || def.type === 'default' || def.type === 'prefault') optional = true;
    if (['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch', 'nonoptional'].includes(def.type) && def.innerType) core = def.innerType;
    else if (def.type === 'pipe' && def.in) core = def.in;
    else return { core, optional };
  }
}

/** A value the schema accepts, for filling required fields that come before the one at fault; null when none is easy to make. */
export function sample(schema: z.ZodType): { value: unknown } | null {
  const candidate = guess(schema);
  return candidate && schema.safeParse(candidate.value).success ? candidate : null;
}

function guess(schema: z.ZodType): { value: unknown } | null {
  const { core } = unwrap(schema);
  const def = defOf(core);
  const b = bag(core);
  switch (def.type) {
    case 'string':
      if (b.format) return b.format === 'email' ? { value: 'a@example.org' } : null;
      return { value: 'x'.repeat(Math.max(1, b.minimum ?? 1)) };
    case 'number':
      return { value: b.minimum !== undefined && Number.isFinite(b.minimum) ? Math.ceil(b.minimum) : 1 };
    case 'boolean':
      return { value: false };
    case 'enum':
      return { value: Object.values(def.entries ?? {})[0] };
    case 'literal':
      return { value: def.values?.[0] };
    case 'array':
      return (b.minimum ?? 0) === 0 ? { value: [] } : null;
    default:
      return null;
  }
}

/** Values of the wrong type for a schema (after unwrapping), with a label for the test name. */
export function wrongValues(schema: z.ZodType): { label: string; value: unknown; suffix?: string }[] {
  const { core } = unwrap(schema);
  const def = defOf(core);
  const b = bag(core);
  const out: { label: string; value: unknown; suffix?: string }[] = [];
  switch (def.type) {
    case 'string':
      out.push({ label: 'number for string', value: 42 }, { label: 'object for string', value: { toString: 'x' } });
      if (b.maximum !== undefined && Number.isFinite(b.maximum)) out.push({ label: `string over ${b.maximum} chars`, value: 'x'.repeat(b.maximum + 1) });
      break;
    case 'number':
      out.push({ label: 'string for number', value: '1' }, { label: 'null for number', value: null });
      if (b.maximum !== undefined && Number.isFinite(b.maximum)) out.push({ label: `number over ${b.maximum}`, value: b.maximum + 1 });
      break;
    case 'boolean':
      out.push({ label: 'string for boolean', value: 'true' }, { label: 'number for boolean', value: 1 });
      break;
    case 'enum':
      out.push({ label: 'value outside the enum', value: '__not_an_option__' }, { label: 'number for enum', value: 3 });
      break;
    case 'literal':
      out.push({ label: 'wrong literal', value: '__wrong__' });
      break;
    case 'array':
      out.push({ label: 'string for array', value: 'not-an-array' }, { label: 'object for array', value: { 0: 'x' } });
      if (def.element) {
        const el = wrongValues(def.element)[0];
        // The error names the element: "clipIds.0".
        if (el) out.push({ label: `array of ${el.label}`, value: [el.value], suffix: '.0' });
      }
      break;
    case 'object':
      out.push({ label: 'string for object', value: 'not-an-object' }, { label: 'array for object', value: [] });
      break;
    case 'union':
      out.push({ label: 'number for union', value: 42 }, { label: 'array for union', value: [] });
      break;
    default:
      out.push({ label: 'symbol-like string', value: '\u0000' });
  }
  return out;
}

export interface MalformedCase {
  /** Human-readable: "source.manifest: number for string". */
  name: string;
  input: unknown;
  /** The field the error must name. */
  field: string;
}

function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | null {
  const { core } = unwrap(schema);
  const def = defOf(core);
  return def.type === 'object' && def.shape ? def.shape : null;
}

/**
 * An object input for `shape` in which `key` holds `value`: required fields before it
 * (zod reports issues in shape order) are filled with sample values; when one cannot
 * be made, that field is the one the error will name.
 */
function place(shape: Record<string, z.ZodType>, key: string, value: unknown, prefix: string, field: string): { input: Record<string, unknown>; field: string } {
  const input: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(shape)) {
    if (k === key) break;
    if (unwrap(s).optional) continue;
    const v = sample(s);
    if (!v) return { input: { ...input, [key]: value }, field: prefix + k };
    input[k] = v.value;
  }
  input[key] = value;
  return { input, field };
}

/** Every malformed variant of the fields of an object schema, recursing into nested objects and union options. */
function fieldCases(schema: z.ZodType, prefix: string, depth: number): MalformedCase[] {
  const shape = shapeOf(schema);
  if (!shape) return [];
  const cases: MalformedCase[] = [];
  for (const [key, s] of Object.entries(shape)) {
    const path = prefix + key;
    for (const w of wrongValues(s)) {
      const { input, field } = place(shape, key, w.value, prefix, path + (w.suffix ?? ''));
      cases.push({ name: `${path}: ${w.label}`, input, field });
    }
    if (depth >= 3) continue;
    const { core } = unwrap(s);
    const def = defOf(core);
    const nestedSchemas = def.type === 'union' ? (def.options ?? []) : def.type === 'object' ? [core] : [];
    for (const option of nestedSchemas) {
      const optShape = shapeOf(option);
      if (!optShape) continue;
      // A discriminated option is entered by its literal.
      const disc = def.discriminator;
      const lit = disc ? sample(optShape[disc]!) : null;
      for (const inner of fieldCases(option, `${path}.`, depth + 1)) {
        if (disc && inner.name.startsWith(`${path}.${disc}:`)) {
          if (def.type === 'union' && option !== nestedSchemas[0]) continue;
        }
        const innerInput = { ...(lit && disc && !inner.name.startsWith(`${path}.${disc}:`) ? { [disc]: lit.value } : {}), ...(inner.input as Record<string, unknown>) };
        const { input, field } = place(shape, key, innerInput, prefix, inner.field);
        cases.push({ name: inner.name + (disc && lit ? ` (${disc}=${String(lit.value)})` : ''), input, field });
      }
    }
  }
  return cases;
}

/** All malformed inputs for one operation's input schema. */
export function malformedInputs(schema: z.ZodType): MalformedCase[] {
  const shape = shapeOf(schema) ?? {};
  const firstRequired = Object.entries(shape).find(([, s]) => !unwrap(s).optional)?.[0];
  return [
    { name: 'a string instead of an object', input: 'not an object', field: 'input' },
    { name: 'a number instead of an object', input: 42, field: 'input' },
    { name: 'an array instead of an object', input: [{}], field: 'input' },
    { name: 'an unknown extra field', input: { __extra__: 1 }, field: firstRequired ?? '__extra__' },
    { name: 'a prototype-polluting key', input: JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1}') as unknown, field: firstRequired ?? '__proto__' },
    ...fieldCases(schema, '', 0),
  ];
}
