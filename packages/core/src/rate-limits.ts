/**
 * Rate limits (SPEC §3), counted in Postgres so every instance shares them: commits per agent per
 * hour and requests per token per minute (workspace settings), and requests per address per
 * minute for callers without a token. Over a limit: `rate_limited` with `retry_after_seconds`.
 */
import { countHit, type Database } from '@engram/db';
import type { Principal } from './auth.ts';
import { EngramError } from './errors.ts';
import { DEFAULT_SETTINGS } from './management.ts';

/** Limits for callers without a member token (configuration, not workspace settings). */
export interface AnonymousLimits {
  /** Requests per minute from one address. */
  requestsPerMinute: number;
  /** Workspaces one address may create per hour through open signup. */
  signupsPerHour: number;
}

export const DEFAULT_ANONYMOUS_LIMITS: AnonymousLimits = { requestsPerMinute: 60, signupsPerHour: 5 };

function limited(what: string, retryAfterSeconds: number): EngramError {
  return new EngramError('rate_limited', `Rate limit reached: ${what}. Retry in ${retryAfterSeconds} s.`, {
    retry_after_seconds: retryAfterSeconds,
  });
}

async function enforce(
  db: Database,
  params: { key: string; windowSeconds: number; limit: number; workspaceId?: string | null; what: string; now?: Date },
): Promise<void> {
  const now = params.now ?? new Date();
  const window = await countHit(db, { key: params.key, windowSeconds: params.windowSeconds, workspaceId: params.workspaceId, now });
  if (window.count > params.limit) {
    throw limited(params.what, Math.max(1, Math.ceil((window.windowEnd.getTime() - now.getTime()) / 1000)));
  }
}

/** One request by this caller: per token per minute for members, per address otherwise. */
export function enforceRequestRate(
  db: Database,
  principal: Principal,
  anonymous: AnonymousLimits = DEFAULT_ANONYMOUS_LIMITS,
  now?: Date,
): Promise<void> {
  if (principal.kind === 'member') {
    const limit = principal.settings.requests_per_token_per_minute ?? DEFAULT_SETTINGS.requests_per_token_per_minute;
    return enforce(db, {
      key: `token:${principal.tokenId}:requests`,
      windowSeconds: 60,
      limit,
      workspaceId: principal.workspaceId,
      what: `${limit} requests per minute for this token`,
      now,
    });
  }
  const address = principal.kind === 'anonymous' ? principal.address : `invite:${principal.inviteId}`;
  return enforce(db, {
    key: `address:${address}:requests`,
    windowSeconds: 60,
    limit: anonymous.requestsPerMinute,
    what: `${anonymous.requestsPerMinute} requests per minute without a member token`,
    now,
  });
}

/** One commit by an agent of a workspace (`commits_per_agent_per_hour`, default 50). */
export function enforceCommitRate(
  db: Database,
  params: { workspaceId: string; agentId: string; settings: { commits_per_agent_per_hour?: number } },
  now?: Date,
): Promise<void> {
  const limit = params.settings.commits_per_agent_per_hour ?? DEFAULT_SETTINGS.commits_per_agent_per_hour;
  return enforce(db, {
    key: `agent:${params.workspaceId}:${params.agentId}:commits`,
    windowSeconds: 3600,
    limit,
    workspaceId: params.workspaceId,
    what: `${limit} commits per hour for agent "${params.agentId}" (workspace setting commits_per_agent_per_hour)`,
    now,
  });
}

/** One workspace created through open signup from an address. */
export function enforceSignupRate(
  db: Database,
  address: string,
  anonymous: AnonymousLimits = DEFAULT_ANONYMOUS_LIMITS,
  now?: Date,
): Promise<void> {
  return enforce(db, {
    key: `address:${address}:signups`,
    windowSeconds: 3600,
    limit: anonymous.signupsPerHour,
    what: `${anonymous.signupsPerHour} new workspaces per hour from one address`,
    now,
  });
}
