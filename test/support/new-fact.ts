import { contentHash, embedLocally, entitySignature, EXTRACTOR_VERSION, readFact, LOCAL_EMBEDDING_MODEL, matchKeysOf, uuidv7 } from '@engram/core';
import type { NewFact } from '@engram/db';

/**
 * A fact row as a commit stores it (entities, signature, match keys, a local embedding), for tests
 * that call insertFact directly. `embeddingOf` embeds another text, to place the fact near it.
 */
export function newFact(
  content: string,
  options: { scope: string; agentId?: string; embeddingOf?: string; durability?: 'durable' | 'ephemeral' },
): NewFact {
  const id = uuidv7();
  const entities = readFact(content);
  return {
    id,
    lineageId: id,
    content,
    contentHash: contentHash(content),
    scope: options.scope,
    confidence: 0.9,
    factType: 'observation',
    agentId: options.agentId ?? 'agent-a',
    memberId: null,
    provenance: null,
    entities,
    entitySignature: entitySignature(entities),
    matchKeys: matchKeysOf(entities, options.scope),
    extractorVersion: EXTRACTOR_VERSION,
    keywords: [],
    embedding: embedLocally(options.embeddingOf ?? content),
    embeddingModel: LOCAL_EMBEDDING_MODEL,
    committedAt: new Date(),
    ttlDays: null,
    expiresAt: null,
    memoryOp: 'add',
    supersedesFactId: null,
    durability: options.durability ?? 'durable',
    source: 'commit',
  };
}
