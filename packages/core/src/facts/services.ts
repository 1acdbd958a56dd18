/**
 * What the fact operations (commit, import, query, verify, promote, resolve) take from the running
 * service, and the embedding call they share. Its own file so that no operation imports another
 * for it: the query path needs the embedder, not the commit pipeline.
 */
import type { Database } from '@engram/db';
import type { Embedder } from '../embeddings/embedder.ts';
import type { Logger } from '../logger.ts';
import type { RateLimiter } from '../rate-limits.ts';

/** What the fact operations need from the running service. */
export interface FactServices {
  db: Database;
  embedder: Embedder;
  /** Server secret (pseudonymous agent ids under `anon_agents`). */
  secret: string;
  log: Logger;
  /** Shared rate limits (commits per agent per hour); none in tools that bypass the server. */
  limits?: RateLimiter;
}

/** Embeds texts; on failure the facts are still stored (without a vector) and re-embedded later. */
export async function embedOrNull(services: FactServices, texts: string[]): Promise<(number[] | null)[]> {
  try {
    return await services.embedder.embed(texts);
  } catch (error) {
    services.log.warn({ err: error, model: services.embedder.model }, 'embedding failed; storing facts without vectors');
    return texts.map(() => null);
  }
}
