/**
 * The audit log (SPEC §3): every tool call and API write — who, which workspace, which tool or
 * route, an argument summary (shapes and sizes, never secrets or content), outcome and duration.
 *
 * Entries are buffered briefly and written in batches so auditing adds no database round trip to
 * a request; the buffer is flushed at least every `flushMs`, before an owner reads the log, and on
 * shutdown.
 */
import { forWorkspace, healthOf, insertAuditEntries, listAuditRows, type Database } from '@engram/db';
import { assertOwner } from './access.ts';
import type { MemberPrincipal, Principal } from './auth.ts';
import type { Logger } from './logger.ts';

export interface AuditEntry {
  workspaceId: string | null;
  memberId: string | null;
  tokenId: string | null;
  actor: 'member' | 'operator' | 'invite' | 'anonymous' | 'system';
  action: string;
  summary: Record<string, unknown>;
  outcome: 'ok' | 'error' | 'denied';
  errorCode: string | null;
  durationMs: number;
  at?: Date;
}

/** The identity columns of an audit entry for a principal. */
export function auditIdentity(principal: Principal | null): Pick<AuditEntry, 'workspaceId' | 'memberId' | 'tokenId' | 'actor'> {
  if (!principal) return { workspaceId: null, memberId: null, tokenId: null, actor: 'anonymous' };
  switch (principal.kind) {
    case 'member':
      return { workspaceId: principal.workspaceId, memberId: principal.memberId, tokenId: principal.tokenId, actor: 'member' };
    case 'invite':
      return { workspaceId: principal.workspaceId, memberId: null, tokenId: null, actor: 'invite' };
    case 'anonymous':
      return { workspaceId: null, memberId: null, tokenId: null, actor: 'anonymous' };
  }
}

// Fields whose values are identifiers or choices, safe to record as they are. Anything else is
// recorded by shape only: a string's length, an array's size.
const VERBATIM = new Set([
  'scope', 'scope_prefix', 'operation', 'fact_type', 'durability', 'limit', 'include_ephemeral', 'include_history',
  'as_of', 'after', 'corrects_lineage', 'fact_id', 'conflict_id', 'winning_claim_id', 'resolution_type', 'kind',
  'status', 'role', 'max_uses', 'expires_in_days', 'member_id', 'token_id', 'invite_id', 'permission_id',
  'anonymous_mode', 'anon_agents', 'can_read', 'can_write', 'valid_from', 'valid_until', 'confidence', 'ttl_days',
  'agent_id', 'rotate', 'commit', 'replaced_by',
]);

/**
 * Text Postgres cannot store in `jsonb` (NUL) or that is not text at all (a lone surrogate),
 * replaced: an audited field must never make the entry unwritable.
 */
const storable = (text: string) => text.replaceAll('\u0000', '\ufffd').replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/** A summary of call arguments that never contains content, keys or other free text. */
export function summarizeArguments(args: unknown, depth = 0): unknown {
  if (args === null || args === undefined) return args;
  if (typeof args === 'string') return { length: args.length };
  if (typeof args === 'number' || typeof args === 'boolean') return args;
  if (Array.isArray(args)) return { items: args.length };
  if (typeof args === 'object' && depth < 2) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
      const short = typeof value !== 'string' || value.length <= 200;
      out[storable(key)] =
        VERBATIM.has(key) && short && (typeof value !== 'object' || value === null)
          ? typeof value === 'string'
            ? storable(value)
            : value
          : summarizeArguments(value, depth + 1);
    }
    return out;
  }
  return { type: typeof args };
}

/** Most entries held while the database cannot take them; beyond it the oldest are dropped (and counted). */
export const MAX_AUDIT_BUFFER = 10_000;

/** A Postgres data exception (class 22: bad text, bad number): the entry itself is at fault, not the database. */
const isBadEntry = (error: unknown) => {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  const sqlState = code ?? cause?.code;
  return typeof sqlState === 'string' && sqlState.startsWith('22');
};

