/**
 * The embedded database on a disk that fills up, on a small tmpfs of its own (mounting needs root;
 * the machine and CI run as root, elsewhere the suite is skipped):
 *
 * - `engram start` on it, facts committed, then the disk filled: the server keeps answering,
 *   refuses writes with an error that says the disk is full (never "internal error"), serves reads,
 *   `/readyz` says 503, SIGTERM stops it; a start on the full disk says the disk is full, where,
 *   and how much is needed; once space is freed, it starts and every acknowledged commit is there.
 * - PGlite itself writing to the full disk (the headroom check bypassed) blocks its thread for
 *   good (a WAL segment it cannot create): the process goes on, callers get a retryable error
 *   within the deadline, and closing does not wait for the blocked thread.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseUnavailableError } from '@engram/db';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EmbeddedClient } from '../../packages/db/src/embedded/thread-client.ts';
import { cliEnv, startCli, type StartedCli } from '../support/cli.ts';

/** Mounts a tmpfs of `sizeMb` at a new directory; undefined when this machine does not allow it. */
function mountTmpfs(sizeMb: number): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    fs.rmdirSync(dir);
    return undefined;
  }
}

function unmount(dir: string | undefined): void {
  if (!dir) return;
  try {
    execFileSync('umount', [dir], { stdio: 'ignore' });
  } catch {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  }
  fs.rmdirSync(dir);
}

/** Writes `file` until the disk under it is full (ENOSPC). */
function fillDisk(file: string): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (const size of [1 << 20, 4096]) {
      const chunk = Buffer.alloc(size, 0x5a);
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

const freeMb = (dir: string) => {
  const stats = fs.statfsSync(dir);
  return (stats.bavail * stats.bsize) / 1_048_576;
};

interface ToolResult {
  isError?: boolean;
  content?: { type: string; text: string }[];
  structuredContent?: { fact_id?: string | null };
}

async function callTool(server: StartedCli, name: string, args: Record<string, unknown>): Promise<{ status: number; result: ToolResult | undefined }> {
  const res = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.ownerToken}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = (await res.json().catch(() => ({}))) as { result?: ToolResult };
  return { status: res.status, result: body.result };
}

const commit = (server: StartedCli, n: number) =>
  callTool(server, 'engram_commit', { content: `The disk-test service ${n} listens on port ${5000 + n}`, scope: 'disk/test', confidence: 0.8 });

const textOf = (result: ToolResult | undefined) => result?.content?.map((c) => c.text).join('\n') ?? '';

/** How long a request to the server takes, and its status. */
async function timed(url: string): Promise<{ status: number; ms: number; body: string }> {
  const started = performance.now();
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: await res.text(), ms: performance.now() - started };
}

/** Whether this machine lets the suite mount a file system (root on Linux): tried once, undone at once. */
const canMount = (() => {
  const probe = mountTmpfs(1);
  unmount(probe);
  return probe !== undefined;
})();

