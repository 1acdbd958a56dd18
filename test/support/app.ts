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
  return app;
}
