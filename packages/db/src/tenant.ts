/**
 * Tenant scoping, in one place. Code that works on a workspace's data receives a {@link TenantDb},
 * never the raw database: every select, update and delete made through it carries
 * `workspace_id = <its workspace>`, and every insert is stamped with it. Drizzle builders allow one
 * `where` per query, so a query started here cannot have its tenant predicate replaced.
 *
 * The few cross-tenant operations (resolving a bearer token, provisioning a workspace) live in
 * `system.ts` and say so in their names.
 */
import { and, eq, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Database } from './client.ts';

/** A table that belongs to workspaces. */
export type TenantTable = PgTable & { workspaceId: PgColumn };

type InsertValues<T extends TenantTable> = Omit<T['$inferInsert'], 'workspaceId'>;

/** Database access confined to one workspace. */
export class TenantDb {
  readonly db: Database;
  readonly workspaceId: string;

  constructor(db: Database, workspaceId: string) {
    this.db = db;
    this.workspaceId = workspaceId;
  }

  /** `table.workspace_id = this workspace`, and-ed with the given conditions. */
  where(table: TenantTable, ...conditions: (SQL | undefined)[]): SQL {
    return and(eq(table.workspaceId, this.workspaceId), ...conditions) as SQL;
  }

  /** `select * from table where <tenant> and <conditions>`; chain `orderBy`/`limit` as usual. */
  select<T extends TenantTable>(table: T, ...conditions: (SQL | undefined)[]) {
    const from: PgTable = table; // drizzle's conditional `from` type does not resolve for a generic T
    return this.db
      .select()
      .from(from)
      .where(this.where(table, ...conditions)) as unknown as TenantSelect<T>;
  }

  /** Inserts rows stamped with this workspace; `.returning()` works as usual. */
  insert<T extends TenantTable>(table: T, values: InsertValues<T> | InsertValues<T>[]) {
    const rows = (Array.isArray(values) ? values : [values]).map((v) => ({
      ...v,
      workspaceId: this.workspaceId,
    }));
    return this.db.insert(table).values(rows as T['$inferInsert'][]);
  }

  /** Updates rows of this workspace matching the conditions. */
  update<T extends TenantTable>(table: T, set: Partial<InsertValues<T>>, ...conditions: (SQL | undefined)[]) {
    return this.db
      .update(table)
      .set(set as T['$inferInsert'])
      .where(this.where(table, ...conditions));
  }

  /** Deletes rows of this workspace matching the conditions. */
  delete<T extends TenantTable>(table: T, ...conditions: (SQL | undefined)[]) {
    return this.db.delete(table).where(this.where(table, ...conditions));
  }

  /** Runs `fn` in a transaction whose queries stay confined to this workspace. */
  transaction<R>(fn: (tx: TenantDb) => Promise<R>): Promise<R> {
    return this.db.transaction((tx) => fn(new TenantDb(tx as unknown as Database, this.workspaceId)));
  }
}

/** The subset of a drizzle select builder left after the tenant `where`. */
export interface TenantSelect<T extends TenantTable> extends PromiseLike<T['$inferSelect'][]> {
  orderBy(...columns: (PgColumn | SQL)[]): TenantSelect<T>;
  limit(n: number): TenantSelect<T>;
  offset(n: number): TenantSelect<T>;
}

/** Confines `db` to one workspace. */
export function forWorkspace(db: Database, workspaceId: string): TenantDb {
  return new TenantDb(db, workspaceId);
}
