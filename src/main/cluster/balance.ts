/**
 * Splitting recordings into shards of about equal total duration: array tasks then end
 * at about the same time, which an equal number of clips per shard does not give when
 * clip lengths vary (a corpus of 2 s prompts and 60 s read passages).
 */

/**
 * Longest-processing-time-first: the longest clip goes to the shard with the least audio
 * so far (ties: the lower shard). The result never leaves two shards further apart than
 * the longest clip. Clips keep their original order inside a shard. Unknown durations
 * count as the mean of the known ones.
 */
export function balanceShards(durations: readonly (number | null)[], shards: number): number[][] {
  if (!Number.isInteger(shards) || shards < 1) throw new RangeError(`shards must be a positive integer, got ${shards}`);
  const known = durations.filter((d): d is number => d !== null && Number.isFinite(d) && d >= 0);
  const fill = known.length > 0 ? known.reduce((a, b) => a + b, 0) / known.length : 1;
  const d = durations.map((x) => (x !== null && Number.isFinite(x) && x >= 0 ? x : fill));
  const order = d.map((_, i) => i).sort((a, b) => d[b]! - d[a]! || a - b);
  const load = new Array<number>(shards).fill(0);
  const out: number[][] = Array.from({ length: shards }, () => []);
  for (const i of order) {
    let best = 0;
    for (let k = 1; k < shards; k += 1) if (load[k]! < load[best]!) best = k;
    out[best]!.push(i);
    load[best]! += d[i]!;
  }
  for (const s of out) s.sort((a, b) => a - b);
  return out;
}
