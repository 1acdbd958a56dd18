import { randomUUID } from 'node:crypto';

/**
 * A UUIDv7 (RFC 9562): 48-bit millisecond timestamp then random bits. Facts get these ids so that
 * inserts land at the right-hand edge of the primary-key index instead of all over it.
 *
 * The random bits are a v4 UUID's (`randomUUID` draws them from a cached pool, where `randomBytes`
 * asks OpenSSL on every call): its 12 bits after the version and its variant and 62 bits after.
 */
export function uuidv7(now = Date.now()): string {
  const time = now.toString(16).padStart(12, '0');
  const random = randomUUID();
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15, 18)}-${random.slice(19)}`;
}
