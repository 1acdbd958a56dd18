import { configFor, type Config } from '@engram/config';
import { AuditLog, LocalEmbedder, RateLimiter, silentLogger, TokenCache } from '@engram/core';
import { buildApp, createLogger } from '@engram/server';
import type { DbHandle } from '@engram/db';
import type { FastifyInstance } from 'fastify';
import { Writable } from 'node:stream';

/** A log destination that keeps each line. */
function collect(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
}
import { afterAll, beforeAll } from 'vitest';
import { databaseSuite } from './databases.ts';

/** A secret for tests (never used outside them). */
export const TEST_SECRET = 'test-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789-abcdefghijklmnop';

/** Test configuration: silent logs, the test secret and admin token, and the given overrides. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return configFor({
    logLevel: 'silent',
    secret: TEST_SECRET,
    adminToken: TEST_ADMIN_TOKEN,
    port: 0,
    // Test files share one Postgres database and one client address: keep anonymous limits out
    // of the way unless a test sets its own.
    anonymousLimits: { requestsPerMinute: 100_000, signupsPerHour: 100_000 },
    // Tests that look at queued detection jobs must see them pending; detection tests opt in.
    inProcessWorker: false,
    ...overrides,
  });
}

/** Builds the app over an open database, for `inject()` tests; `logLines` collects its log (as JSON lines). */
export async function testApp(db: DbHandle, overrides: Partial<Config> = {}, logLines?: string[]): Promise<FastifyInstance> {
  const config = testConfig(overrides);
  const audit = new AuditLog(db.db, silentLogger, { flushMs: 50 });
  const limits = new RateLimiter(db.db, { syncMs: 50 });
  const app = await buildApp(
    { config, db, secret: config.secret ?? TEST_SECRET, embedder: new LocalEmbedder(), tokens: new TokenCache(), audit, limits },
    { logger: logLines ? createLogger(config, collect(logLines)) : createLogger(config) },
  );
  app.addHook('onClose', async () => {
    await audit.close();
    await limits.close();
  });
  limiters.set(app, limits);
  return app;
}

const limiters = new WeakMap<FastifyInstance, RateLimiter>();

/** The rate limiter of an app built by {@link testApp}: `flush()` it to sync what it admitted now. */
export function limiterOf(app: FastifyInstance): RateLimiter {
  const limiter = limiters.get(app);
  if (!limiter) throw new Error('this app was not built by testApp');
  return limiter;
}

/** What the tests of a describe block share: a database and the app over it. */
export interface AppSuite<H extends DbHandle = DbHandle> {
  readonly handle: H;
  readonly app: FastifyInstance;
}

/**
 * For a describe block: opens `engine`'s database and builds the app over it before the block's
 * tests, and closes both after them. `handle` and `app` are there from the first test (or
 * `beforeAll` registered after this call) on.
 */
export function appSuite<H extends DbHandle>(engine: { open(): Promise<H> }, overrides: Partial<Config> = {}): AppSuite<H> {
  const database = databaseSuite(engine);
  let app: FastifyInstance | undefined;
  beforeAll(async () => {
    app = await testApp(database.handle, overrides);
  });
  // Registered after the database's: vitest runs afterAll hooks last-registered first.
  afterAll(async () => {
    await app?.close();
  });
  return {
    get handle() {
      return database.handle;
    },
    get app() {
      if (app === undefined) throw new Error('the suite builds its app in beforeAll: read it inside a test or a later hook');
      return app;
    },
  };
}
