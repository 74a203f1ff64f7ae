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
      let m = this.nextU32() * n;
      let l = m % 4294967296;
      if (l < n) {
        const threshold = (4294967296 - n) % n;
        while (l < threshold) {
          m = this.nextU32() * n;
          l = m % 4294967296;
        }
      }
      return Math.floor(m / 4294967296);
    }
    // Large n: rejection on 53-bit floats.
    const limit = Math.floor(9007199254740992 / n) * n;
    for (;;) {
      const r = this.nextFloat() * 9007199254740992;
      if (r < limit) return r % n;
    }
  }

  /** Fisher–Yates shuffle in place of the first `k` positions (partial shuffle). */
  shufflePrefix(arr: Int32Array | Uint32Array | number[], k = arr.length): void {
    const n = arr.length;
    for (let i = 0; i < k && i < n - 1; i += 1) {
      const j = i + this.nextInt(n - i);
      const t = arr[i]!;
      arr[i] = arr[j]!;
      arr[j] = t;
    }
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
