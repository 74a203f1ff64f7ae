/** Unit-cost Levenshtein distance with one optimal alignment (METHODS.md § WER and CER). */

export interface AlignmentCounts {
  hits: number;
  substitutions: number;
  deletions: number;
  insertions: number;
}

let buffer = new Int32Array(1024);

/**
 * Minimum edit distance between token sequences (any `===`-comparable items) and the
 * counts of one optimal alignment. Backtrace preference on ties: diagonal (hit or
 * substitution), then deletion, then insertion — the order rapidfuzz/jiwer's
 * Levenshtein editops use, so S/D/I match jiwer on its documented examples.
 */
export function alignCounts<T>(ref: ArrayLike<T>, hyp: ArrayLike<T>): AlignmentCounts {
  const n = ref.length;
  const m = hyp.length;
  if (n === 0) return { hits: 0, substitutions: 0, deletions: 0, insertions: m };
  if (m === 0) return { hits: 0, substitutions: 0, deletions: n, insertions: 0 };
  const w = m + 1;
  const size = (n + 1) * w;
  if (buffer.length < size) buffer = new Int32Array(Math.max(size, buffer.length * 2));
  const D = buffer;
  for (let j = 0; j <= m; j += 1) D[j] = j;
  for (let i = 1; i <= n; i += 1) {
    const row = i * w;
    const prev = row - w;
    D[row] = i;
    const r = ref[i - 1];
    for (let j = 1; j <= m; j += 1) {
      const sub = D[prev + j - 1]! + (r === hyp[j - 1] ? 0 : 1);
      const del = D[prev + j]! + 1;
      const ins = D[row + j - 1]! + 1;
      D[row + j] = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins;
    }
  }
  let i = n;
  let j = m;
  const c: AlignmentCounts = { hits: 0, substitutions: 0, deletions: 0, insertions: 0 };
  while (i > 0 || j > 0) {
    const here = D[i * w + j]!;
    if (i > 0 && j > 0) {
      const same = ref[i - 1] === hyp[j - 1];
      if (D[(i - 1) * w + j - 1]! + (same ? 0 : 1) === here) {
        if (same) c.hits += 1;
        else c.substitutions += 1;
        i -= 1;
        j -= 1;
        continue;
      }
    }
    if (i > 0 && D[(i - 1) * w + j]! + 1 === here) {
      c.deletions += 1;
      i -= 1;
      continue;
    }
    c.insertions += 1;
    j -= 1;
  }
  return c;
}

/** Edit distance only, two-row DP (for characters, where no alignment is reported). */
export function editDistance<T>(a: ArrayLike<T>, b: ArrayLike<T>): number {
  const n = a.length;
  const m = b.length;
  if (n === 0) return m;
  if (m === 0) return n;
  let prev = new Int32Array(m + 1);
  let cur = new Int32Array(m + 1);
  for (let j = 0; j <= m; j += 1) prev[j] = j;
  for (let i = 1; i <= n; i += 1) {
    cur[0] = i;
    const x = a[i - 1];
    for (let j = 1; j <= m; j += 1) {
      const sub = prev[j - 1]! + (x === b[j - 1] ? 0 : 1);
      const del = prev[j]! + 1;
      const ins = cur[j - 1]! + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins;
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  return prev[m]!;
}
