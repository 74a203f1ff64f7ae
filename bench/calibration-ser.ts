/**
 * Calibration of SER's group comparison (`npm run bench:calibration`, section `ser`): does
 * "predicted valence differs between the groups" hold its level when each speaker has
 * several recordings? Null audits: per group `speakers` speakers with `clips` recordings
 * each (or 1–8, drawn per speaker); a recording's predicted valence is
 * 5 + speaker effect N(0, 1) + recording noise N(0, 0.5²), no group effect (the clustered
 * design of METHODS.md § The unit of inference). Each audit is judged by the app's test
 * (compareOnSpeakerMeans with speaker ids: Welch on speaker means) and, for contrast, by the
 * same test without speaker ids (Welch over recordings treated as independent, what the app
 * falls back to when speakers are unknown).
 * Then the power of the app's test at a planted shift of one speaker SD.
 * Prints a table; asserts nothing.
 */
import { compareOnSpeakerMeans, Rng } from '../src/main/stats';

export interface SerScenario {
  speakers: number;
  /** Recordings per speaker; 0: drawn uniformly from 1–8 per speaker. */
  clips: number;
}

const SPEAKER_SD = 1;
const CLIP_SD = 0.5;

function normal(rng: Rng): number {
  const u = 1 - rng.nextFloat();
  const v = rng.nextFloat();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** One simulated comparison: predictions and speaker ids of X and Y; X shifted by `shift`. */
export function simulateSerTargets(rng: Rng, s: SerScenario, shift: number): { x: number[]; y: number[]; sx: string[]; sy: string[] } {
  const side = (name: string, delta: number) => {
    const values: number[] = [];
    const ids: string[] = [];
    for (let k = 0; k < s.speakers; k += 1) {
      const u = SPEAKER_SD * normal(rng);
      const n = s.clips > 0 ? s.clips : 1 + rng.nextInt(8);
      for (let i = 0; i < n; i += 1) {
        values.push(5 + delta + u + CLIP_SD * normal(rng));
        ids.push(`${name}${k}`);
      }
    }
    return { values, ids };
  };
  const x = side('x', shift);
  const y = side('y', 0);
  return { x: x.values, y: y.values, sx: x.ids, sy: y.ids };
}

/** False-positive rates at nominal 5% and power at a one-speaker-SD shift, printed as a markdown table. */
export function serCalibration(options: { quick: boolean; cell: (k: number, n: number) => string }): void {
  const t0 = performance.now();
  const sims = options.quick ? 2000 : 20_000;
  const powerSims = options.quick ? 1000 : 5000;
  const scenarios: SerScenario[] = options.quick
    ? [{ speakers: 6, clips: 4 }, { speakers: 10, clips: 0 }]
    : [{ speakers: 3, clips: 4 }, { speakers: 6, clips: 4 }, { speakers: 6, clips: 10 }, { speakers: 10, clips: 0 }, { speakers: 20, clips: 3 }];
  console.log(`SER group comparison (predicted valence, X vs Y): speaker effect N(0, ${SPEAKER_SD}²), recording noise N(0, ${CLIP_SD}²), no group effect; ${sims.toLocaleString('en')} null audits per row; power over ${powerSims.toLocaleString('en')} audits with X shifted by ${SPEAKER_SD} (one speaker SD).\n`);
  console.log('| speakers per group × recordings per speaker | false positives, speaker means (the app) | false positives, recordings as independent | power at a shift of 1 speaker SD, speaker means |');
  console.log('| --- | --- | --- | --- |');
  for (const s of scenarios) {
    const rng = Rng.stream(20_261_205, s.speakers * 100 + s.clips);
    let bySpeaker = 0;
    let byClip = 0;
    for (let k = 0; k < sims; k += 1) {
      const d = simulateSerTargets(rng, s, 0);
      if (compareOnSpeakerMeans(d.x, d.y, d.sx, d.sy).pValue < 0.05) bySpeaker += 1;
      if (compareOnSpeakerMeans(d.x, d.y).pValue < 0.05) byClip += 1;
    }
    let hits = 0;
    for (let k = 0; k < powerSims; k += 1) {
      const d = simulateSerTargets(rng, s, SPEAKER_SD);
      if (compareOnSpeakerMeans(d.x, d.y, d.sx, d.sy).pValue < 0.05) hits += 1;
    }
    console.log(`| ${s.speakers} × ${s.clips > 0 ? s.clips : '1–8'} | ${options.cell(bySpeaker, sims)} | ${options.cell(byClip, sims)} | ${options.cell(hits, powerSims)} |`);
  }
  console.log(`\nSER took ${((performance.now() - t0) / 1000).toFixed(0)} s. Target: false positives ≤ 7% for the app's test.\n`);
}
