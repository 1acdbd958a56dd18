import type { Config } from '@engram/config';
import { createEmbedder, reembedFacts } from '@engram/core';
import { createDb, migrate } from '@engram/db';

/**
 * `engram reembed`: recomputes vectors with the configured embedder for facts stored without one
 * or with another model (after switching between local and OpenAI embeddings). Queries compare
 * only vectors of the current model, so until this runs, older facts are found by full text only.
 */
export async function reembedCommand(config: Config): Promise<void> {
  const embedder = createEmbedder(config);
  const db = await createDb(config.database, { limits: config.databaseLimits });
  try {
    await migrate(db.db);
    const done = await reembedFacts(db.db, embedder, {
      onBatch: (n) => process.stderr.write(`  ${n} facts re-embedded...\n`),
    });
    process.stdout.write(`Re-embedded ${done} fact(s) with ${embedder.model}.\n`);
  } finally {
    await db.close();
  }
}
