import { expireFacts, factsToReembed, factsToReextract, setEmbedding, setExtraction, type Database } from '@engram/db';
import { keywordsOf } from './commit.ts';
import { entitySignature } from './corroboration.ts';
import { EXTRACTOR_VERSION, matchKeysOf, readFact } from '../language/index.ts';
import type { Embedder } from '../embeddings/embedder.ts';

export { expireFacts };

/**
 * Recomputes embeddings with the current embedder: facts stored without a vector (the embedding
 * service was down) or, with `allModels`, facts embedded by another model (after switching
 * provider). Returns how many were updated.
 */
export async function reembedFacts(
  db: Database,
  embedder: Embedder,
  options: { batchSize?: number; maxFacts?: number; onBatch?: (done: number) => void } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 100;
  let done = 0;
  while (options.maxFacts === undefined || done < options.maxFacts) {
    const limit = options.maxFacts === undefined ? batchSize : Math.min(batchSize, options.maxFacts - done);
    const batch = await factsToReembed(db, embedder.model, limit);
    if (batch.length === 0) break;
    const vectors = await embedder.embed(batch.map((f) => f.content));
    for (let i = 0; i < batch.length; i++) await setEmbedding(db, batch[i]!.id, vectors[i]!, embedder.model);
    done += batch.length;
    options.onBatch?.(done);
    if (batch.length < limit) break;
  }
  return done;
}

/**
 * Re-extracts entities of facts stored by an older extractor (see EXTRACTOR_VERSION), so the
 * detector compares every fact by the same slots. Erased facts have nothing to extract. Returns
 * how many were updated (at most `maxFacts`).
 */
export async function reextractFacts(db: Database, options: { batchSize?: number; maxFacts?: number } = {}): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  const maxFacts = options.maxFacts ?? Number.POSITIVE_INFINITY;
  let done = 0;
  while (done < maxFacts) {
    const batch = await factsToReextract(db, EXTRACTOR_VERSION, Math.min(batchSize, maxFacts - done));
    if (batch.length === 0) break;
    for (const fact of batch) {
      const entities = readFact(fact.content);
      await setExtraction(db, fact.id, {
        entities,
        entitySignature: entitySignature(entities),
        matchKeys: matchKeysOf(entities, fact.scope),
        keywords: keywordsOf(fact.content, entities),
        version: EXTRACTOR_VERSION,
      });
    }
    done += batch.length;
  }
  return done;
}
