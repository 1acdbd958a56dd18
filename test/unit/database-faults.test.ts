import { callerErrorOf, CommitInput } from '@engram/core';
import { DatabaseHealth, DatabaseUnavailableError, databaseFault, droppedConnection, neverApplied, withinDeadline } from '@engram/db';
import { writeOutcome } from '@engram/mcp';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';

/** An error shaped like the drivers' (postgres.js and PGlite carry `code`; drizzle wraps them in `cause`). */
const driverError = (code: string, message = 'boom') => Object.assign(new Error(message), { code });
const wrapped = (cause: Error) => Object.assign(new Error('Failed query: select ...'), { cause });

describe('databaseFault', () => {
  it.each([
    ['ECONNREFUSED', 'unavailable'],
    ['ECONNRESET', 'unavailable'],
    ['CONNECTION_CLOSED', 'unavailable'],
    ['CONNECT_TIMEOUT', 'unavailable'],
    ['57P01', 'unavailable'],
    ['57P03', 'unavailable'],
    ['08006', 'unavailable'],
    ['53300', 'too_many_connections'],
    ['53100', 'disk_full'],
    ['ENOSPC', 'disk_full'],
    ['55P03', 'locked'],
    ['40P01', 'locked'],
  ])('reads %s as %s, also when drizzle wraps it', (code, kind) => {
    expect(databaseFault(driverError(code))?.kind).toBe(kind);
    expect(databaseFault(wrapped(driverError(code)))?.kind).toBe(kind);
  });

  it('tells a statement timeout from a lock timeout (both are 57014 or 55P03)', () => {
    expect(databaseFault(driverError('57014', 'canceling statement due to statement timeout'))?.kind).toBe('timeout');
    expect(databaseFault(driverError('57014', 'canceling statement due to lock timeout'))?.kind).toBe('locked');
  });

  it('knows a connection dropped before the statement reached the server (safe to run again) from other faults', () => {
    expect(droppedConnection(wrapped(driverError('CONNECTION_CLOSED')))).toBe(true);
    expect(droppedConnection(driverError('ECONNRESET'))).toBe(true);
    expect(droppedConnection(driverError('ECONNREFUSED'))).toBe(false);
    expect(droppedConnection(driverError('57014'))).toBe(false);
  });

  it.each([
    ['ECONNREFUSED', true],
    ['CONNECT_TIMEOUT', true],
    ['ENOTFOUND', true],
    ['53300', true],
    ['57014', true],
    ['55P03', true],
    ['57P01', true],
    ['ECONNRESET', false],
    ['CONNECTION_CLOSED', false],
    ['EPIPE', false],
    ['08006', false],
    ['ENOSPC', false],
  ])('knows whether work failed with %s certainly took no effect (%s)', (code, expected) => {
    expect(neverApplied(wrapped(driverError(code)))).toBe(expected);
  });

  it('tells a write tool\'s caller whether it was done, and how to retry', () => {
    const commit = { name: 'engram_commit', input: CommitInput };
    const refused = writeOutcome(wrapped(driverError('ECONNREFUSED', 'connect ECONNREFUSED')), commit, 'failed');
    expect(refused).toMatchObject({ code: 'unavailable', details: { done: 'no' } });
    expect((refused as Error).message).toMatch(/Nothing was done: call engram_commit again\.$/);
    const late = writeOutcome(new DatabaseUnavailableError('timeout', 'engram_commit got no answer within 900 ms'), commit, 'still_running');
    expect(late).toMatchObject({ code: 'unavailable', details: { done: 'unknown', retry_after_seconds: 2 } });
    expect((late as Error).message).toMatch(/may or may not have been done \(outcome: unknown\)\. Retrying is safe: .* same idempotency_key/);
    const cut = writeOutcome(wrapped(driverError('ECONNRESET')), commit, 'failed');
    expect(cut).toMatchObject({ details: { done: 'unknown' } });
    expect(writeOutcome(new DatabaseUnavailableError('timeout', 'x'), commit, 'never_began')).toMatchObject({ details: { done: 'no' } });
    // A tool without a key is told to check first; a caller's own error is left as it is.
    expect((writeOutcome(wrapped(driverError('ECONNRESET')), { name: 'engram_resolve', input: z.object({}) }, 'failed') as Error).message).toMatch(/Check whether it took effect/);
    const bug = new TypeError('x is undefined');
    expect(writeOutcome(bug, commit, 'still_running')).toBe(bug);
  });

  it('leaves the caller\'s own errors alone: constraints, syntax, bugs', () => {
    expect(databaseFault(driverError('23505', 'duplicate key'))).toBeUndefined();
    expect(databaseFault(driverError('42601', 'syntax error'))).toBeUndefined();
    expect(databaseFault(new TypeError('x is undefined'))).toBeUndefined();
    expect(databaseFault('a string')).toBeUndefined();
  });

  it('becomes a retryable 503 for callers, with the seconds to wait and the reason', () => {
    const error = callerErrorOf(wrapped(driverError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')));
    expect(error).toMatchObject({ code: 'unavailable', status: 503, details: { retry_after_seconds: 5, reason: 'unavailable' } });
    expect(error?.message).toBe('The database is unavailable (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432). Try again in 5 s.');
    expect(callerErrorOf(new Error('bug'))).toBeUndefined();
  });
});

describe('DatabaseHealth', () => {
  const capture = () => {
    const lines: { level: string; obj: object; msg?: string }[] = [];
    return {
      lines,
      log: {
        warn: (obj: object, msg?: string) => lines.push({ level: 'warn', obj, msg }),
        info: (obj: object, msg?: string) => lines.push({ level: 'info', obj, msg }),
      },
    };
  };

  it('logs an outage once when it starts and once when it ends, whatever the number of failed requests', () => {
    const { lines, log } = capture();
    const health = new DatabaseHealth(log);
    for (let i = 0; i < 50; i++) expect(health.report(driverError('ECONNREFUSED'))?.kind).toBe('unavailable');
    expect(health.report(new Error('a bug'))).toBeUndefined();
    expect(health.outage()?.fault.kind).toBe('unavailable');
    health.recovered();
    health.recovered();
    expect(health.outage()).toBeUndefined();
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['warn', expect.stringMatching(/^The database is unavailable \(ECONNREFUSED: boom\); requests get a retryable error until it is back/)],
      ['info', 'the database is back'],
    ]);
    // The next outage is logged again.
    health.report(driverError('57P01'));
    expect(lines).toHaveLength(3);
  });

  it('logs slow and locked episodes once while they last, and they are not outages', () => {
    const { lines, log } = capture();
    const health = new DatabaseHealth(log);
    for (let i = 0; i < 10; i++) health.report(driverError('55P03', 'canceling statement due to lock timeout'));
    expect(lines).toHaveLength(1);
    expect(health.outage()).toBeUndefined();
  });
});

describe('withinDeadline', () => {
  it('settles with the work when it is in time, and with a timeout fault when it is not', async () => {
    await expect(withinDeadline(Promise.resolve(7), 1_000, 'x')).resolves.toBe(7);
    const never = new Promise<never>(() => {});
    const late = await withinDeadline(never, 1, 'the probe').catch((error: unknown) => error);
    expect(late).toBeInstanceOf(DatabaseUnavailableError);
    expect((late as DatabaseUnavailableError).kind).toBe('timeout');
    expect((late as Error).message).toBe('The database is too slow to answer right now (the probe got no answer within 1 ms).');
  });
});
