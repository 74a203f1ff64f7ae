/**
 * How often the CLI prints progress: a long job reports every clip, and a line per clip
 * (thousands on stderr) reads as noise. A line is printed when the stage or its words
 * change, when the stage completes, and otherwise at most once a second and only when
 * the whole percentage moved (so at most about a hundred lines per stage), with a line
 * every 30 seconds regardless, so a slow stage still shows it is alive.
 */
export interface ProgressLine {
  stage: string;
  done: number;
  total: number;
  /** The words after the counts; part of what makes a line new. */
  label?: string | undefined;
}

export class ProgressThrottle {
  private lastKey = '';
  private lastAt = 0;
  private lastPercent = -1;
  constructor(private readonly now: () => number = Date.now) {}

  /** Whether this report deserves a line. */
  shouldPrint(p: ProgressLine): boolean {
    const t = this.now();
    const key = `${p.stage}\u0000${p.label ?? ''}\u0000${p.total}`;
    const percent = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 0;
    const print =
      key !== this.lastKey ||
      (p.total > 0 && p.done >= p.total) ||
      (t - this.lastAt >= 1000 && percent !== this.lastPercent) ||
      t - this.lastAt >= 30_000;
    if (print) {
      this.lastKey = key;
      this.lastAt = t;
      this.lastPercent = percent;
    }
    return print;
  }
}
