/**
 * Request work shares the event loop in turns (packages/core/src/turns.ts): a lone request goes
 * straight on; once a turn's work reaches the budget, the rest waits for later turns, in order, and
 * timers run in between. The parts here hold the loop for a measured time each, so every turn is
 * over budget after a fixed number of parts on any machine (a slower one fits fewer).
 */
import { BACKGROUND_SHARE, backgroundPauseMs, nextTurn, partsWaiting, requestBegan, requestsBeingAnswered, TURN_BUDGET_MS, yieldTurn } from '@engram/core';
import Fastify from 'fastify';
import { beforeEach, describe, expect, it } from 'vitest';
import { registerAnsweringCount } from '../../apps/server/src/plugins/answering.ts';
import { holdEventLoop } from '../support/hold-loop.ts';

const nextLoopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('turns of the event loop for request work', () => {
  beforeEach(async () => {
    // Each test starts on a turn of its own with nobody waiting.
    while (partsWaiting() > 0) await nextLoopTurn();
    await nextLoopTurn();
  });

  it('lets a lone request go straight on, without a hop', () => {
    expect(nextTurn()).toBeUndefined();
  });

  it('serves a busy turn\'s remaining parts in later turns, in order, with timers run between them', async () => {
    const done: number[] = [];
    const seenByTimers: number[] = [];
    let ticking = true;
    const tick = () => {
      seenByTimers.push(done.length);
      if (ticking) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    const parts = Array.from({ length: 10 }, async (_, i) => {
      const turn = nextTurn();
      if (turn) await turn;
      holdEventLoop(TURN_BUDGET_MS / 2);
      done.push(i);
    });
    // The first part ran at once (and more while the turn had room: fewer on a busy machine, whose
    // parts take longer than they hold); the others wait.
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done.length).toBeLessThan(10);
    expect(partsWaiting()).toBe(10 - done.length);
    await Promise.all(parts);
    ticking = false;
    expect(done).toEqual([...Array(10).keys()]);
    // Timers ran while parts were still waiting, more than once: the loop was not held to the end.
    const between = seenByTimers.filter((n) => n > 0 && n < 10);
    expect(new Set(between).size).toBeGreaterThanOrEqual(2);
  });

  it('puts background pauses in the same line, after the parts already waiting', async () => {
    const order: string[] = [];
    expect(nextTurn()).toBeUndefined();
    holdEventLoop(TURN_BUDGET_MS + 1);
    const first = (async () => {
      await nextTurn();
      order.push('request 1');
    })();
    const background = (async () => {
      await yieldTurn();
      order.push('detection');
    })();
    const second = (async () => {
      await nextTurn();
      order.push('request 2');
    })();
    expect(order).toEqual([]);
    await Promise.all([first, background, second]);
    expect(order).toEqual(['request 1', 'detection', 'request 2']);
  });

  it('makes background work wait for a later turn even when the loop is idle', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('queued before'));
    await yieldTurn();
    order.push('detection');
    expect(order).toEqual(['queued before', 'detection']);
  });
});

describe('background work while requests are answered', () => {
  it('pauses only while a request is being answered, for nine times the work just done, at most 100 ms', () => {
    expect(requestsBeingAnswered()).toBe(0);
    expect(backgroundPauseMs(4)).toBe(0);
    const end = requestBegan();
    expect(backgroundPauseMs(4)).toBeCloseTo((4 * (1 - BACKGROUND_SHARE)) / BACKGROUND_SHARE);
    expect(backgroundPauseMs(0)).toBe(0);
    expect(backgroundPauseMs(60)).toBe(100);
    end();
    end(); // ending twice counts once
    expect(requestsBeingAnswered()).toBe(0);
    expect(backgroundPauseMs(4)).toBe(0);
  });

  it('counts a request from arrival until its answer is done, whether it succeeds or fails, and no health probe', async () => {
    const app = Fastify();
    registerAnsweringCount(app);
    const seen: number[] = [];
    app.get('/ok', async () => {
      seen.push(requestsBeingAnswered());
      return { ok: true };
    });
    app.get('/healthz', async () => {
      seen.push(requestsBeingAnswered());
      return { status: 'ok' };
    });
    app.get('/fails', async () => {
      seen.push(requestsBeingAnswered());
      throw new Error('broken');
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered = 0;
    app.get('/held', async () => {
      entered++;
      await released;
      return { ok: true };
    });
    expect((await app.inject({ method: 'GET', url: '/ok' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/fails' })).statusCode).toBe(500);
    // A health probe is not work anyone waits on.
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect(seen).toEqual([1, 1, 0]);
    // Two requests held at once: both counted until released.
    const both = Promise.all([app.inject({ method: 'GET', url: '/held' }), app.inject({ method: 'GET', url: '/held' })]);
    while (entered < 2) await new Promise((resolve) => setImmediate(resolve));
    expect(requestsBeingAnswered()).toBe(2);
    release();
    expect((await both).map((r) => r.statusCode)).toEqual([200, 200]);
    // The connection is done with each answer on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(requestsBeingAnswered()).toBe(0);
    await app.close();
  });
});
