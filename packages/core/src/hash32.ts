/**
 * A fast 32-bit string hash: FNV-1a, finished with murmur3's fmix32 so every input bit reaches
 * every output bit. Not cryptographic; uniform and deterministic (feature hashing for the local
 * embedder, the forgetting curve's draws).
 */
export function hash32(text: string): number {
  return finish32(absorb32(FNV_OFFSET, text));
}

const FNV_OFFSET = 0x811c9dc5;

/** FNV-1a's state after `text`, starting from `state` (hash a shared prefix once). */
function absorb32(state: number, text: string): number {
  let h = state;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

/**
 * hash32 of `prefix + text` for many texts sharing one prefix: the prefix is read once.
 * `hash32With(p)(t) === hash32(p + t)`.
 */
export function hash32With(prefix: string): (text: string) => number {
  const state = absorb32(FNV_OFFSET, prefix);
  return (text) => finish32(absorb32(state, text));
}

function finish32(state: number): number {
  let h = state;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
