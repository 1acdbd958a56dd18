/**
 * Who a statement is for, where that decides when it runs. The embedded database runs one statement
 * at a time, in turns (embedded/thread-client.ts), and a request that needs several statements waits for a
 * turn before each. First come first served by statement, under load a turn comes after dozens of
 * others, so a request of several statements (a commit that found a fact it may corroborate) waits
 * in that line once per statement, and such requests made the whole tail of commit latency.
 *
 * So the line is kept by caller: each statement of a caller (a tool call, `asOneCaller`) takes its
 * place by when the caller arrived, so a request that has waited once goes on ahead of requests that
 * came after it, and never ahead of one that came before (none waits for ever: those arriving later
 * are always behind). Only its first PLACED_TURNS statements keep that place; later ones queue
 * as they come, so a caller that makes many statements does not hold everyone else back. Work with
 * no caller (background detection) queues as it comes; a batch served for many callers at once
 * (group commit, grouped retrieval) takes the place of the earliest of them. The work is the same;
 * its order changes, and the commit tail with it (docs/performance/2026-12-02-constants.md).
 *
 * Two orders tried before this one: follow-ups strictly first starved new work at 200 clients
 * (queries missed their 14.5 s deadline); follow-ups and new work taking turns starved the
 * follow-ups (most turns were theirs: a batch serves many calls in one).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Statements of a caller that take their place by when it arrived. */
export const PLACED_TURNS = 8;

/** One caller: when it arrived (`performance.now()`), and the turns it has asked for. */
export interface Caller {
  readonly since: number;
  turns: number;
}

const callers = new AsyncLocalStorage<Caller | undefined>();

/** Runs `fn` as one caller, arriving now. */
export function asOneCaller<T>(fn: () => T): T {
  return callers.run({ since: performance.now(), turns: 0 }, fn);
}

/** Runs `fn` for `caller`, or apart from any caller. */
export function forCaller<T>(caller: Caller | undefined, fn: () => T): T {
  return callers.run(caller, fn);
}

/** The caller whose work is running, if any. */
export function currentCaller(): Caller | undefined {
  return callers.getStore();
}

/**
 * The place in line of the current caller's next turn (lower goes first): when it arrived, for its
 * first PLACED_TURNS turns; now, for later ones and for work of no caller.
 */
export function placeInLine(caller = currentCaller()): number {
  if (!caller || caller.turns >= PLACED_TURNS) return performance.now();
  caller.turns++;
  return caller.since;
}
