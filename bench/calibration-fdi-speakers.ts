/**
 * Calibration of the FDI noise null when speakers give several trials (`npm run
 * bench:calibration`, section `fdi-speakers`). Null audits built like the app's verification
 * trials: per group `speakers` speakers with `clips` recordings each; genuine trials are all
 * same-speaker pairs, impostor trials as many pairs of two speakers of the group (the first
 * clip's speaker enrols), drawn at random. Scores carry speaker effects and no group effect:
 * genuine 0.7 + a_s + e, impostor 0.5 + b_s + b_t + e, with a_s, b_s ~ N(0, 0.1²) per speaker
 * and e ~ N(0, 0.1²) per trial (some voices are easy to verify, some easy to imitate).
 * Threshold at the equal error rate. Each audit is judged by the app's null (fdiNull: speakers'
 * labels shuffled) and, for contrast, by the trial shuffle it uses when speakers are unknown.
 * Prints a table; asserts nothing.
 */
import { equalErrorRate, fdiNull, fdiPermutationNull, Rng, type FdiItems } from '../src/main/stats';

export interface FdiSpeakerScenario {
  groups: number;
  speakers: number;
  clips: number;
}

const SPEAKER_SD = 0.1;
const TRIAL_SD = 0.1;

function normal(rng: Rng): number {
  const u = 1 - rng.nextFloat();
  const v = rng.nextFloat();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export function simulateFdiTrials(rng: Rng, s: FdiSpeakerScenario): FdiItems & { speakers: { enrol: string[]; test: string[] } } {
  const groups: string[] = [];
  const labels: number[] = [];
  const scores: number[] = [];
  const enrol: string[] = [];
  const test: string[] = [];
  for (let g = 0; g < s.groups; g += 1) {
    const a = Array.from({ length: s.speakers }, () => SPEAKER_SD * normal(rng));
    const b = Array.from({ length: s.speakers }, () => SPEAKER_SD * normal(rng));
    const id = (k: number) => `g${g}s${k}`;
    let genuine = 0;
    for (let k = 0; k < s.speakers; k += 1) {
      for (let i = 0; i < s.clips; i += 1) {
        for (let j = i + 1; j < s.clips; j += 1) {
          groups.push(`g${g}`);
          labels.push(1);
          scores.push(0.7 + a[k]! + TRIAL_SD * normal(rng));
          enrol.push(id(k));
          test.push(id(k));
          genuine += 1;
        }
      }
    }
    // As many impostor trials, each a random clip pair of two different speakers (the lower-numbered clip enrols).
    for (let n = 0; n < genuine; n += 1) {
      const p = rng.nextInt(s.speakers * s.clips);
      let q = rng.nextInt(s.speakers * s.clips - s.clips);
      // Skip p's own speaker's clips so the pair is two speakers.
      if (Math.floor(q / s.clips) >= Math.floor(p / s.clips)) q += s.clips;
      const [first, second] = p < q ? [p, q] : [q, p];
      const k1 = Math.floor(first / s.clips);
      const k2 = Math.floor(second / s.clips);
      groups.push(`g${g}`);
      labels.push(0);
      scores.push(0.5 + b[k1]! + b[k2]! + TRIAL_SD * normal(rng));
      enrol.push(id(k1));
      test.push(id(k2));
    }
  }
  return { groups, labels: Int8Array.from(labels), scores: Float64Array.from(scores), speakers: { enrol, test } };
}

export function fdiSpeakerCalibration(options: { quick: boolean; cell: (k: number, n: number) => string }): void {
  const t0 = performance.now();
  const sims = options.quick ? 200 : 1000;
  const shuffles = 999;
  const scenarios: FdiSpeakerScenario[] = options.quick
    ? [{ groups: 3, speakers: 6, clips: 4 }]
    : [{ groups: 3, speakers: 6, clips: 4 }, { groups: 3, speakers: 10, clips: 4 }, { groups: 4, speakers: 10, clips: 3 }, { groups: 3, speakers: 20, clips: 3 }];
  console.log(`FDI noise null with speakers (verification-style trials, speaker effects SD ${SPEAKER_SD} on genuine and impostor scores, trial noise SD ${TRIAL_SD}, no group effect; threshold at the equal error rate; ${shuffles} shuffles; ${sims} null audits per row).\n`);
  console.log('| groups × speakers × recordings per speaker | trials per group | false positives, speakers shuffled (the app) | false positives, trials shuffled |');
  console.log('| --- | --- | --- | --- |');
  for (const s of scenarios) {
    const rng = Rng.stream(20_261_206, s.groups * 10_000 + s.speakers * 100 + s.clips);
    let bySpeaker = 0;
    let byTrial = 0;
    let trials = 0;
    for (let k = 0; k < sims; k += 1) {
      const items = simulateFdiTrials(rng, s);
      trials = items.groups.length / s.groups;
      const tau = equalErrorRate(items.scores, items.labels).threshold;
      const nul = fdiNull(items, tau, shuffles, 0.5, 'harm', k);
      if (nul.unit !== 'speaker') throw new Error('expected the speaker-level null');
      if (nul.pValue < 0.05) bySpeaker += 1;
      if (fdiPermutationNull(items, tau, shuffles, 0.5, 'harm', k).pValue < 0.05) byTrial += 1;
    }
    console.log(`| ${s.groups} × ${s.speakers} × ${s.clips} | ${trials} | ${options.cell(bySpeaker, sims)} | ${options.cell(byTrial, sims)} |`);
  }
  console.log(`\nFDI with speakers took ${((performance.now() - t0) / 1000).toFixed(0)} s. Target: false positives ≤ 7% for the app's null.\n`);
}
