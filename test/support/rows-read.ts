import type { TenantDb } from '@engram/db';
import { sql } from 'drizzle-orm';

/** Rows of `table` this transaction has read so far (scanned, or fetched through an index), as the database counts them. */
async function rowsRead(tx: TenantDb, table: string): Promise<number> {
  const [row] = await tx.rows<{ n: number }>(
    sql`select (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::int as n from pg_stat_xact_user_tables where relname = ${table}`,
  );
  return Number(row?.n ?? 0);
}

/** Runs `work` in a transaction of the workspace: its result, and how many rows of `table` it read. */
export function readingRows<T>(tenant: TenantDb, table: string, work: (tx: TenantDb) => Promise<T>): Promise<{ result: T; read: number }> {
  return tenant.transaction(async (tx) => {
    const before = await rowsRead(tx, table);
    const result = await work(tx);
    return { result, read: (await rowsRead(tx, table)) - before };
  });
}
