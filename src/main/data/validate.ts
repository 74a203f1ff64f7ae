/**
 * Per-clip validation rules. Which problems exclude a clip and which only warn:
 *
 * - error (clip kept with its reason, status "excluded", listed under "failed"):
 *   missing_file, file_name_not_utf8 (the name on disk is not UTF-8 text, so the
 *   manifest's name cannot reach it), unreadable_file (there, but the system refused to
 *   read it: permissions, a macOS privacy denial, a cloud placeholder not on this computer,
 *   a program holding it), outside_folder, not_audio, empty_file (0 bytes), zero_length (no
 *   samples decoded), non_finite (samples that are NaN or infinite: a model turns them into
 *   NaN embeddings), out_of_range (float samples more than 40 dB over full scale), truncated
 *   (far fewer samples than the header declares), silent,
 *   too_short, too_long, duplicate (same bytes as an earlier row), missing_metadata
 *   (empty speaker, transcript or valence where that role is mapped), bad_value (e.g. a
 *   valence that is not a number).
 * - warning (status "warning", still used in audits, shown in the report):
 *   narrowband (original rate <= 8 kHz: a telephone-channel confound), clipped,
 *   missing_label (an empty group label: the clip is simply in no group for that label,
 *   as with the many blank age/gender cells of Common Voice, and still serves the other
 *   labels).
 * - info (status stays "ok"): downmixed (more than one channel, averaged to mono).
 */
import type { ClipIssue, IssueCode, IssueSeverity, ValidationLimits } from '../../shared/api/datasets';
import { FAR_BEYOND_FULL_SCALE, type SampleChecks } from '../audio/mix';

export const DEFAULT_LIMITS: Required<ValidationLimits> = {
  minDurationS: 0.25,
  maxDurationS: 120,
  silenceDbfs: -60,
  clippedFraction: 0.001,
  narrowbandHz: 8000,
};

export function withDefaults(limits: ValidationLimits | undefined): Required<ValidationLimits> {
  return { ...DEFAULT_LIMITS, ...Object.fromEntries(Object.entries(limits ?? {}).filter(([, v]) => v !== undefined)) };
}

const SEVERITY: Record<IssueCode, IssueSeverity> = {
  missing_file: 'error',
  file_name_not_utf8: 'error',
  unreadable_file: 'error',
  outside_folder: 'error',
  not_audio: 'error',
  empty_file: 'error',
  zero_length: 'error',
  truncated: 'error',
  silent: 'error',
  non_finite: 'error',
  out_of_range: 'error',
  too_short: 'error',
  too_long: 'error',
  duplicate: 'error',
  missing_metadata: 'error',
  missing_label: 'warning',
  bad_value: 'error',
  clipped: 'warning',
  narrowband: 'warning',
  downmixed: 'info',
};

export function issue(code: IssueCode, message: string): ClipIssue {
  return { code, severity: SEVERITY[code], message };
}

export function statusOf(issues: readonly ClipIssue[]): 'ok' | 'warning' | 'excluded' {
  if (issues.some((i) => i.severity === 'error')) return 'excluded';
  if (issues.some((i) => i.severity === 'warning')) return 'warning';
  return 'ok';
}

export interface AudioFacts {
  durationS: number;
  declaredDurationS: number | null;
  sampleRate: number | null;
  channels: number | null;
  rms: number;
  peak: number;
  clippedFraction: number;
  /** Why the file looks cut off or damaged (ffmpeg's complaint or the WAV header), if it does. */
  damaged?: string | null;
  /** What the samples are (NaN, infinite, far beyond full scale), over every channel; absent: not checked. */
  checks?: SampleChecks;
}

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** "17 samples are infinite and 3 samples are not a number (NaN)", or null when every sample is a number. */
export function nonFiniteText(c: SampleChecks): string | null {
  const parts: string[] = [];
  if (c.infinite > 0) parts.push(count(c.infinite, 'sample is infinite', 'samples are infinite'));
  if (c.nan > 0) parts.push(count(c.nan, 'sample is not a number (NaN)', 'samples are not a number (NaN)'));
  return parts.length ? parts.join(' and ') : null;
}

const fmt = (s: number) => `${s.toFixed(2)} s`;

/** Issues that follow from the decoded audio alone. */
export function audioIssues(a: AudioFacts, limits: Required<ValidationLimits>): ClipIssue[] {
  const out: ClipIssue[] = [];
  if (a.durationS === 0) {
    out.push(issue('zero_length', 'no audio samples could be decoded (zero length)'));
    return out;
  }
  // Half a second of slack: containers round their declared durations.
  if (a.declaredDurationS !== null && a.declaredDurationS - a.durationS > Math.max(0.5, 0.1 * a.declaredDurationS)) {
    out.push(issue('truncated', `truncated or damaged: the header declares ${fmt(a.declaredDurationS)} but only ${fmt(a.durationS)} could be decoded`));
  } else if (a.damaged) {
    out.push(issue('truncated', `truncated or damaged: ${a.damaged} (${fmt(a.durationS)} could be decoded)`));
  }
  const c = a.checks;
  const notNumbers = c ? nonFiniteText(c) : null;
  if (c && notNumbers) {
    const all = c.nan + c.infinite === c.values;
    out.push(issue('non_finite', `${notNumbers}${all ? ' (every sample)' : ` (of ${count(c.values, 'sample', 'samples')})`}: the recording holds values that are not sound, so a model would give no usable numbers for it; export it again from the recording software`));
  }
  if (c && c.farBeyondFullScale > 0) {
    out.push(
      issue(
        'out_of_range',
        `${count(c.farBeyondFullScale, 'sample is', 'samples are')} far beyond full scale (the largest is ${c.largest.toPrecision(3)}; full scale is 1 and more than ${FAR_BEYOND_FULL_SCALE} is not a recording level): the float values look wrongly scaled, for example whole-number sample values written into a float file`,
      ),
    );
  }
  // Levels say nothing of a file whose samples are not numbers (a NaN file is not "silent").
  const rmsDb = notNumbers ? 0 : a.rms > 0 ? 20 * Math.log10(a.rms) : -Infinity;
  if (rmsDb < limits.silenceDbfs) {
    out.push(issue('silent', `silent: RMS level ${Number.isFinite(rmsDb) ? rmsDb.toFixed(1) : '-inf'} dBFS is below ${limits.silenceDbfs} dBFS`));
  }
  if (a.durationS < limits.minDurationS) out.push(issue('too_short', `shorter (${fmt(a.durationS)}) than the minimum of ${fmt(limits.minDurationS)}`));
  if (a.durationS > limits.maxDurationS) out.push(issue('too_long', `longer (${fmt(a.durationS)}) than the maximum of ${fmt(limits.maxDurationS)}`));
  if (!notNumbers && a.clippedFraction > limits.clippedFraction) {
    out.push(issue('clipped', `clipped: ${(a.clippedFraction * 100).toFixed(2)}% of samples sit at full scale`));
  }
  if (a.sampleRate !== null && a.sampleRate <= limits.narrowbandHz) {
    out.push(issue('narrowband', `narrowband: recorded at ${a.sampleRate} Hz (telephone bandwidth); differences between groups may reflect the channel rather than the speakers`));
  }
  if (a.channels !== null && a.channels > 1) out.push(issue('downmixed', `${a.channels} channels averaged to mono (their plain average: the loudest channel's peak is never exceeded)`));
  return out;
}
