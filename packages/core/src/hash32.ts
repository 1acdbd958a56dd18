/**
 * A fast 32-bit string hash: FNV-1a, finished with murmur3's fmix32 so every input bit reaches
 * every output bit. Not cryptographic; uniform and deterministic (feature hashing for the local
 * embedder, the forgetting curve's draws).
 */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
