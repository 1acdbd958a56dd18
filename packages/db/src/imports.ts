/**
 * What an import (SPEC §8) reads before it stores anything: which of its facts the workspace has
 * already, by content at an instant, in one statement for the whole request.
 */
import { sql } from 'drizzle-orm';
import type { TenantDb } from './tenant.ts';

/**
 * For each (content hash, committed_at) pair, a fact of this workspace with that content committed
 * at that instant, in any scope, current or not (import idempotency): its id by the pair's
 * position in `keys`. Pairs with none are absent.
 */
export async function findImportedAt(
  tenant: TenantDb,
  keys: readonly { contentHash: string; committedAt: Date }[],
): Promise<Map<number, string>> {
  if (keys.length === 0) return new Map();
  const pairs = JSON.stringify(keys.map((k, n) => ({ n, h: k.contentHash, at: k.committedAt.toISOString() })));
  const found = await tenant.read<{ n: number; id: string }>(
    sql`select distinct on (k.n) k.n, f.id
        from jsonb_to_recordset(${pairs}::jsonb) as k(n int, h text, at timestamptz)
        join facts f on f.workspace_id = ${tenant.workspaceId} and f.content_hash = k.h and f.committed_at = k.at
        order by k.n, f.id`,
  );
  return new Map(found.map((r) => [Number(r.n), r.id]));
}
