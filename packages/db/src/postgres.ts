/**
 * The Postgres engine through postgres.js: three pools (requests, control, background), prepared
 * statements, and the pipelined confiner that runs a tenant's transaction in fewer round trips.
 */
import type { DatabaseLimits } from '@engram/config';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { queryRows, type Database, type DbHandle } from './database.ts';
import { databaseFault, droppedConnection, type DatabaseHealth } from './faults.ts';
import * as schema from './schema.ts';

/**
 * Statements are prepared, and after five runs on a connection Postgres may switch a statement to
 * one generic plan for every parameter value, so for every workspace. Workspaces differ in size by
 * orders of magnitude: a generic plan made for none of them was many times slower than one made
 * for the workspace at hand. So reads (the hybrid query, searches, listings) and detection are
 * planned on every run; writes keep Postgres' choice, as planning the commit's statements each time
 * costs CPU on every commit (docs/performance/2026-12-02-constants.md).
 */
const PLAN_EACH_RUN = 'force_custom_plan';
/** How a read-only request transaction begins. */
const BEGIN_READ = `begin read only; set local plan_cache_mode = ${PLAN_EACH_RUN}`;

/**
 * Three pools, so one kind of work cannot take every connection: requests (`limits.poolSize`),
 * control (3: auth, rate limits, status, health) and background (2: detection, maintenance). Each connection
 * carries its class's statement and lock timeouts; read-only request transactions lower the
 * statement timeout to the read timeout (see the confiner).
 */
export function openPostgres(url: string, limits: DatabaseLimits, maxConnections: number | undefined, health: DatabaseHealth): DbHandle {
  const pool = (max: number, statementTimeoutMs: number, lockTimeoutMs: number, name: string, planEachRun = false) =>
    postgres(url, {
      max,
      connect_timeout: limits.connectTimeoutSeconds,
      onnotice: () => {},
      connection: {
        application_name: name,
        // Filtered vector searches (one workspace, one scope) keep scanning the HNSW index until
        // they have enough rows, instead of returning too few (pgvector >= 0.8).
        'hnsw.iterative_scan': 'relaxed_order',
        // Engram's queries are short; starting parallel workers costs more (~8 ms) than it saves.
        max_parallel_workers_per_gather: '0',
        ...(planEachRun ? { plan_cache_mode: PLAN_EACH_RUN } : {}),
        statement_timeout: statementTimeoutMs,
        lock_timeout: lockTimeoutMs,
      },
    });
  const requests = pool(maxConnections ?? limits.poolSize, limits.writeTimeoutMs, limits.lockTimeoutMs, 'engram');
  const control = pool(3, Math.min(limits.readTimeoutMs, 2_000), Math.min(limits.lockTimeoutMs, 500), 'engram-control');
  // Detection reads whole stories of one workspace: planned for it on every run.
  const background = pool(2, limits.detectionTimeoutMs, Math.max(limits.lockTimeoutMs, 10_000), 'engram-background', true);
  const drizzleOf = (client: postgres.Sql, readTimeoutMs: number) => {
    const db = drizzlePostgres({ client: preparedByDefault(client), schema }) as unknown as Database;
    confiners.set(db, pipelinedConfiner(client, readTimeoutMs));
    return db;
  };
  const controlDb = drizzleOf(control, Math.min(limits.readTimeoutMs, 2_000));
  return {
    db: drizzleOf(requests, limits.readTimeoutMs),
    control: controlDb,
    background: drizzleOf(background, limits.detectionTimeoutMs),
    kind: 'postgres',
    health,
    writeProblem: async () => {
      const [row] = await queryRows<{ standby: boolean }>(controlDb, sql`select pg_is_in_recovery() as standby`);
      return row?.standby ? 'the database is a read-only standby (in recovery); point DATABASE_URL at the primary' : undefined;
    },
    close: async () => {
      await Promise.all([requests, control, background].map((client) => client.end({ timeout: 5 })));
    },
  };
}

/**
 * Runs `fn` in a transaction that `setup` (one or more statements of plain SQL, no parameters)
 * prepares, on a driver that can do it in fewer round trips than drizzle's BEGIN, setup, query,
 * COMMIT. The tenant layer uses it to switch to its role (see tenant.ts).
 */