describe.skipIf(!canMount)('embedded database on a disk that fills up', () => {
  let dataDir: string;
  let filler: string;
  let server: StartedCli | undefined;
  beforeAll(() => {
    // Big enough for a new database with its WAL (about 60 MB), small enough to fill in a moment.
    const mounted = mountTmpfs(192);
    if (!mounted) throw new Error('could not mount a tmpfs for the test');
    dataDir = mounted;
    filler = path.join(dataDir, 'filler');
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    unmount(dataDir);
  });

  it('keeps answering, refuses writes clearly, stops on SIGTERM, and keeps every acknowledged commit', { timeout: 300_000 }, async () => {
    const env = cliEnv({ ENGRAM_DATA_DIR: dataDir, PORT: '0', ENGRAM_MIN_FREE_DISK_MB: '16', ENGRAM_REQUEST_DEADLINE_MS: '5000' });
    server = await startCli(env, 120_000);
    const origin = new URL(server.mcpUrl).origin;

    const acknowledged: string[] = [];
    for (let n = 0; n < 8; n++) {
      const { result } = await commit(server, n);
      expect(result?.isError, textOf(result)).toBeFalsy();
      acknowledged.push(result!.structuredContent!.fact_id!);
    }
    await expect.poll(async () => (await timed(`${origin}/readyz`)).status, { timeout: 30_000 }).toBe(200);

    fillDisk(filler);
    expect(freeMb(dataDir)).toBeLessThan(1);

    // The server answers: liveness at once, readiness says why it is not ready (free space is
    // looked up at most once a second).
    const health = await timed(`${origin}/healthz`);
    expect(health.status).toBe(200);
    expect(health.ms).toBeLessThan(2_000);
    await expect.poll(async () => (await timed(`${origin}/readyz`)).status, { timeout: 30_000 }).toBe(503);
    const ready = await timed(`${origin}/readyz`);
    expect(ready.ms).toBeLessThan(2_000);
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'not_ready', checks: { writes: expect.stringMatching(/refused: .*ENGRAM_MIN_FREE_DISK_MB/) } });

    // Writes are refused with the reason, never as an internal error; reads go on.
    const refused = await commit(server, 100);
    expect(refused.result?.isError).toBe(true);
    expect(textOf(refused.result)).toMatch(/disk is full/i);
    expect(textOf(refused.result)).toMatch(/ENGRAM_MIN_FREE_DISK_MB/);
    expect(textOf(refused.result)).toContain(path.join(dataDir, 'pgdata'));
    expect(textOf(refused.result)).not.toMatch(/internal error/i);

    const read = await callTool(server, 'engram_query', { topic: 'which port does the disk-test service listen on', scope: 'disk/test' });
    expect(read.result?.isError, textOf(read.result)).toBeFalsy();

    // SIGTERM stops it (the exit is awaited; no fixed sleeps).
    expect(await server.stop('SIGTERM')).toBe(0);
    server = undefined;
    expect(fs.existsSync(path.join(dataDir, 'pgdata.lock'))).toBe(false);

    // A start on the full disk says what is wrong and what is needed. (The shutdown checkpoint may
    // have recycled WAL: fill what it freed.)
    fillDisk(`${filler}-2`);
    const refusedStart = await startCli(env, 120_000).then(
      (started) => {
        server = started;
        return '';
      },
      (error: Error) => error.message,
    );
    expect(refusedStart).toMatch(/disk is full/i);
    expect(refusedStart).toMatch(/has 0 MB free; the embedded database needs at least 16 MB free to start \(ENGRAM_MIN_FREE_DISK_MB\)/);
    expect(refusedStart).toContain(path.join(dataDir, 'pgdata'));
    expect(refusedStart).not.toMatch(/PGlite failed to initialize/);

    // Space freed: it starts, and every acknowledged commit is there.
    fs.rmSync(filler);
    fs.rmSync(`${filler}-2`);
    server = await startCli(env, 120_000);
    const journal = await fetch(`${new URL(server.mcpUrl).origin}/api/v1/facts/since`, { headers: { authorization: `Bearer ${server.ownerToken}` } });
    expect(journal.status).toBe(200);
    const text = await journal.text();
    expect(acknowledged.filter((id) => !text.includes(id))).toEqual([]);
    const after = await commit(server, 200);
    expect(after.result?.isError, textOf(after.result)).toBeFalsy();
    expect(await server.stop('SIGTERM')).toBe(0);
    server = undefined;
  });

  it('does not freeze the process when PGlite itself blocks on the full disk, and starts it again once there is room', { timeout: 300_000 }, async () => {
    for (const file of [filler, `${filler}-2`]) fs.rmSync(file, { force: true });
    const dir = path.join(dataDir, 'blocked');
    const dirFiller = path.join(dir, 'filler');
    fs.mkdirSync(dir);
    const faults: Error[] = [];
    // Writes are let through to PGlite (as if the disk filled between the check and the write)
    // until it has blocked; then the headroom check says the disk is full, as it would.
    let headroomChecked = false;
    const client = await EmbeddedClient.open(path.join(dir, 'pgdata'), {
      deadlineMs: 2_000,
      slowWorkDeadlineMs: 120_000,
      durable: true,
      report: (error) => faults.push(error as Error),
      writeProblem: async () => (headroomChecked && freeMb(dir) < 16 ? `the disk under ${dir} is full` : undefined),
      diskExhausted: async () => freeMb(dir) < 16,
      watchdogMs: 600_000,
    });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 50);
    try {
      await client.exec(`create table churn (id int primary key, n int, pad text) with (fillfactor = 50);
        insert into churn values (1, 0, repeat(md5('x'), 60)); checkpoint`);
      fillDisk(dirFiller);
      // Updates in place need no new data pages, only WAL; sooner or later the WAL needs a segment
      // the disk has no room for, and PGlite blocks there. Until then each commits, or fails cleanly.
      let committed = 0;
      let blocked: (Error & { kind?: string }) | undefined;
      for (let i = 0; i < 200_000 && !blocked; i++) {
        const update = `begin; update churn set n = n + 1, pad = repeat(md5(random()::text), 60) where id = 1; commit`;
        blocked = await client.exec(update).then(
          () => void committed++,
          (error: Error & { kind?: string }) => (error.kind ? error : undefined),
        );
      }
      headroomChecked = true;
      expect(blocked).toMatchObject({ kind: 'unavailable', message: expect.stringMatching(/did not answer within 2000 ms/) });
      expect(committed).toBeGreaterThan(0);

      // The process went on: timers ran while PGlite was blocked, and callers fail at once.
      const ticksBefore = ticks;
      const started = performance.now();
      await expect(client.query('select 1')).rejects.toMatchObject({ kind: expect.stringMatching(/^(unavailable|disk_full)$/) });
      expect(performance.now() - started).toBeLessThan(1_000);
      await expect.poll(() => ticks, { timeout: 5_000 }).toBeGreaterThan(ticksBefore);

      // Blocked for good on a full disk: stopped, and started again once there is room; every
      // acknowledged commit is there (the blocked one may be too: it was never acknowledged).
      await expect.poll(() => client.query('select 1').catch((error: DatabaseUnavailableError) => error.kind), { timeout: 30_000 }).toBe('disk_full');
      fs.rmSync(dirFiller);
      const rows = await vi.waitFor(() => client.query<{ n: number }>('select n from churn'), { timeout: 120_000, interval: 500 });
      expect(rows.rows[0]!.n).toBeGreaterThanOrEqual(committed);
      expect(rows.rows[0]!.n).toBeLessThanOrEqual(committed + 1);
      await client.exec(`update churn set n = n + 1`);
    } finally {
      clearInterval(ticker);
      const started = performance.now();
      await client.close();
      expect(performance.now() - started).toBeLessThan(10_000);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
