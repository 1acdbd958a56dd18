import { expireFacts, factsToReembed, setEmbedding, type Database } from '@engram/db';
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
