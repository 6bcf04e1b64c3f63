// Deterministic pseudo-random numbers (mulberry32): simulations, property tests and benchmarks
// seed them so that a run, and a failure, can be reproduced from its seed.

/** A generator of numbers in [0, 1) that yields the same sequence for the same seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
