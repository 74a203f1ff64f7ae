/**
 * How fast this computer does each kind of work, measured: seconds per unit (a clip read
 * with a model, a thousand resamples, a training step), kept in the data folder and
 * updated after every stage that did real work. Time-left figures come from these, not
 * from guesses; until a kind of work has been measured here, the rates measured while
 * building Equivox stand in (a two-core Linux virtual machine under load), and the job
 * corrects them stage by stage by how fast it actually goes (src/main/audits/progress.ts).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Rate {
  secondsPerUnit: number;
  /** How many stages contributed (the first measurement replaces the default outright). */
  samples: number;
}

export type RateBook = Record<string, Rate>;

const FILE = 'rates.json';

/**
 * Seconds per unit measured on the development machine: the first demo run of
 * `npm run bench:eta` in a new data folder, 2 cores with other engineers' work beside (load
 * average about 8), 3 December 2026. The November figures (the e2e journey at load 10) had
 * import and acoustic-baseline reading ten times slower than they now are while the
 * speech-embedding model was only three times slower: estimates off by different amounts per
 * stage, which this run's pace cannot mend until each stage has run. Measured in one run,
 * their proportions hold on another computer even where its speed does not. The two fallbacks
 * (a model not listed) are guesses. speat:mdraw and wer:kfit were measured later the same
 * day, at load 2–3, by timing SpEAT sections of 1–2 models over 6–24 stimuli a group and the
 * WER power simulations on 48–480 utterances (src/main/audits/progress.ts says what each unit
 * counts): SpEAT about 5 ns a permutation draw, WER 35–60 µs an utterance a mixed-model fit.
 * Keys are documented in src/main/audits/progress.ts.
 */
export const DEFAULT_RATES: Record<string, number> = {
  'import:clip': 0.015,
  'embed:acoustic-baseline': 0.022,
  'embed:speech-embedding': 0.13,
  'embed:model': 0.8,
  'transcribe:model': 2,
  'speat:mdraw': 0.005,
  'ser:kstep': 0.89,
  'wer:kfit': 0.04,
  'fdi:grouping': 0.069,
};

export function loadRates(dataDir: string): RateBook {
  try {
    const file = join(dataDir, FILE);
    if (!existsSync(file)) return {};
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (!parsed || typeof parsed !== 'object') return {};
    const out: RateBook = {};
    for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
      const r = v as Partial<Rate>;
      if (typeof r.secondsPerUnit === 'number' && Number.isFinite(r.secondsPerUnit) && r.secondsPerUnit > 0 && typeof r.samples === 'number') out[k] = { secondsPerUnit: r.secondsPerUnit, samples: r.samples };
    }
    return out;
  } catch {
    // A damaged rates file only costs the estimate its history.
    return {};
  }
}

/** Seconds per unit for a key: measured here, else the fallback key's, else the default. */
export function rateFor(book: RateBook, key: string, fallback?: string): number {
  return book[key]?.secondsPerUnit ?? DEFAULT_RATES[key] ?? (fallback ? (book[fallback]?.secondsPerUnit ?? DEFAULT_RATES[fallback]) : undefined) ?? 1;
}

/**
 * Fold one measurement into the book (a moving average weighted towards recent runs) and
 * write it atomically. Measurements shorter than `minSeconds` are ignored: a caller that times
 * only the work in a loop would see its start-up dominate. A caller that times a whole stage,
 * start-up included (the audit's stages, src/main/audits/progress.ts), passes a lower floor:
 * that start-up recurs, so a short stage's real duration is its best estimate next time.
 */
export function recordRate(dataDir: string, key: string, seconds: number, units: number, minSeconds = 0.2): void {
  if (!(units > 0) || !(seconds >= minSeconds) || !(seconds > 0) || !Number.isFinite(seconds / units)) return;
  const book = loadRates(dataDir);
  const measured = seconds / units;
  const old = book[key];
  book[key] = old ? { secondsPerUnit: 0.6 * measured + 0.4 * old.secondsPerUnit, samples: old.samples + 1 } : { secondsPerUnit: measured, samples: 1 };
  try {
    const file = join(dataDir, FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(book, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // Estimates are a convenience: a read-only data folder must not stop an audit.
  }
}