export interface Confiner {
  <R>(setup: string, fn: (db: Database) => Promise<R>, options?: { readOnly?: boolean }): Promise<R>;
  /**
   * One read-only statement in a transaction `setup` prepares, in one round trip where the driver
   * can: BEGIN and the setup, the statement, and COMMIT sent together.
   */
  read?: <T extends Record<string, unknown>>(setup: string, query: SQL) => Promise<T[]>;
}

const confiners = new WeakMap<object, Confiner>();

/** The confiner of a database opened by createDb, if its driver has one. */
export const confinerOf = (db: Database): Confiner | undefined => confiners.get(db);

/**
 * Handles over a reserved connection inside a confined transaction (savepoints by hand), each with
 * the way to end its transaction with a last statement.
 */
const reservedHandles = new WeakMap<object, (query: SQL) => Promise<Record<string, unknown>[]>>();
export const isReservedHandle = (db: Database) => reservedHandles.has(db);

/**
 * Runs the last statement of the transaction `db` belongs to. In a pipelined transaction the
 * statement and COMMIT go in one round trip, and the handle runs nothing after it (it throws);
 * elsewhere (PGlite, a drizzle transaction) it is an ordinary statement and the transaction
 * commits when its function returns.
 */
export async function lastStatement<T extends Record<string, unknown>>(db: Database, query: SQL): Promise<T[]> {
  const finish = reservedHandles.get(db);
  return finish ? ((await finish(query)) as T[]) : queryRows<T>(db, query);
}

const ENDED = 'This transaction has already committed; nothing more can run in it.';

/**
 * postgres.js: BEGIN and the setup go as one simple-protocol message, sent at once, so the first
 * statement of `fn` is pipelined behind it on the same reserved connection; then COMMIT. Two round
 * trips for a one-statement transaction instead of four. (Sending COMMIT without waiting for a
 * drizzle builder's result is not safe: postgres.js may send it first, and the statement would
 * then run outside the transaction, as the owner. lastStatement hands both over itself.)
 */
function pipelinedConfiner(client: postgres.Sql, readTimeoutMs: number): Confiner {
  // Drizzle reads (and sets) the driver's type parsers on `options`, which live on the pool. Once
  // the transaction has ended (see lastStatement) the handle refuses to send anything more: a
  // statement after COMMIT would run outside the transaction, as the tables' owner.
  const drizzleOver = (reserved: postgres.ReservedSql, state: { ended: boolean }) =>
    drizzlePostgres({
      client: preparedByDefault(
        new Proxy(reserved, {
          get: (target, property) => {
            if (property === 'options') return client.options;
            if (property === 'unsafe' && state.ended) return () => Promise.reject(new Error(ENDED));
            return Reflect.get(target, property) as unknown;
          },
        }) as unknown as postgres.Sql,
      ),
    }) as unknown as Database;
  const attempt = async <R>(setup: string, fn: (db: Database) => Promise<R>, options: { readOnly?: boolean }, stage: { committing: boolean }): Promise<R> => {
    const reserved = await client.reserve();
    let prefix: Promise<unknown> | undefined;
    const state = { ended: false };
    try {
      const begin = options.readOnly ? `${BEGIN_READ}; set local statement_timeout = ${readTimeoutMs}` : 'begin';
      const sentPrefix = reserved.unsafe(`${begin}; ${setup}`).execute();
      prefix = sentPrefix;
      const db = drizzleOver(reserved, state);
      reservedHandles.set(db, (query) => {
        if (state.ended) return Promise.reject(new Error(ENDED));
        // From here on the transaction may commit: it is never run again.
        state.ended = true;
        stage.committing = true;
        const { sql: text, params } = dialect.sqlToQuery(query);
        return endWith(reserved, sentPrefix, text, params);
      });
      const result = await fn(db);
      await prefix;
      if (!state.ended) {
        stage.committing = true;
        await reserved.unsafe('commit');
      }
      return result;
    } catch (error) {
      // Whatever failed, the connection goes back to the pool outside any transaction, as its owner.
      await prefix?.catch(() => {});
      // A lost connection has no transaction left to roll back, and postgres.js must not be asked
      // to write to it (it would throw from a timer, outside any promise). An ended transaction's
      // COMMIT has been sent: it committed, or (after a failed statement) rolled back.
      if (!state.ended && databaseFault(error)?.kind !== 'unavailable') await reserved.unsafe('rollback').catch(() => {});
      throw error;
    } finally {
      reserved.release();
    }
  };
  /**
   * A pooled connection the server dropped (a restart, a failover, a proxy) is only noticed when
   * used. A transaction that lost its connection before COMMIT was sent was rolled back by the
   * server, so it is run once more on a fresh connection: the first request after the database
   * returns succeeds. One whose COMMIT was sent is never repeated (it may have committed).
   */
  const confiner: Confiner = async <R>(setup: string, fn: (db: Database) => Promise<R>, options: { readOnly?: boolean } = {}): Promise<R> => {
    const stage = { committing: false };
    try {
      return await attempt(setup, fn, options, stage);
    } catch (error) {
      if (stage.committing || !droppedConnection(error)) throw error;
      return attempt(setup, fn, options, { committing: false });
    }
  };
  /**
   * A single read: BEGIN with the setup, the statement and COMMIT are handed to postgres.js in one
   * synchronous run (see endWith). A read changes nothing, so one that lost its connection is
   * simply run again.
   */
  const readOnce = async <T extends Record<string, unknown>>(setup: string, text: string, params: unknown[]): Promise<T[]> => {
    const reserved = await client.reserve();
    try {
      const prefix = reserved.unsafe(`${BEGIN_READ}; set local statement_timeout = ${readTimeoutMs}; ${setup}`).execute();
      return (await endWith(reserved, prefix, text, params)) as T[];
    } finally {
      reserved.release();
    }
  };
  confiner.read = async <T extends Record<string, unknown>>(setup: string, query: SQL): Promise<T[]> => {
    const { sql: text, params } = dialect.sqlToQuery(query);
    try {
      return await readOnce<T>(setup, text, params);
    } catch (error) {
      if (!droppedConnection(error)) throw error;
      return readOnce<T>(setup, text, params);
    }
  };
  return confiner;
}

