/**
 * Idempotency keys (engram_commit's `idempotency_key`, an import's `Idempotency-Key` header): what
 * a key was first used for, so a retry gets the original answer. A commit's key is written by the
 * statement that stores its fact (insertFacts), never apart from it; an import's answer is written
 * once the import has answered.
 */
import { eq, lt } from 'drizzle-orm';
import type { Database } from './database.ts';
import { idempotencyKeys } from './schema.ts';
import type { TenantDb } from './tenant.ts';
import { columnsNamed, qb } from './values.ts';

/** A key's first use. */
export interface IdempotencyRecord {
  operation: 'commit' | 'import';
  requestHash: string;
  /** The fact a commit stored. */
  factId: string | null;
  /** An import's answer. */
  response: Record<string, unknown> | null;
  createdAt: Date;
}

/** The first use of `key` in this workspace, or null. */
export async function findIdempotencyKey(tenant: TenantDb, key: string): Promise<IdempotencyRecord | null> {
  const [row] = await tenant.read<{ operation: IdempotencyRecord['operation']; request_hash: string; fact_id: string | null; response: Record<string, unknown> | null; created_at: Date }>(
    qb
      .select(columnsNamed(idempotencyKeys, ['operation', 'request_hash', 'fact_id', 'response', 'created_at']))
      .from(idempotencyKeys)
      .where(tenant.where(idempotencyKeys, eq(idempotencyKeys.key, key))),
  );
  return row ? { operation: row.operation, requestHash: row.request_hash, factId: row.fact_id, response: row.response, createdAt: new Date(row.created_at) } : null;
}

/** Records an import's answer under its key (a key already recorded keeps its first answer). */
export async function recordIdempotentResponse(
  tenant: TenantDb,
  record: { key: string; operation: IdempotencyRecord['operation']; requestHash: string; response: Record<string, unknown> },
): Promise<void> {
  await tenant
    .insert(idempotencyKeys, { key: record.key, operation: record.operation, requestHash: record.requestHash, response: record.response })
    .onConflictDoNothing({ target: [idempotencyKeys.workspaceId, idempotencyKeys.key] });
}

/** How long a key is remembered: far longer than any client retries, short enough to stay small. */
export const IDEMPOTENCY_KEY_DAYS = 7;

/** Forgets keys older than IDEMPOTENCY_KEY_DAYS (maintenance); returns how many. */
export async function purgeIdempotencyKeys(db: Database, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - IDEMPOTENCY_KEY_DAYS * 86_400_000);
  const rows = await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before)).returning({ key: idempotencyKeys.key });
  return rows.length;
}
