import type { Config } from '@engram/config';
import type { AuditLog, Embedder, FactServices, Logger, RateLimiter, TokenCache } from '@engram/core';
import type { DbHandle } from '@engram/db';

/** What the app needs to serve requests; built once at start (or per test). */
export interface AppContext {
  config: Config;
  db: DbHandle;
  /** Server secret that seals invite keys (ENGRAM_SECRET, or the embedded mode's generated one). */
  secret: string;
  /** Computes fact and query vectors (local, or OpenAI when configured). */
  embedder: Embedder;
  /** Recently resolved bearer tokens (a few seconds), shared by every route of this process. */
  tokens: TokenCache;
  /** Where tool calls and API writes are recorded. */
  audit: AuditLog;
  /** Shared rate limits. */
  limits: RateLimiter;
}

/** The fact services for one request, logging through the request's logger. */
export function factServicesOf(ctx: AppContext, log: Logger): FactServices {
  return { db: ctx.db.db, embedder: ctx.embedder, secret: ctx.secret, log, limits: ctx.limits };
}