/**
 * Buffered, batched audit writer. A batch the database rejects is written entry by entry, so one
 * bad entry never holds back the others: an entry rejected for what it holds is dropped and
 * counted; when the database itself is unavailable, entries wait (at most MAX_AUDIT_BUFFER, the
 * oldest dropped and counted beyond that) and every drop is logged as an error.
 */
export class AuditLog {
  private buffer: AuditEntry[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private readonly db: Database;
  private readonly log: Logger;
  private readonly options: { flushMs?: number; maxBatch?: number; maxBuffer?: number };
  /** Entries dropped: rejected by the database for their content, or pushed out of a full buffer. */
  readonly dropped = { rejected: 0, overflow: 0 };

  constructor(db: Database, log: Logger, options: { flushMs?: number; maxBatch?: number; maxBuffer?: number } = {}) {
    this.db = db;
    this.log = log;
    this.options = options;
    this.timer = setInterval(() => void this.flush(), options.flushMs ?? 250);
    this.timer.unref();
  }

  record(entry: AuditEntry): void {
    this.buffer.push({ ...entry, action: storable(entry.action), at: entry.at ?? new Date() });
    const max = this.options.maxBuffer ?? MAX_AUDIT_BUFFER;
    if (this.buffer.length > max) {
      const over = this.buffer.length - max;
      this.buffer.splice(0, over);
      this.dropped.overflow += over;
      this.log.error({ dropped: over, total_dropped: this.dropped.overflow }, 'audit log buffer full: oldest entries dropped (the database is not taking writes)');
    }
    if (this.buffer.length >= (this.options.maxBatch ?? 200)) void this.flush();
  }

  /** Writes everything recorded so far. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.buffer.length === 0) return;
      const batch = this.buffer;
      this.buffer = [];
      try {
        await this.insert(batch);
      } catch (error) {
        if (!isBadEntry(error)) {
          // The database is away: keep the entries for the next attempt, in order.
          this.buffer = [...batch, ...this.buffer];
          // An outage is logged once by the database's health tracker; anything else each time.
          if (!healthOf(this.db)?.report(error)) this.log.error({ err: error, entries: batch.length }, 'audit log write failed; will retry');
          return;
        }
        // Some entry is at fault: write them one by one and drop only what the database refuses.
        for (const entry of batch) {
          try {
            await this.insert([entry]);
          } catch (single) {
            if (!isBadEntry(single)) {
              this.buffer = [...batch.slice(batch.indexOf(entry)), ...this.buffer];
              return;
            }
            this.dropped.rejected++;
            this.log.error({ err: single, action: entry.action, total_rejected: this.dropped.rejected }, 'audit entry rejected by the database and dropped');
          }
        }
      }
    });
    return this.flushing;
  }

  private insert(batch: readonly AuditEntry[]) {
    return insertAuditEntries(
      this.db,
      batch.map((e) => ({
        workspaceId: e.workspaceId,
        memberId: e.memberId,
        tokenId: e.tokenId,
        actor: e.actor,
        action: e.action,
        summary: (summarizeArguments(e.summary) ?? {}) as Record<string, unknown>,
        outcome: e.outcome,
        errorCode: e.errorCode,
        durationMs: Math.round(e.durationMs),
        createdAt: e.at,
      })),
    );
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

/** The workspace's audit log, newest first (owners only). */
export async function readAuditLog(
  db: Database,
  principal: MemberPrincipal,
  options: { limit: number; before?: number },
) {
  assertOwner(principal, 'read the audit log');
  const rows = await listAuditRows(forWorkspace(db, principal.workspaceId), options);
  return rows.map((r) => ({
    id: r.id,
    at: r.createdAt.toISOString(),
    actor: r.actor,
    member_id: r.memberId,
    token_id: r.tokenId,
    action: r.action,
    summary: r.summary,
    outcome: r.outcome,
    error_code: r.errorCode,
    duration_ms: r.durationMs,
  }));
}
