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
   * replacement from x, then k from y (the same draws as fillInts(…, k, x.length) then
   * fillInts(…, k, y.length)). out[3r] = the sum of resample r's x draws, out[3r + 1] the
   * sum of its y draws, out[3r + 2] the sum of squares of all 2k, added in draw order.
   * One call per bootstrap size, with the generator state in registers: this loop is
   * most of the paper-scale SpEAT's time.
   */
  drawSums(x: Float64Array, y: Float64Array, k: number, resamples: number, out: Float64Array): void {
    const nx = x.length;
    const ny = y.length;
    if (nx > 2097152 || ny > 2097152 || nx === 0 || ny === 0) throw new RangeError('drawSums: each set needs 1 to 2^21 values');
    if (out.length < 3 * resamples) throw new RangeError('drawSums: out is too short');
    const thresholdX = (4294967296 - nx) % nx;
    const thresholdY = (4294967296 - ny) % ny;
    const st = this.st;
    let s0 = st[0]!;
    let s1 = st[1]!;
    let s2 = st[2]!;
    let s3 = st[3]!;
    for (let r = 0; r < resamples; r += 1) {
      let sumX = 0;
      let sumY = 0;
      let squares = 0;
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
          const m = v * nx;
          hi = Math.floor(m * 2.3283064365386963e-10);
          if (m - hi * 4294967296 >= thresholdX) break;
        }
        const a = x[hi]!;
        sumX += a;
        squares += a * a;
      }
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
          const m = v * ny;
          hi = Math.floor(m * 2.3283064365386963e-10);
          if (m - hi * 4294967296 >= thresholdY) break;
        }
        const b = y[hi]!;
        sumY += b;
        squares += b * b;
      }
      out[3 * r] = sumX;
      out[3 * r + 1] = sumY;
      out[3 * r + 2] = squares;
    }
    st[0] = s0;
    st[1] = s1;
    st[2] = s2;
    st[3] = s3;
  }

  /**
   * shufflePrefix(values, k) on the values themselves, returning the sum of the k values
   * that land in values[0..k), added in position order: the permutation test's inner
   * loop (same draws, same arrangement and the same sum as shuffling an index array and
   * adding values[index[i]] for i < k).
   */
  shuffleSumPrefix(values: Float64Array, k: number): number {
    const n = values.length;
    const steps = Math.min(k, n - 1);
    let s0 = this.st[0]!;
    let s1 = this.st[1]!;
    let s2 = this.st[2]!;
    let s3 = this.st[3]!;
    let sum = 0;
    for (let i = 0; i < steps; i += 1) {
      const bound = n - i;
      let hi = 0;
      for (;;) {
        const x = Math.imul(s1, 5);
        const r = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
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
      const v = values[j]!;
      values[j] = values[i]!;
      values[i] = v;
      sum += v;
    }
    for (let i = steps; i < k; i += 1) sum += values[i]!;
    this.st[0] = s0;
    this.st[1] = s1;
    this.st[2] = s2;
    this.st[3] = s3;
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
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
