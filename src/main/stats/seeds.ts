/** A per-unit seed from the audit seed and the unit's key, independent of run order. */
export function unitSeed(seed: number, key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h ^ seed) >>> 0;
}
