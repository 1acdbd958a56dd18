import net from 'node:net';
import type { Config } from '@engram/config';
import { AuditLog, createDetective, createEmbedder, startDetectionWorker, RateLimiter, TokenCache, warmFactReading, type DetectionWorker } from '@engram/core';
import { migrate, type DbHandle } from '@engram/db';
import { openDatabase } from './database.ts';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import { ensureLocalWorkspace, resolveSecret, type LocalWorkspace } from './local-state.ts';
import { startMaintenance, type Maintenance } from './maintenance.ts';
import { watchEventLoop } from './event-loop.ts';

/** A listening Engram server. */
export interface RunningServer {
  app: FastifyInstance;
  db: DbHandle;
  /** Where clients reach it (ENGRAM_PUBLIC_URL, or derived from the bound address). */
  baseUrl: string;
  /** Embedded mode's default workspace and owner token. */
  local: LocalWorkspace | undefined;
  maintenance: Maintenance;
  /** The in-process detection worker, unless ENGRAM_IN_PROCESS_WORKER=false. */
  worker: DetectionWorker | undefined;
  /** Stops accepting requests, waits for in-flight ones, closes the database. */
  close(): Promise<void>;
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return 'localhost';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** The message for a port another process holds: what to change, not the socket error. */
function portInUse(port: number): Error {
  return new Error(`port ${port} is in use: set PORT to a free port (e.g. PORT=${port < 65535 ? port + 1 : 8080}) or stop the other process`);
}

/**
 * Fails with {@link portInUse} when `host:port` cannot be bound, before anything is created: a
 * first start would otherwise make the data directory, the database and a workspace, then fail.
 * The listen below still reports a port taken in between the same way.
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? portInUse(port) : error));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/**
 * Checks the port, opens the database, applies migrations, ensures embedded mode's default
 * workspace (its owner named `ownerName` when this start creates it), and listens.
 */
export async function startServer(config: Config, logger: Logger, options: { ownerName?: string } = {}): Promise<RunningServer> {
  await checkPortFree(config.host, config.port);
  const db = await openDatabase(config, logger);
  try {
    const migrations = await migrate(db.db);
    if (migrations.applied > 0) logger.info({ applied: migrations.applied }, 'migrations applied');
    const secret = resolveSecret(config);
    const local = config.database.kind === 'pglite' ? await ensureLocalWorkspace(db.db, secret, config.dataDir, options) : undefined;

    const embedder = createEmbedder(config);
    const audit = new AuditLog(db.db, logger);
    const limits = new RateLimiter(db.control, { log: logger });
    const app = await buildApp({ config, db, secret, embedder, tokens: new TokenCache(), audit, limits }, { logger });
    await app.listen({ port: config.port, host: config.host }).catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'EADDRINUSE' ? portInUse(config.port) : error;
    });
    // The language model loads now, in the turn after the server starts listening, rather than in
    // the first commit (or import) that needs it.
    setImmediate(() => {
      try {
        warmFactReading();
      } catch (error) {
        logger.warn({ err: error }, 'the language model could not be loaded at start; the first fact read will try again');
      }
    });
    const maintenance = startMaintenance({ db: db.background, embedder, log: logger });
    // Embedded: this process owns the data directory, so runs a crash left "running" are released at once.
    const worker = config.inProcessWorker
      ? startDetectionWorker(
          { db: db.background, log: logger, detective: createDetective(config) },
          { leaseMs: config.detectionLeaseMs, exclusive: db.kind === 'pglite' },
        )
      : undefined;
    const loop = watchEventLoop(logger);
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const baseUrl = config.publicUrl ?? `http://${displayHost(config.host)}:${port}`;

    return {
      app,
      db,
      baseUrl,
      local,
      maintenance,
      worker,
      close: async () => {
        try {
          loop.stop();
          await app.close();
          await worker?.stop();
          await maintenance.stop();
          await audit.close();
          await limits.close();
        } finally {
          await db.close();
        }
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
