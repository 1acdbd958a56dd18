/**
 * Tenant scoping, in one place, enforced twice. Code that works on a workspace's data receives a
 * {@link TenantDb}, never the raw database:
 *
 * - the database enforces it: every query made through a TenantDb runs in a transaction that has
 *   switched to the `engram_app` role (not the tables' owner, no BYPASSRLS) and set
 *   `engram.workspace_id` transaction-locally; row-level security on every workspace table
 *   (migration 0009) lets that role see and write only rows of that workspace. A query written
 *   without a workspace filter returns nothing of another workspace.
 * - the builders say it too: every select, update and delete made through it carries
 *   `workspace_id = <its workspace>` (so plans use the workspace indexes), and every insert is
 *   stamped with it.
 *
 * The cross-tenant operations (resolving a bearer token, provisioning a workspace, claiming
 * detection jobs, expiry sweeps, rate-limit counters, the audit writer) take the raw database, as
 * the tables' owner, and live in `system.ts`, `jobs.ts`, `rate-limits.ts`, `sessions.ts` and
 * `audit.ts`.
 */
import { and, eq, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { PgTransaction, type PgColumn, type PgTable, type PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { queryRows, type Database } from './database.ts';
import { confinerOf, isReservedHandle, lastStatement } from './postgres.ts';

/** The role tenant queries run as (created by migration 0009). */
export const TENANT_ROLE = 'engram_app';
/** The transaction-local setting row-level security reads. */
export const WORKSPACE_SETTING = 'engram.workspace_id';

let savepoints = 0;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A table that belongs to workspaces. */
export type TenantTable = PgTable & { workspaceId: PgColumn };

type InsertValues<T extends TenantTable> = Omit<T['$inferInsert'], 'workspaceId'>;

/** Database access confined to one workspace. */
export class TenantDb {
  readonly workspaceId: string;
  readonly #db: Database;
  /** Whether #db is a transaction that already runs as the tenant role for this workspace. */
  readonly #confined: boolean;
  /** Whether this handle is a savepoint inside a confined transaction (it cannot end it). */
  readonly #nested: boolean;

  constructor(db: Database, workspaceId: string, confined = false, nested = false) {
    if (!UUID.test(workspaceId)) throw new TypeError(`not a workspace id: ${JSON.stringify(workspaceId).slice(0, 60)}`);
    this.#db = db;
    this.workspaceId = workspaceId;
    this.#confined = confined;
    this.#nested = nested;
  }

  /** `table.workspace_id = this workspace`, and-ed with the given conditions. */
  where(table: TenantTable, ...conditions: (SQL | undefined)[]): SQL {
    return and(eq(table.workspaceId, this.workspaceId), ...conditions) as SQL;
  }

  /** `select * from table where <tenant> and <conditions>`; chain `orderBy`/`limit` as usual. */
  select<T extends TenantTable>(table: T, ...conditions: (SQL | undefined)[]): TenantSelect<T> {
    const from: PgTable = table; // drizzle's conditional `from` type does not resolve for a generic T
    return this.#deferred((db) => db.select().from(from).where(this.where(table, ...conditions))) as unknown as TenantSelect<T>;
  }

  /** Inserts rows stamped with this workspace; `.returning()` works as usual. */
  insert<T extends TenantTable>(table: T, values: InsertValues<T> | InsertValues<T>[]) {
    const rows = (Array.isArray(values) ? values : [values]).map((v) => ({ ...v, workspaceId: this.workspaceId }));
    return this.#deferred((db) => db.insert(table).values(rows as T['$inferInsert'][]));
  }

  /** Updates rows of this workspace matching the conditions (a value may be an SQL expression). */
  update<T extends TenantTable>(table: T, set: Omit<PgUpdateSetSource<T>, 'workspaceId'>, ...conditions: (SQL | undefined)[]) {
    return this.#deferred((db) =>
      db
        .update(table)
        .set(set as PgUpdateSetSource<T>)
        .where(this.where(table, ...conditions)),
    );
  }

  /** Deletes rows of this workspace matching the conditions. */
  delete<T extends TenantTable>(table: T, ...conditions: (SQL | undefined)[]) {
    return this.#deferred((db) => db.delete(table).where(this.where(table, ...conditions)));
  }

  /**
   * The rows of a query, as the driver returns them (keyed by the columns' SQL names), whether
   * hand-written or built (`qb.select(...)`, see values.ts); it should still name its workspace
   * (`this.where`), for the plan.
   */
  rows<T extends Record<string, unknown>>(query: SQLWrapper): Promise<T[]> {
    return this.run((db) => queryRows<T>(db, query.getSQL()));
  }

  /**
   * The rows of the last statement of the confined transaction this handle runs in: where the
   * driver can, it is sent with COMMIT in one round trip, and nothing can run on this handle
   * after it (use a fresh `forWorkspace` handle). Inside a savepoint, or on PGlite, it is an
   * ordinary statement; outside a transaction, one of its own.
   */
  lastRows<T extends Record<string, unknown>>(wrapped: SQLWrapper): Promise<T[]> {
    const query = wrapped.getSQL();
    if (!this.#confined) return this.#confinedTransaction((db) => lastStatement<T>(db, query));
    if (this.#nested) return queryRows<T>(this.#db, query);
    return lastStatement<T>(this.#db, query);
  }

  /**
   * The rows of a query that only reads (hand-written or built, as for `rows`), in a READ ONLY
   * transaction (a write in it fails, so a read path cannot change data by mistake); on
   * postgres.js in one round trip.
   */
  read<T extends Record<string, unknown>>(wrapped: SQLWrapper): Promise<T[]> {
    const query = wrapped.getSQL();
    if (this.#confined) return queryRows<T>(this.#db, query);
    const read = confinerOf(this.#db)?.read;
    if (read) return read<T>(this.#setup(), query);
    return this.#confinedTransaction((db) => queryRows<T>(db, query), { readOnly: true });
  }

  /** Runs a statement (hand-written or built) for its effect. */
  async execute(query: SQLWrapper): Promise<void> {
    await this.run((db) => db.execute(query.getSQL()));
  }

  /**
   * Runs `fn` with a database handle confined to this workspace by row-level security. For query
   * functions in this package that need a builder the methods above do not offer (joins).
   */
  run<R>(fn: (db: Database) => Promise<R>): Promise<R> {
    if (this.#confined) return fn(this.#db);
    return this.#confinedTransaction((tx) => fn(tx));
  }

  /** Runs `fn` in a transaction whose queries stay confined to this workspace. */
  async transaction<R>(fn: (tx: TenantDb) => Promise<R>): Promise<R> {
    if (!this.#confined) return this.#confinedTransaction((tx) => fn(new TenantDb(tx, this.workspaceId, true)));
    if (!isReservedHandle(this.#db)) return this.#db.transaction((tx) => fn(new TenantDb(tx as unknown as Database, this.workspaceId, true, true)));
    // Inside a pipelined transaction (a reserved connection, not a drizzle transaction): a savepoint by hand.
    const savepoint = sql.raw(`tenant_${++savepoints}`);
    await this.#db.execute(sql`savepoint ${savepoint}`);
    try {
      const result = await fn(new TenantDb(this.#db, this.workspaceId, true, true));
      await this.#db.execute(sql`release savepoint ${savepoint}`);
      return result;
    } catch (error) {
      await this.#db.execute(sql`rollback to savepoint ${savepoint}`);
      throw error;
    }
  }

  /** The statement that confines a transaction (the workspace id is a validated UUID). */
  #setup(): string {
    return `select set_config('role', '${TENANT_ROLE}', true), set_config('${WORKSPACE_SETTING}', '${this.workspaceId}', true)`;
  }

  /**
   * A transaction switched to the tenant role for this workspace. Opened inside a caller's own
   * transaction (a savepoint), the switch is undone when `fn` is done, so the caller's later
   * statements run as before.
   */
  #confinedTransaction<R>(fn: (tx: Database) => Promise<R>, options: { readOnly?: boolean } = {}): Promise<R> {
    const confiner = confinerOf(this.#db);
    if (confiner) return confiner(this.#setup(), fn, options);
    const nested = this.#db instanceof PgTransaction;
    return this.#db.transaction(async (tx) => {
      // Inside a caller's transaction (a savepoint) the access mode is the caller's to set.
      if (options.readOnly && !nested) await tx.execute(sql`set transaction read only`);
      await tx.execute(sql`select set_config('role', ${TENANT_ROLE}, true), set_config(${WORKSPACE_SETTING}, ${this.workspaceId}, true)`);
      const result = await fn(tx);
      if (nested) await tx.execute(sql`select set_config('role', 'none', true), set_config(${WORKSPACE_SETTING}, '', true)`);
      return result;
    });
  }

  /**
   * A drizzle builder that runs confined: built and awaited directly inside a confined
   * transaction, otherwise recorded (each chained call) and replayed in one when awaited.
   */
  #deferred<B>(build: (db: Database) => B): B {
    if (this.#confined) return build(this.#db);
    const calls: [PropertyKey, unknown[]][] = [];
    const execute = () =>
      this.run(async (db) => {
        let builder = build(db) as unknown as Record<PropertyKey, (...args: unknown[]) => unknown>;
        for (const [name, args] of calls) builder = builder[name]!(...args) as typeof builder;
        // Every drizzle builder is a thenable: awaiting it runs the query on `db`.
        return (builder as unknown as PromiseLike<unknown>).then((rows) => rows);
      });
    const proxy: unknown = new Proxy(
      {},
      {
        get(_target, property) {
          if (property === 'then') return (resolve: (v: unknown) => unknown, reject: (e: unknown) => unknown) => execute().then(resolve, reject);
          if (property === 'catch') return (reject: (e: unknown) => unknown) => execute().catch(reject);
          return (...args: unknown[]) => {
            calls.push([property, args]);
            return proxy;
          };
        },
      },
    );
    return proxy as B;
  }
}

/** The subset of a drizzle select builder left after the tenant `where`. */
export interface TenantSelect<T extends TenantTable> extends PromiseLike<T['$inferSelect'][]> {
  orderBy(...columns: (PgColumn | SQL)[]): TenantSelect<T>;
  limit(n: number): TenantSelect<T>;
  offset(n: number): TenantSelect<T>;
  for(strength: 'update' | 'share'): TenantSelect<T>;
}

/** Confines `db` to one workspace. */
export function forWorkspace(db: Database, workspaceId: string): TenantDb {
  return new TenantDb(db, workspaceId);
}
