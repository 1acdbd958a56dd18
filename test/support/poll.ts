/**
 * Waiting on state, never on a clock: `eventually` asks again until the answer is there. The
 * timeout bounds a hang (a busy 2-core machine may be slow); it is not a measure of speed.
 */
import { setTimeout as pause } from 'node:timers/promises';

export interface EventuallyOptions {
  /** How long to keep asking before failing (default 30 s). */
  timeoutMs?: number;
  /** Pause between two asks (default 25 ms). */
  intervalMs?: number;
  /** What was awaited, for the failure's message. */
  what?: string;
  /** Ask again when `probe` throws (a server still starting), instead of failing at once. */
  retryErrors?: boolean;
}

/**
 * Calls `probe` until it returns a truthy value, and returns that value. A probe that throws fails
 * the wait at once, unless `retryErrors` (then the last error is in the failure's message).
 */
export async function eventually<T>(probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, options: EventuallyOptions = {}): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 25, what = 'condition', retryErrors = false } = options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      if (!retryErrors) throw error;
      last = error;
    }
    if (Date.now() > deadline) {
      const cause = last === undefined ? '' : ` (last error: ${last instanceof Error ? last.message : JSON.stringify(last)})`;
      throw new Error(`${what}: not met within ${timeoutMs} ms${cause}`);
    }
    await pause(intervalMs);
  }
}

/**
 * Waits until the clock shows a later millisecond than `ms`, and returns that moment: what a test
 * needs when two things must carry different timestamps (a stored time has a finer resolution than
 * a millisecond, so the moment after is the first one surely later than everything before).
 */
export async function momentAfter(ms: number): Promise<Date> {
  while (Date.now() <= ms) await pause(1);
  return new Date();
}
