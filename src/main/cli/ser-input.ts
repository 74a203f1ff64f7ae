/**
 * The `stats ser` input file, streamed: per item the hidden states' temporal means
 * (`features`: N+1 arrays of D numbers) and a valence rating, in train / validation / test
 * splits, plus the target stimuli X and Y of one comparison:
 *
 *   {"train": [{"features": [[…state 0…], …, […state N…]], "valence": v}, …],
 *    "validation": […], "test": […], "targets": {"X": [features, …], "Y": [features, …]}}
 *
 * `targets` may also carry "speakersX" and "speakersY", one speaker id per X / Y item: the
 * groups' predicted valence is then compared on speaker means.
 *
 * Every item's numbers go straight into one Float32Array (states × D); nothing else of the
 * file is kept. Errors name the file, the byte and the item.
 */
import { UserError } from '../../shared/errors';
import { JsonStream } from './json-stream';

export interface SerInput {
  layers: number;
  dim: number;
  features: Float32Array[];
  ratings: Float64Array;
  split: { train: Int32Array; validation: Int32Array; test: Int32Array };
  targets: { X: Float32Array[]; Y: Float32Array[]; speakersX?: string[]; speakersY?: string[] } | null;
}

const SPLITS = ['train', 'validation', 'test'] as const;

export function readSerInput(file: string): SerInput {
  const js = new JsonStream(file);
  let layers = -1;
  let dim = -1;
  let shapeFrom = '';
  // Until the first item fixes the shape, numbers collect in a growable scratch buffer.
  let scratch = new Float32Array(1 << 16);
  const features: Float32Array[] = [];
  const ratings: number[] = [];
  const splitRows: Record<(typeof SPLITS)[number], number[]> = { train: [], validation: [], test: [] };
  const seen = new Set<string>();
  let targets: SerInput['targets'] = null;

  const readFeatures = (path: string): Float32Array => {
    const out = layers > 0 ? new Float32Array(layers * dim) : null;
    let n = 0;
    let states = 0;
    js.readArray(path, (l) => {
      const statePath = `${path}[${l}]`;
      if (layers > 0 && l >= layers) js.fail(`has more than the ${layers} hidden states of ${shapeFrom}`, path);
      const before = n;
      js.readArray(statePath, () => {
        const v = js.readNumber(statePath);
        if (out) {
          if (n - l * dim >= dim) js.fail(`state ${l} has more than the ${dim} values of ${shapeFrom}`, statePath);
          out[n] = v;
        } else {
          if (n === scratch.length) {
            const bigger = new Float32Array(scratch.length * 2);
            bigger.set(scratch);
            scratch = bigger;
          }
          scratch[n] = v;
        }
        n += 1;
      });
      const width = n - before;
      if (width === 0) js.fail(`state ${l} is empty`, statePath);
      if (dim < 0) dim = width;
      else if (width !== dim) js.fail(`state ${l} has ${width} values, expected ${dim} (as ${shapeFrom || `state 0 of ${path}`})`, statePath);
      states = l + 1;
    });
    if (states === 0) js.fail('has no hidden states', path);
    if (layers < 0) {
      layers = states;
      shapeFrom = path;
      return scratch.slice(0, n);
    }
    if (states !== layers) js.fail(`has ${states} hidden states, expected ${layers} (as ${shapeFrom})`, path);
    return out!;
  };

  try {
    js.readObject('', (key) => {
      if (seen.has(key)) js.fail(`"${key}" appears twice`, key);
      seen.add(key);
      if ((SPLITS as readonly string[]).includes(key)) {
        const split = key as (typeof SPLITS)[number];
        js.readArray(split, (i) => {
          const path = `${split}[${i}]`;
          const it: { f: Float32Array | null; valence: number | null } = { f: null, valence: null };
          js.readObject(path, (k) => {
            if (k === 'features') it.f = readFeatures(`${path}.features`);
            else if (k === 'valence') it.valence = js.readNumber(`${path}.valence`);
            else js.skipValue(`${path}.${k}`);
          });
          if (it.f === null) js.fail('has no "features"', path);
          if (it.valence === null) js.fail('has no "valence"', path);
          splitRows[split].push(features.length);
          features.push(it.f!);
          ratings.push(it.valence!);
        });
      } else if (key === 'targets') {
        const t: NonNullable<SerInput['targets']> = { X: [], Y: [] };
        js.readObject('targets', (k) => {
          if (k === 'X' || k === 'Y') js.readArray(`targets.${k}`, (i) => t[k].push(readFeatures(`targets.${k}[${i}]`)));
          else if (k === 'speakersX' || k === 'speakersY') {
            const ids: string[] = [];
            js.readArray(`targets.${k}`, (i) => {
              const id = js.readString(`targets.${k}[${i}]`).trim();
              if (id === '') js.fail('is an empty speaker id', `targets.${k}[${i}]`);
              ids.push(id);
            });
            t[k] = ids;
          } else js.skipValue(`targets.${k}`);
        });
        targets = t;
      } else js.skipValue(key);
    });
    js.assertEnd();
  } finally {
    js.close();
  }
  for (const s of SPLITS) {
    if (!seen.has(s)) throw new UserError(`${file}: "${s}" is missing (give train, validation and test items)`, s);
    if (splitRows[s].length === 0) throw new UserError(`${file}: "${s}" has no items`, s);
  }
  const t = targets as SerInput['targets'];
  if (t && (t.X.length === 0 || t.Y.length === 0)) throw new UserError(`${file}: targets.X and targets.Y each need at least one item`, 'targets');
  if (t && (t.speakersX === undefined) !== (t.speakersY === undefined)) throw new UserError(`${file}: give both targets.speakersX and targets.speakersY, or neither`, 'targets');
  for (const side of ['X', 'Y'] as const) {
    const ids = t?.[`speakers${side}`];
    if (t && ids && ids.length !== t[side].length) throw new UserError(`${file}: targets.speakers${side} has ${ids.length} ids for ${t[side].length} items of targets.${side}`, `targets.speakers${side}`);
  }
  return {
    layers,
    dim,
    features,
    ratings: Float64Array.from(ratings),
    split: { train: Int32Array.from(splitRows.train), validation: Int32Array.from(splitRows.validation), test: Int32Array.from(splitRows.test) },
    targets: t,
  };
}
