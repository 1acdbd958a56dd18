/**
 * Retries that come out exact. A client that got no answer (a deadline, a dropped connection, an
 * outage) sends the same call again with the same idempotency key: the workspace remembers what
 * the key was first used for and answers as it did then, and stores nothing twice. The key is
 * bound to its request: the same key with another request is refused, so a key reused by mistake
 * never returns an unrelated answer.
 */
import { createHash } from 'node:crypto';
import { findIdempotencyKey, type IdempotencyRecord, type TenantDb } from '@engram/db';
import { EngramError } from '../errors.ts';

/** What a key guards and the digest of the request it came with. */
export interface IdempotencyClaim {
  key: string;
  operation: IdempotencyRecord['operation'];
  requestHash: string;
}

const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([, v]) => v !== undefined)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([k, v]) => [k, canonical(v)]),
        )
      : value;

/** The digest of a request (its members in any order), which its idempotency key is bound to. */
export function requestHash(request: unknown): string {
  return createHash('sha256').update(JSON.stringify(canonical(request))).digest('hex');
}

/**
 * The key's earlier use when it was for this very request; null when the key is new. A key used
 * for another request (or another operation) is refused with `idempotency_key_reused`.
 */
export async function earlierUse(tenant: TenantDb, claim: IdempotencyClaim): Promise<IdempotencyRecord | null> {
  const earlier = await findIdempotencyKey(tenant, claim.key);
  if (!earlier) return null;
  if (earlier.operation !== claim.operation || earlier.requestHash !== claim.requestHash) {
    const what = earlier.operation === 'commit' ? 'commit' : 'import';
    throw new EngramError(
      'idempotency_key_reused',
      `This idempotency key was first used at ${earlier.createdAt.toISOString()} for a different ${what}. ` +
        'Send a retry with exactly the same arguments as the first call, or use a new key (a fresh UUID) for a new request.',
      { first_used_at: earlier.createdAt.toISOString(), operation: earlier.operation },
    );
  }
  return earlier;
}
