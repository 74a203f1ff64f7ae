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
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

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
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  static stream(seed: number, stream: number): Rng {
    return new Rng(seed, stream + 1);
  }

  /** Next uint32. */
  nextU32(): number {
    const s0 = this.s0;
    const s1 = this.s1;
    const s2 = this.s2;
    const s3 = this.s3;
    const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    let n2 = s2 ^ s0;
    let n3 = s3 ^ s1;
    const n1 = s1 ^ n2;
    const n0 = s0 ^ n3;
    n2 ^= t;
    n3 = rotl(n3, 11);
    this.s0 = n0 | 0;
    this.s1 = n1 | 0;
    this.s2 = n2 | 0;
    this.s3 = n3 | 0;
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
    let s0 = this.s0;
    let s1 = this.s1;
    let s2 = this.s2;
    let s3 = this.s3;
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
    this.s0 = s0;
    this.s1 = s1;
    this.s2 = s2;
    this.s3 = s3;
  }

  /**
   * Fisher–Yates shuffle of the first `k` positions (a uniformly random k-subset, in
   * random order, lands in arr[0..k)). Same numbers as calling nextInt(n - i) per step.
   */
  shufflePrefix(arr: Int32Array, k = arr.length): void {
    const n = arr.length;
    let s0 = this.s0;
    let s1 = this.s1;
    let s2 = this.s2;
    let s3 = this.s3;
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
    this.s0 = s0;
    this.s1 = s1;
    this.s2 = s2;
    this.s3 = s3;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
