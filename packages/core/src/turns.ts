/**
 * Request work shares the event loop in turns. Under load several requests arrive, and several
 * database results come back, in one turn of the loop; each went on until it next waited for the
 * database (a commit's extraction and statement, a query's scoring and serialising), so one turn
 * held a dozen requests' work: 60-140 ms under 50 clients on two cores shared with the database,
 * with every timer, lease renewal and `/healthz` waiting behind it.
 *
 * A request passes `nextTurn()` between its parts. While the loop is not busy it goes straight on
 * (no hop for a lone request); once the request work of the current turn reaches
 * TURN_BUDGET_MS, or others already wait, it waits in line. Background work (detection) yields
 * with `yieldTurn()` into the same line, after a pause that keeps it to BACKGROUND_SHARE of the
 * process while requests are being answered. The line is served in order of arrival, up to
 * TURN_BUDGET_MS of parts per turn of the loop, with timers and sockets read between turns.
 */
import { performance } from 'node:perf_hooks';

/** Request work one turn of the event loop may run before the rest waits for later turns. */
export const TURN_BUDGET_MS = 8;
/** Most parts served in one turn (each in a check-phase callback of its own, see serve). */
const PARTS_PER_TURN = 16;

const line: (() => void)[] = [];
/** Serving callbacks queued for the coming check phase. */
let callbacks = 0;
/** When this turn's serving began, or -1. */
let servingBegan = -1;
/** When this turn's request work began (performance.now()), or -1 before any this turn. */
let turnBegan = -1;
const turnOver = () => {
  turnBegan = -1;
};

/**
 * Serves the next part in line. Its continuation runs as soon as this callback returns (Node runs
 * microtasks after each immediate), before the next callback, so the time since the turn's first
 * callback includes the parts served so far. Callbacks queued during a check phase run in the next
 * turn, so a turn's callbacks are queued the turn before (PARTS_PER_TURN at once).
 */
function serve(): void {
  callbacks--;
  const now = performance.now();
  if (servingBegan < 0) servingBegan = now;
  if (line.length > 0 && now - servingBegan < TURN_BUDGET_MS) line.shift()!();
  if (callbacks === 0) {
    servingBegan = -1;
    if (line.length > 0) schedule();
  }
}

function schedule(): void {
  for (let i = 0; i < PARTS_PER_TURN; i++) setImmediate(serve);
  callbacks += PARTS_PER_TURN;
}

function wait(): Promise<void> {
  return new Promise<void>((resolve) => {
    line.push(resolve);
    if (callbacks === 0) schedule();
  });
}

/**
 * Resolves when it is this part's turn: `undefined` (go straight on) while this turn has room and
 * nobody waits, else a promise resolved in a later turn of the loop. Call it as
 * `const turn = nextTurn(); if (turn) await turn;`: awaiting `undefined` would let every other
 * continuation of this turn pass its own check before this part's work, which the budget would
 * then not see.
 */
export function nextTurn(): Promise<void> | undefined {
  const now = performance.now();
  if (turnBegan < 0) {
    turnBegan = now;
    // Check-phase callbacks run after every socket read of this turn: the turn's work ends there.
    setImmediate(turnOver);
  }
  if (line.length === 0 && now - turnBegan < TURN_BUDGET_MS) return undefined;
  return wait();
}

/** Requests being answered (the HTTP layer counts them with {@link requestBegan}). */
let requestsAnswering = 0;

/** Counts a request as being answered until the returned function is called (once; later calls do nothing). */
export function requestBegan(): () => void {
  requestsAnswering++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    requestsAnswering--;
  };
}

/**
 * Background work's share of the process while requests are being answered. Under a steady load
 * the in-process detector always has a backlog and used every turn it was given, about a third of
 * a busy workspace's throughput (docs/performance/2026-12-06-detection.md); held to a tenth, it
 * catches up at full speed whenever no request is being answered.
 */
export const BACKGROUND_SHARE = 0.1;
/** Longest pause after one slice of background work, so a long-held request cannot stall it. */
const MAX_BACKGROUND_PAUSE_MS = 100;

/**
 * Background work's pause: waits for a later turn, in line with request parts; while requests are
 * being answered, first for long enough that the `workedMs` just spent stays within BACKGROUND_SHARE.
 */
export async function yieldTurn(workedMs = 0): Promise<void> {
  const pause = backgroundPauseMs(workedMs);
  if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
  return wait();
}

/** How long background work that just spent `workedMs` pauses before its next turn (see yieldTurn). */
export function backgroundPauseMs(workedMs: number): number {
  if (requestsAnswering === 0 || workedMs <= 0) return 0;
  return Math.min(MAX_BACKGROUND_PAUSE_MS, (workedMs * (1 - BACKGROUND_SHARE)) / BACKGROUND_SHARE);
}

/** Requests being answered (for tests and diagnostics). */
export const requestsBeingAnswered = (): number => requestsAnswering;

/** Parts waiting for a turn (for tests and diagnostics). */
export const partsWaiting = (): number => line.length;
