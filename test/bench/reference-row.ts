/**
 * The fact row the direct references insert (commit-query.ts, layers.ts, the concurrency floor):
 * the row engram_commit would store for the same text, its values (entities, match keys, embedding,
 * hash) computed before a reference's timer starts. They are the service's work, not the
 * database's, so a reference that computed them while timed would count them on both sides.
 */
import { contentHash, embedLocally, EXTRACTOR_VERSION, readFact, LOCAL_EMBEDDING_MODEL, matchKeysOf, uuidv7 } from '@engram/core';
import { hybridCandidates, textArrayLiteral, vectorLiteral, type Candidate, type TenantDb } from '@engram/db';
import { sql, type SQL } from 'drizzle-orm';
import type postgres from 'postgres';
import { QUERY_TOPICS } from './story.ts';

export function referenceRow(content: string, scope: string) {
  const entities = readFact(content);
  return {
    id: uuidv7(),
    content,
    scope,
    hash: contentHash(content),
    entities: JSON.stringify(entities),
    keys: textArrayLiteral(matchKeysOf(entities, scope)),
    embedding: vectorLiteral(embedLocally(content)),
  };
}

export type ReferenceRow = ReturnType<typeof referenceRow>;

/** Inserts a reference row into `facts` with postgres.js: prepared, one row per statement. */
export async function insertReferenceRow(client: postgres.Sql, workspaceId: string, row: ReferenceRow): Promise<void> {
  await client`insert into facts (id, workspace_id, lineage_id, content, content_hash, scope, confidence, agent_id, entities, match_keys,
      extractor_version, embedding, embedding_model)
    values (${row.id}, ${workspaceId}, ${row.id}, ${row.content}, ${row.hash}, ${row.scope}, 0.9, 'reference',
            ${row.entities}::text::jsonb, ${row.keys}::text[], ${EXTRACTOR_VERSION},
            ${row.embedding}::halfvec, ${LOCAL_EMBEDDING_MODEL})`;
}

/** The same insert as a statement for a database handle (the embedded database), into `table` (`facts` or a copy of it). */
export function referenceInsert(table: SQL, workspaceId: string, row: ReferenceRow, agentId: string): SQL {
  return sql`insert into ${table} (id, workspace_id, lineage_id, content, content_hash, scope, confidence, agent_id,
      entities, match_keys, extractor_version, embedding, embedding_model)
    values (${row.id}, ${workspaceId}, ${row.id}, ${row.content}, ${row.hash}, ${row.scope}, 0.9, ${agentId},
      ${row.entities}::jsonb, ${row.keys}::text[], ${EXTRACTOR_VERSION},
      ${row.embedding}::halfvec, ${LOCAL_EMBEDDING_MODEL})`;
}

/** engram_query's depth for limit 10: max(30, limit × 3). */
const QUERY_DEPTH = 30;
const TOPIC_EMBEDDINGS = QUERY_TOPICS.map((topic) => embedLocally(topic));

/**
 * The query's reference: the service's own hybrid SQL (`hybridCandidates`) for the `n`-th bench
 * topic (modulo their number), on the tenant's workspace as the service runs it, at engram_query's
 * depth for limit 10, with the topic's embedding made beforehand.
 */
export function referenceQuery(tenant: TenantDb, n: number): Promise<Candidate[]> {
  const t = n % QUERY_TOPICS.length;
  return hybridCandidates(tenant, {
    embedding: TOPIC_EMBEDDINGS[t]!,
    model: LOCAL_EMBEDDING_MODEL,
    topic: QUERY_TOPICS[t]!,
    includeEphemeral: false,
    window: { kind: 'current' },
    depth: QUERY_DEPTH,
  });
}
