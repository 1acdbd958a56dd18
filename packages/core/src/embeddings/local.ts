import { EMBEDDING_DIMENSIONS } from '@engram/db';
import type { Embedder } from './embedder.ts';
import { hash32 } from '../hash32.ts';

/** Name recorded on facts embedded by {@link LocalEmbedder}; bump the version when features change. */
export const LOCAL_EMBEDDING_MODEL = 'engram-local-hash-v1';

// Function words carry no topic; dropping them lets a sentence and its terse note form (the same
// nouns and value, without "the", "is", "of") land close together.
const STOPWORDS = new Set(
  'a an and are as at be been by for from has have in into is it its of on or our so that the their this to was we were will with'.split(
    ' ',
  ),
);

/** Light stemming: plural and common suffixes, so "seconds"/"second", "caching"/"cache" meet. */
function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  return word;
}

function words(text: string): string[] {
  return (text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+(?:[._-][\p{L}\p{N}]+)*/gu) ?? []).map(stem);
}

/**
 * A deterministic, dependency-free text embedding: signed feature hashing of words, word bigrams
 * and character trigrams into 512 dimensions, L2-normalized. It knows no synonyms, but it ranks
 * lexically related facts together, costs microseconds, and needs no key or network.
 */
export function embedLocally(text: string, dimensions = EMBEDDING_DIMENSIONS): number[] {
  const vector = new Float64Array(dimensions);
  const add = (feature: string, weight: number) => {
    const h = hash32(feature);
    vector[h % dimensions]! += (h & 0x80000000 ? -1 : 1) * weight;
  };
  const all = words(text);
  const content = all.filter((w) => !STOPWORDS.has(w));
  for (const word of content) {
    // A number says which value, not what the fact is about: it counts less, and has no n-grams.
    if (/^\p{N}+([.,]\p{N}+)*$/u.test(word)) {
      add(`w:${word}`, 0.4);
      continue;
    }
    add(`w:${word}`, 1);
    const padded = `<${word}>`;
    const grams = Math.max(1, padded.length - 2);
    for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`, 0.6 / Math.sqrt(grams));
  }
  for (let i = 0; i + 1 < content.length; i++) add(`b:${content[i]}_${content[i + 1]}`, 0.5);

  // Index loops, not iteration: Array.from over the typed array allocated an iterator result and a
  // boxed number per dimension, about 40 KB per text (the embedding was more than half of what a
  // commit allocated outside extraction, in a heap sampling profile of sequential commits).
  let norm = 0;
  for (let i = 0; i < dimensions; i++) norm += vector[i]! * vector[i]!;
  norm = Math.sqrt(norm);
  const out = new Array<number>(dimensions);
  for (let i = 0; i < dimensions; i++) out[i] = norm === 0 ? 0 : vector[i]! / norm;
  return out;
}

/** The local embedder (used when no OpenAI key is configured, and in tests). */
export class LocalEmbedder implements Embedder {
  readonly model = LOCAL_EMBEDDING_MODEL;
  /**
   * Feature hashing ranks by shared surface words, which full text already ranks better: at equal
   * weight it pulled good text matches down (Hit@10 on the retrieval benchmark's dev set, 2026-12-02:
   * 69 at 1, 74–75 at a quarter; docs/retrieval.md).
   */
  readonly fusionWeight = 0.25;
  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((t) => embedLocally(t));
  }
}
