/**
 * Confidence calibration of an ASR model per group: does the model's confidence track how
 * often it is right, equally for every group? Per utterance, accuracy = 1 − WER clipped to
 * [0, 1] (a word-level proxy for "the transcript is right"); per group, the mean
 * confidence, the mean accuracy and the expected calibration error over 10 equal-width
 * confidence bins: Σ_b (n_b / n) · |mean confidence_b − mean accuracy_b|.
 */

export const ECE_BINS = 10;

export interface CalibrationInput {
  group: string;
  confidence: number;
  accuracy: number;
}

export interface GroupCalibration {
  meanConfidence: number;
  accuracy: number;
  ece: number;
}

/**
 * 1 − min(1, errors / reference words). An empty reference has no WER: accuracy is 1 when
 * the hypothesis is empty too and 0 otherwise.
 */
export function utteranceAccuracy(errors: number, referenceWords: number): number {
  if (referenceWords === 0) return errors === 0 ? 1 : 0;
  return 1 - Math.min(1, Math.max(0, errors / referenceWords));
}

/** Bin of a confidence: [0, 0.1), [0.1, 0.2) … [0.9, 1.0]; 1.0 falls in the last bin. */
export function confidenceBin(c: number, bins = ECE_BINS): number {
  return Math.min(bins - 1, Math.max(0, Math.floor(c * bins)));
}

export function calibrationByGroup(rows: readonly CalibrationInput[], bins = ECE_BINS): Record<string, GroupCalibration> {
  const byGroup = new Map<string, CalibrationInput[]>();
  for (const r of rows) {
    if (!Number.isFinite(r.confidence)) continue;
    const list = byGroup.get(r.group) ?? [];
    list.push(r);
    byGroup.set(r.group, list);
  }
  const out: Record<string, GroupCalibration> = {};
  for (const g of [...byGroup.keys()].sort()) {
    const list = byGroup.get(g)!;
    const n = list.length;
    const conf = new Float64Array(bins);
    const acc = new Float64Array(bins);
    const count = new Float64Array(bins);
    let sc = 0;
    let sa = 0;
    for (const r of list) {
      const b = confidenceBin(r.confidence, bins);
      conf[b] += r.confidence;
      acc[b] += r.accuracy;
      count[b] += 1;
      sc += r.confidence;
      sa += r.accuracy;
    }
    let ece = 0;
    for (let b = 0; b < bins; b += 1) if (count[b]! > 0) ece += (count[b]! / n) * Math.abs(conf[b]! / count[b]! - acc[b]! / count[b]!);
    out[g] = { meanConfidence: sc / n, accuracy: sa / n, ece };
  }
  return out;
}