/**
 * Sends a transaction's last statement and COMMIT in one synchronous run, behind `prefix` (its
 * BEGIN and setup, already handed over). A reserved connection sends its queries in the order
 * they were handed over, so the statement cannot run outside the transaction (unlike a drizzle
 * builder, which goes through promises of its own before it sends). If the prefix or the
 * statement fails, COMMIT of the aborted transaction rolls it back.
 */
async function endWith(reserved: postgres.ReservedSql, prefix: Promise<unknown>, text: string, params: unknown[]): Promise<Record<string, unknown>[]> {
  const statement = reserved.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true }).execute();
  const commit = reserved.unsafe('commit').execute().then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
  );
  const [before, result] = await Promise.allSettled([prefix, statement]);
  const failure = before.status === 'rejected' ? before : result.status === 'rejected' ? result : undefined;
  // On a lost connection COMMIT may never be sent (postgres.js holds it behind a statement it
  // was still describing), so it is not waited for; on a live one it ends the transaction.
  if (failure && (droppedConnection(failure.reason) || databaseFault(failure.reason)?.kind === 'unavailable')) throw failure.reason;
  const committed = await commit;
  if (failure) throw failure.reason;
  if (committed) throw committed;
  return (result as PromiseFulfilledResult<unknown>).value as Record<string, unknown>[];
}

/** Renders drizzle's SQL to text and parameters, as drizzle's own session does before sending. */
const dialect = new PgDialect();

/**
 * Drizzle sends every query through `sql.unsafe(text, params, { prepare: false })`, which costs
 * postgres.js an extra round trip (describe, then execute) per query. Drizzle's query text is
 * stable per query shape, so preparing it is safe and saves that round trip, about half of a short
 * query's latency (docs/performance/2026-12-02-constants.md). Transactions and savepoints hand
 * drizzle a new sql tag, which gets the same treatment.
 */
function preparedByDefault(client: postgres.Sql): postgres.Sql {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (text: string, params?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions) =>
          target.unsafe(text, params, { ...options, prepare: true });
      }
      if (property === 'begin' || property === 'savepoint') {
        const original = Reflect.get(target, property, receiver) as (...args: unknown[]) => unknown;
        return (...args: unknown[]) => {
          const fn = args.pop() as (tx: postgres.Sql) => unknown;
          return original.call(target, ...args, (tx: postgres.Sql) => fn(preparedByDefault(tx)));
        };
      }
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}
