/**
 * Seeded PRNG: xoshiro128** (Blackman & Vigna 2018, https://prng.di.unimi.it/xoshiro128starstar.c),
 * seeded through splitmix32. Only 32-bit integer arithmetic (Math.imul, >>> 0), so a seed
 * gives bit-identical streams on every platform and JS engine.
 *
 * Independent streams: `Rng.stream(seed, k)` mixes the stream index into the seed with a
 * different splitmix constant so stream k of seed s never shares state with stream 0 of a
 * neighbouring seed; work split over threads uses one stream per chunk and stays
 * reproducible regardless of how many threads run.
 */
export class Rng {
  /**
   * xoshiro's four words. An Int32Array rather than four number fields: a field holding an
   * int32 outside the small-integer range is a boxed heap number in V8, so every store
   * would allocate; the hot loops below load the words once and store them once per call.
   */
  private readonly st = new Int32Array(4);

  constructor(seed: number, stream = 0) {
    // splitmix32 over (seed, stream); a 0 state is impossible because splitmix outputs a bijection of a counter.
    let x = (seed >>> 0) ^ Math.imul(stream >>> 0, 0x85ebca6b);
    const hi = Math.floor(seed / 4294967296) >>> 0;
    x = (x ^ Math.imul(hi, 0xc2b2ae35)) >>> 0;
    const next = (): number => {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.st[0] = next();
    this.st[1] = next();
    this.st[2] = next();
    this.st[3] = next();
    if ((this.st[0]! | this.st[1]! | this.st[2]! | this.st[3]!) === 0) this.st[0] = 1;
  }

  static stream(seed: number, stream: number): Rng {
    return new Rng(seed, stream + 1);
  }

  /** Next uint32. */
  nextU32(): number {
    const s0 = this.st[0]!;
    const s1 = this.st[1]!;
    const s2 = this.st[2]!;
    const s3 = this.st[3]!;
    const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    let n2 = s2 ^ s0;
    let n3 = s3 ^ s1;
    const n1 = s1 ^ n2;
    const n0 = s0 ^ n3;
    n2 ^= t;
    n3 = rotl(n3, 11);
    this.st[0] = n0 | 0;
    this.st[1] = n1 | 0;
    this.st[2] = n2 | 0;
    this.st[3] = n3 | 0;
    return r;
  }

  /** Uniform double in [0, 1) with 53 random bits. */
  nextFloat(): number {
    const a = this.nextU32() >>> 5; // 27 bits
    const b = this.nextU32() >>> 6; // 26 bits
    return (a * 67108864 + b) / 9007199254740992;
  }

  /**
   * Unbiased integer in [0, n), n <= 2^21 fast path (Lemire 2019, "Fast random integer
   * generation in an interval"): r*n is exact in a double when n < 2^21.
   */
  nextInt(n: number): number {
    if (n <= 0) throw new RangeError('nextInt: n must be positive');
    if (n <= 2097152) {
      // m = r·n < 2^53 is exact; hi/lo split by multiplying with 2^-32 (exact) avoids a slow float modulo.
      let m = this.nextU32() * n;
      let hi = Math.floor(m * 2.3283064365386963e-10);
      let lo = m - hi * 4294967296;
      if (lo < n) {
        const threshold = (4294967296 - n) % n;
        while (lo < threshold) {
          m = this.nextU32() * n;
          hi = Math.floor(m * 2.3283064365386963e-10);
          lo = m - hi * 4294967296;
        }
      }
      return hi;
    }
    // Large n: rejection on 53-bit floats.
    const limit = Math.floor(9007199254740992 / n) * n;
    for (;;) {
      const r = this.nextFloat() * 9007199254740992;
      if (r < limit) return r % n;
    }
  }

  /**
   * out[0..count) = independent uniform integers in [0, n), n <= 2^21. Same numbers as
   * `count` calls of nextInt(n); the state lives in locals here because this is the
   * bootstrap's hot loop.
   */
  fillInts(out: Int32Array, count: number, n: number): void {
    if (n > 2097152) {
      for (let i = 0; i < count; i += 1) out[i] = this.nextInt(n);
      return;
    }
    let s0 = this.st[0]!;
    let s1 = this.st[1]!;
    let s2 = this.st[2]!;
    let s3 = this.st[3]!;
    const threshold = (4294967296 - n) % n;
    for (let i = 0; i < count; i += 1) {
      for (;;) {
        const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
        const t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = (s3 << 11) | (s3 >>> 21);
        const m = r * n;
        const hi = Math.floor(m * 2.3283064365386963e-10);
        if (m - hi * 4294967296 >= threshold) {
          out[i] = hi;
          break;
        }
      }
    }
    this.st[0] = s0;
    this.st[1] = s1;
    this.st[2] = s2;
    this.st[3] = s3;
  }

  /**
   * The bootstrap's draws, for `resamples` resamples in turn: k uniform draws with
   * replacement from x, then k from y (sumOfDraws on each). out[3r] = the sum of resample
   * r's x draws, out[3r + 1] the sum of its y draws, out[3r + 2] the x draws' sum of
   * squares plus the y draws'. One call per bootstrap size: this loop is most of the
   * paper-scale SpEAT's time.
   */
  drawSums(sx: DrawSet, sy: DrawSet, k: number, resamples: number, out: Float64Array): void {
    if (out.length < 3 * resamples) throw new RangeError('drawSums: out is too short');
    const acc = new Float64Array(2);
    for (let r = 0; r < resamples; r += 1) {
      this.sumOfDraws(sx, k, acc);
      const sumX = acc[0]!;
      const squaresX = acc[1]!;
      this.sumOfDraws(sy, k, acc);
      out[3 * r] = sumX;
      out[3 * r + 1] = acc[0]!;
      out[3 * r + 2] = squaresX + acc[1]!;
    }
  }

  /**
   * acc = [sum, sum of squares] of k uniform draws with replacement from set.values.
   *
   * A set of at most 256 values draws two at a time: a uniform q in [0, n²) is the
   * independent pair (⌊q/n⌋, q mod n), whose sum and sum of squares the set's tables
   * hold, so one 16-bit draw and two table loads replace two 32-bit draws, two loads and
   * two multiplications; an odd k takes its last value alone. The 16-bit numbers are the halves of 32-bit outputs,
   * high half first (every half of an xoshiro128** output is uniform), each bounded by
   * Lemire's method on 16 bits, which is exact; a half left over at the end of the call
   * is discarded. Larger sets take one 32-bit output per value (Lemire on 32 bits). At
   * paper scale (60 values, 18.6 million draws) the bootstrap took 44 ms instead of 68
   * (medians of 11 runs of `stats speat`, one thread).
   */
  sumOfDraws(set: DrawSet, k: number, acc: Float64Array): void {
    if (set.pairSums) this.pairDraws(set, set.pairSums, set.pairSquares!, k, acc);
    else this.wordDraws(set.values, k, acc);
  }

  private pairDraws(set: DrawSet, sums: Float64Array, squares: Float64Array, k: number, acc: Float64Array): void {
    const n = set.values.length;
    const pairBound = n * n;
    const pairThreshold = 65536 % pairBound;
    let s0 = this.st[0]!;
    let s1 = this.st[1]!;
    let s2 = this.st[2]!;
    let s3 = this.st[3]!;
    let sum = 0;
    let sq = 0;
    const pairs = k >> 1;
    let got = 0;
    // The unused low half of the last output, or −1.
    let spare = -1;
    while (got < pairs) {
      const u = Math.imul(s1, 5);
      const w = Math.imul((u << 7) | (u >>> 25), 9);
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      // The products are below 2^32: imul's 32 bits hold them whole (>>> reads them unsigned).
      const m = Math.imul(w >>> 16, pairBound);
      if ((m & 0xffff) >= pairThreshold) {
        const q = m >>> 16;
        sum += sums[q]!;
        sq += squares[q]!;
        got += 1;
        if (got === pairs) {
          spare = w & 0xffff;
          break;
        }
      }
      const m2 = Math.imul(w & 0xffff, pairBound);
      if ((m2 & 0xffff) >= pairThreshold) {
        const q = m2 >>> 16;
        sum += sums[q]!;
        sq += squares[q]!;
        got += 1;
      }
    }
    if (k & 1) {
      const values = set.values;
      const threshold = 65536 % n;
      let half = spare;
      for (;;) {
        if (half < 0) {
          const u = Math.imul(s1, 5);
          const w = Math.imul((u << 7) | (u >>> 25), 9);
          const t = s1 << 9;
          s2 ^= s0;
          s3 ^= s1;
          s1 ^= s2;
          s0 ^= s3;
          s2 ^= t;
          s3 = (s3 << 11) | (s3 >>> 21);
          half = w >>> 16;
          spare = w & 0xffff;
        } else {
          spare = -1;
        }
        const m = Math.imul(half, n);
        if ((m & 0xffff) >= threshold) {
          const a = values[m >>> 16]!;
          sum += a;
          sq += a * a;
          break;
        }
        half = spare;
      }
    }
    this.st[0] = s0;
    this.st[1] = s1;
    this.st[2] = s2;
    this.st[3] = s3;
    acc[0] = sum;
    acc[1] = sq;
  }

  private wordDraws(values: Float64Array, k: number, acc: Float64Array): void {
    const n = values.length;
    const threshold = (4294967296 - n) % n;
    let s0 = this.st[0]!;
    let s1 = this.st[1]!;
    let s2 = this.st[2]!;
    let s3 = this.st[3]!;
    let sum = 0;
    let sq = 0;
    for (let j = 0; j < k; j += 1) {
      let hi = 0;
      for (;;) {
        const u = Math.imul(s1, 5);
        const v = Math.imul((u << 7) | (u >>> 25), 9) >>> 0;
        const t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = (s3 << 11) | (s3 >>> 21);
        const m = v * n;
        hi = Math.floor(m * 2.3283064365386963e-10);
        if (m - hi * 4294967296 >= threshold) break;
      }
      const a = values[hi]!;
      sum += a;
      sq += a * a;
    }
    this.st[0] = s0;
    this.st[1] = s1;
    this.st[2] = s2;
    this.st[3] = s3;
    acc[0] = sum;
    acc[1] = sq;
  }

  /**
   * A partial Fisher–Yates shuffle of the values themselves (the first min(k, n − 1)
   * steps; a uniformly random k-subset lands in values[0..k)), returning the sum of
   * values[0..k) added in position order: the permutation test's inner loop. Each
   * arrangement continues from the previous one, which is as uniform as starting afresh.
   * For n ≤ 65536 the steps take 16-bit numbers as sumOfDraws does (halves of 32-bit
   * outputs, high half first, Lemire on 16 bits, a half left at the end of the call
   * discarded); larger arrays one 32-bit output per step (nextInt).
   */
  shuffleSumPrefix(values: Float64Array, k: number): number {
    const n = values.length;
    if (n > 65536) return this.shuffleSumPrefixWide(values, k);
    const steps = Math.min(k, n - 1);
    let s0 = this.st[0]!;
    let s1 = this.st[1]!;
    let s2 = this.st[2]!;
    let s3 = this.st[3]!;
    let sum = 0;
    let i = 0;
    while (i < steps) {
      const x = Math.imul(s1, 5);
      const r = Math.imul((x << 7) | (x >>> 25), 9);
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      // The 65536 % bound of the rejection threshold is only needed when lo < bound (rare).
      let bound = n - i;
      const m = Math.imul(r >>> 16, bound);
      if ((m & 0xffff) >= bound || (m & 0xffff) >= 65536 % bound) {
        const j = i + (m >>> 16);
        const v = values[j]!;
        values[j] = values[i]!;
        values[i] = v;
        sum += v;
        i += 1;
        if (i === steps) break;
        bound -= 1;
      }
      const m2 = Math.imul(r & 0xffff, bound);
      if ((m2 & 0xffff) >= bound || (m2 & 0xffff) >= 65536 % bound) {
        const j = i + (m2 >>> 16);
        const v = values[j]!;
        values[j] = values[i]!;
        values[i] = v;
        sum += v;
        i += 1;
      }
    }
    for (let q = steps; q < k; q += 1) sum += values[q]!;
    this.st[0] = s0;
    this.st[1] = s1;
    this.st[2] = s2;
    this.st[3] = s3;
    return sum;
  }

  private shuffleSumPrefixWide(values: Float64Array, k: number): number {
    const n = values.length;
    const steps = Math.min(k, n - 1);
    let sum = 0;
    for (let i = 0; i < steps; i += 1) {
      const j = i + this.nextInt(n - i);
      const v = values[j]!;
      values[j] = values[i]!;
      values[i] = v;
      sum += v;
    }
    for (let i = steps; i < k; i += 1) sum += values[i]!;
    return sum;
  }

  /**
   * Fisher–Yates shuffle of the first `k` positions (a uniformly random k-subset, in
   * random order, lands in arr[0..k)). Same numbers as calling nextInt(n - i) per step.
   */
  shufflePrefix(arr: Int32Array, k = arr.length): void {
    const n = arr.length;
    let s0 = this.st[0]!;
    let s1 = this.st[1]!;
    let s2 = this.st[2]!;
    let s3 = this.st[3]!;
    for (let i = 0; i < k && i < n - 1; i += 1) {
      const bound = n - i;
      let hi = 0;
      for (;;) {
        const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
        const t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = (s3 << 11) | (s3 >>> 21);
        const m = r * bound;
        hi = Math.floor(m * 2.3283064365386963e-10);
        const lo = m - hi * 4294967296;
        // The float modulo for the rejection threshold is only needed when lo < bound (rare).
        if (lo >= bound || lo >= (4294967296 - bound) % bound) break;
      }
      const j = i + hi;
      const tmp = arr[i]!;
      arr[i] = arr[j]!;
      arr[j] = tmp;
    }
    this.st[0] = s0;
    this.st[1] = s1;
    this.st[2] = s2;
    this.st[3] = s3;
  }

  /**
   * shufflePrefix(order, k) that also returns, in acc, Σ values[order[i]] and
   * Σ weights[order[i]] over i in [0, k), added in position order: the same draws, the same
   * arrangement and the same sums as shuffling first and summing after, in one pass (the
   * speaker-level permutation test's inner loop, which summed in a second loop).
   */
  shufflePrefixSums(order: Int32Array, k: number, values: Float64Array, weights: Float64Array, acc: Float64Array): void {
    const n = order.length;
    let s0 = this.st[0]!;
    let s1 = this.st[1]!;
    let s2 = this.st[2]!;
    let s3 = this.st[3]!;
    let sum = 0;
    let weight = 0;
    let i = 0;
    for (; i < k && i < n - 1; i += 1) {
      const bound = n - i;
      let hi = 0;
      for (;;) {
        const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
        const t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = (s3 << 11) | (s3 >>> 21);
        const m = r * bound;
        hi = Math.floor(m * 2.3283064365386963e-10);
        const lo = m - hi * 4294967296;
        if (lo >= bound || lo >= (4294967296 - bound) % bound) break;
      }
      const j = i + hi;
      const b = order[j]!;
      order[j] = order[i]!;
      order[i] = b;
      sum += values[b]!;
      weight += weights[b]!;
    }
    for (; i < k; i += 1) {
      const b = order[i]!;
      sum += values[b]!;
      weight += weights[b]!;
    }
    this.st[0] = s0;
    this.st[1] = s1;
    this.st[2] = s2;
    this.st[3] = s3;
    acc[0] = sum;
    acc[1] = weight;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/**
 * Values to draw from with replacement (Rng.sumOfDraws). For at most 256 values it holds
 * every ordered pair's sum and sum of squares: entry i·n + j is v_i + v_j and
 * v_i² + v_j² (n² ≤ 2^16, so one 16-bit draw picks a pair).
 */
export class DrawSet {
  readonly pairSums: Float64Array | null = null;
  readonly pairSquares: Float64Array | null = null;

  private constructor(readonly values: Float64Array) {
    const n = values.length;
    if (n > 256) return;
    const sums = new Float64Array(n * n);
    const squares = new Float64Array(n * n);
    for (let i = 0; i < n; i += 1) {
      const a = values[i]!;
      for (let j = 0; j < n; j += 1) {
        const b = values[j]!;
        sums[i * n + j] = a + b;
        squares[i * n + j] = a * a + b * b;
      }
    }
    this.pairSums = sums;
    this.pairSquares = squares;
  }

  static of(values: Float64Array): DrawSet {
    if (values.length === 0 || values.length > 2097152) throw new RangeError('a set to draw from needs 1 to 2^21 values');
    return new DrawSet(values);
  }
}
