/**
 * SpEAT calibration with speakers (`npm run bench:calibration -- --only speat-speakers`;
 * METHODS.md § The unit of inference): null audits whose target embeddings are clustered by
 * speaker, judged by the paper's clip-level permutation test and by the speaker-level test
 * behind verdicts; then the power of the speaker-level test at the minimum detectable effect
 * the app states under the speaker design.
 *
 * Embeddings: 32 dimensions; each speaker a centre N(0, 1.0²·I), each clip centre + N(0, 0.5²·I);
 * attribute sets A and B fixed for the whole bench (20 clips each, N(0, I)), so the
 * associations s(w, A, B) of every audit come from one population. No group effect.
 *
 * Power: 200 pilot audits (null, as above) each get the MDE the app states for them
 * (speatMde with the speakers, alpha as in the row), as a shift of s (standardised shift ×
 * the pilot's pooled within-group SD of s; one scale, since A and B are fixed). Their mean is
 * added to every association of X in fresh audits of the same design, judged by the
 * speaker-level test at the same alpha: the power at the stated MDE (target 0.8 ± 0.07), as
 * calibration.ts measures it for clips. Beside it, each pilot's own MDE planted in fresh
 * audits: lower, since an MDE estimated from 6 speakers is noisy and power is concave there.
 */
import { Rng, speakerPermutationTest, SpeakerDesign, speatAssociations, speatFromAssociations, speatMde } from '../src/main/stats';

const DIMS = 32;
const SPEAKER_SD = 1.0;
const CLIP_SD = 0.5;

interface Design {
  label: string;
  /** Speakers per group, clips per speaker in each group they are in. */
  speakers: number;
  clips: number;
  /** true: every speaker recorded in both groups (a within-speaker design, as the demo's rate test). */
  crossed: boolean;
  alpha: number;
}

function normal(rng: Rng): number {
  const u = 1 - rng.nextFloat();
  const v = rng.nextFloat();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function vector(rng: Rng, sd: number, around?: Float64Array): Float64Array {
  const v = new Float64Array(DIMS);
  for (let j = 0; j < DIMS; j += 1) v[j] = (around ? around[j]! : 0) + sd * normal(rng);
  return v;
}

/** One audit's associations and speakers, no group effect. */
function nullAudit(rng: Rng, d: Design, A: Float64Array[], B: Float64Array[]): { sX: Float64Array; sY: Float64Array; speakersX: string[]; speakersY: string[] } {
  const X: Float64Array[] = [];
  const Y: Float64Array[] = [];
  const speakersX: string[] = [];
  const speakersY: string[] = [];
  for (let s = 0; s < d.speakers; s += 1) {
    const cx = vector(rng, SPEAKER_SD);
    const cy = d.crossed ? cx : vector(rng, SPEAKER_SD);
    for (let c = 0; c < d.clips; c += 1) {
      X.push(vector(rng, CLIP_SD, cx));
      speakersX.push(`x${s}`);
      Y.push(vector(rng, CLIP_SD, cy));
      speakersY.push(d.crossed ? `x${s}` : `y${s}`);
    }
  }
  const s = speatAssociations({ X, Y, A, B });
  return { sX: s.X, sY: s.Y, speakersX, speakersY };
}

function withinSd(sX: Float64Array, sY: Float64Array): number {
  const mean = (v: Float64Array) => v.reduce((a, b) => a + b, 0) / v.length;
  const mx = mean(sX);
  const my = mean(sY);
  let ss = 0;
  for (const v of sX) ss += (v - mx) ** 2;
  for (const v of sY) ss += (v - my) ** 2;
  return Math.sqrt(ss / (sX.length + sY.length - 2));
}

export async function speatSpeakerCalibration(options: { quick: boolean; cell: (k: number, n: number) => string }): Promise<void> {
  const t0 = performance.now();
  const nullSims = options.quick ? 400 : 2000;
  const powerSims = options.quick ? 100 : 500;
  // Null audits whose stated MDE is planted: an MDE from 6 speakers per group varies by about
  // a quarter from audit to audit, so its mean needs more of them than the clip-level rows' 50.
  const PILOTS = options.quick ? 50 : 200;
  const permutations = 1999;
  const designs: Design[] = [
    { label: '6 speakers × 4 clips per group', speakers: 6, clips: 4, crossed: false, alpha: 0.05 },
    ...(options.quick
      ? []
      : [
          { label: '6 speakers × 4 clips per group', speakers: 6, clips: 4, crossed: false, alpha: 0.05 / 6 },
          { label: '12 speakers × 4 clips per group', speakers: 12, clips: 4, crossed: false, alpha: 0.05 },
          { label: '12 speakers, each 2 clips in both groups', speakers: 12, clips: 2, crossed: true, alpha: 0.05 },
        ]),
  ];
  const attributes = new Rng(20_261_205, 1);
  const A = Array.from({ length: 20 }, () => vector(attributes, 1));
  const B = Array.from({ length: 20 }, () => vector(attributes, 1));
  console.log(
    `SpEAT with speakers (METHODS.md § The unit of inference): ${DIMS}-dimensional embeddings clustered by speaker (speaker SD ${SPEAKER_SD}, clip SD ${CLIP_SD}), fixed attribute sets, no group effect; ${nullSims} null audits per row, ${permutations} permutations (the speaker splits are enumerated when they fit). ` +
      `Power: the MDE the app states (speatMde by speaker) for ${PILOTS} null pilot audits, as a shift of s; its mean planted in X's associations of ${powerSims} fresh audits judged by the speaker-level test (as the clip-level rows above), and, beside it, ${powerSims} more fresh audits, each with one pilot's own MDE (the pilots in turn).\n`,
  );
  console.log(`| design | alpha | false positives, clip-level test (the paper's) | false positives, speaker-level test | speaker splits | stated MDE d (mean over ${PILOTS} audits) | power at the stated MDE (its mean) | power at each pilot's own MDE |`);
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const d of designs) {
    const rng = new Rng(20_261_205, 10 + designs.indexOf(d));
    let fpClip = 0;
    let fpSpeaker = 0;
    let splits = '';
    for (let k = 0; k < nullSims; k += 1) {
      const a = nullAudit(rng, d, A, B);
      const r = speatFromAssociations(a.sX, a.sY, { permutations, seed: k, speakers: { X: a.speakersX, Y: a.speakersY } });
      if (r.unit !== 'speaker' || !r.clipLevel) throw new Error('expected a speaker-level result');
      if (r.clipLevel.pTwoSided < d.alpha) fpClip += 1;
      if (r.pTwoSided < d.alpha) fpSpeaker += 1;
      splits = `${r.permutations.toLocaleString('en')} ${r.exact ? 'exact' : 'sampled'}`;
    }
    // The MDE each pilot states, in units of s (the attribute sets are fixed, so s has one scale).
    const pilots: { d: number; shift: number }[] = [];
    for (let k = 0; k < PILOTS; k += 1) {
      const pilot = nullAudit(rng, d, A, B);
      const m = speatMde(pilot.sX, pilot.sY, { alpha: d.alpha, permutations, seed: k, speakers: { X: pilot.speakersX, Y: pilot.speakersY } });
      if (m.d !== null && m.standardisedShift !== null) pilots.push({ d: m.d, shift: m.standardisedShift * withinSd(pilot.sX, pilot.sY) });
    }
    const judged = (shift: number, seed: number): boolean => {
      const fresh = nullAudit(rng, d, A, B);
      const sX = fresh.sX.map((v) => v + shift);
      return speakerPermutationTest(sX, fresh.sY, SpeakerDesign.of(fresh.speakersX, fresh.speakersY)!, { permutations, seed }).pTwoSided < d.alpha;
    };
    let hitsMean = 0;
    let hitsOwn = 0;
    const meanShift = pilots.reduce((a, p) => a + p.shift, 0) / Math.max(1, pilots.length);
    for (let k = 0; k < powerSims && pilots.length > 0; k += 1) {
      if (judged(meanShift, k)) hitsMean += 1;
      // The same number of audits, each with one pilot's own stated MDE (pilots in turn).
      if (judged(pilots[k % pilots.length]!.shift, powerSims + k)) hitsOwn += 1;
    }
    const alpha = d.alpha === 0.05 ? '0.05' : `0.05 / 6 = ${d.alpha.toPrecision(3)}`;
    const none = pilots.length < PILOTS ? ` (${PILOTS - pilots.length} of ${PILOTS} pilots without an MDE)` : '';
    const stated = pilots.length > 0 ? `${(pilots.reduce((a, p) => a + p.d, 0) / pilots.length).toFixed(3)}${none}` : 'none: the design cannot reach alpha';
    const power = (hits: number) => (pilots.length > 0 ? options.cell(hits, powerSims) : '–');
    console.log(`| ${d.label} | ${alpha} | ${options.cell(fpClip, nullSims)} | ${options.cell(fpSpeaker, nullSims)} | ${splits} | ${stated} | ${power(hitsMean)} | ${power(hitsOwn)} |`);
  }
  console.log(`\nSpEAT with speakers took ${((performance.now() - t0) / 1000).toFixed(0)} s. Targets: the speaker-level test's false positives ≤ 7%; power 0.8 ± 0.07 at the stated MDE.\n`);
}
