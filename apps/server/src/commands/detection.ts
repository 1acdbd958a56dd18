/**
 * `engram detection status|requeue`: operator tools with database access, like `engram member`,
 * for detection work that failed or is stuck. `requeue` makes failed jobs pending again (due now,
 * attempts reset) in one workspace or all of them, and is audited in each workspace it touched.
 *
 * The embedded database can only be opened by one process: while `engram start` holds it, both
 * commands ask that server instead, as its owner (the token it recorded in ENGRAM_DATA_DIR, or
 * --url and --token), which covers its default workspace.
 */
import { parseArgs } from 'node:util';
import type { Config } from '@engram/config';
import { AuditLog, describeBacklog } from '@engram/core';
import { detectionBacklog, findWorkspaceByEngramId, migrate, requeueFailedJobs, type DbHandle } from '@engram/db';
import { localOwnerToken, localServerUrl } from '../local-server.ts';
import { createLogger } from '../logger.ts';
import { openUnlessHeld, serverClient } from './running-server.ts';

const USAGE = [
  'Usage: engram detection status [--workspace ENG-XXXX-XXXX] [--json]',
  '       engram detection requeue (--workspace ENG-XXXX-XXXX | --all)',
].join('\n');

interface Options {
  workspace?: string;
  all: boolean;
  json: boolean;
  url?: string;
  token?: string;
}

export async function detectionCommand(config: Config, args: string[]): Promise<number> {
  const [action, ...rest] = args;
  let values: Options;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        workspace: { type: 'string' },
        all: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        url: { type: 'string' },
        token: { type: 'string' },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (action !== 'status' && action !== 'requeue') {
    process.stderr.write(`${action ? `Unknown detection command "${action}".\n` : ''}${USAGE}\n`);
    return 2;
  }
  if (action === 'requeue' && !values.workspace === !values.all) {
    process.stderr.write(`Say which failed jobs to requeue: --workspace ENG-XXXX-XXXX for one workspace, or --all for every workspace.\n${USAGE}\n`);
    return 2;
  }

  const db = await openUnlessHeld(config);
  if (!db) return viaRunningServer(config, action, values);
  try {
    await migrate(db.db);
    const workspace = values.workspace ? await findWorkspaceByEngramId(db.db, values.workspace) : undefined;
    if (values.workspace && !workspace) {
      process.stderr.write(`No workspace ${values.workspace} on this database.\n`);
      return 1;
    }
    const scope = workspace ? { workspaceId: workspace.id } : {};
    return action === 'status' ? await printStatus(db, scope, values.json) : await requeue(config, db, scope, values.workspace);
  } finally {
    await db.close();
  }
}

/** Pending, running, failed and stuck jobs per workspace, and what to do about them. */
async function printStatus(db: DbHandle, scope: { workspaceId?: string }, json: boolean): Promise<number> {
  const backlog = await detectionBacklog(db.db, scope);
  if (json) {
    const rows = backlog.map((b) => ({
      engram_id: b.engramId,
      name: b.name,
      pending: b.pending,
      running: b.running,
      failed: b.failed,
      retrying: b.retrying,
      stuck: b.stuck,
      stalled_runs: b.stalledRuns,
      stuck_since: b.stuckSince?.toISOString() ?? null,
      last_error: b.lastError?.message ?? null,
    }));
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  if (backlog.length === 0) {
    process.stdout.write('No detection work waiting: every job is done (pending 0, running 0, failed 0, stuck 0).\n');
    return 0;
  }
  const lines = backlog.map((b) =>
    [
      b.engramId,
      `pending ${b.pending}`.padEnd(13),
      `running ${b.running}`.padEnd(13),
      `failed ${b.failed}`.padEnd(12),
      `stuck ${b.stuck}`.padEnd(11),
      b.retrying ? `(${b.retrying} retrying after a failed run)` : '',
    ]
      .join('  ')
      .trimEnd(),
  );
  const advice = backlog.flatMap((b) => {
    const { note } = describeBacklog(b, b.engramId);
    return note ? [`${b.engramId}: ${note}${b.lastError ? ` Last error: ${b.lastError.message}` : ''}`] : [];
  });
  const failed = backlog.reduce((n, b) => n + b.failed, 0);
  process.stdout.write(
    [
      'Detection jobs not done, per workspace:',
      ...lines.map((l) => `  ${l}`),
      ...(advice.length ? ['', ...advice] : []),
      ...(failed > 0 ? ['', `Requeue failed jobs with: engram detection requeue ${scope.workspaceId ? `--workspace ${backlog[0]!.engramId}` : '--all'}`] : []),
      '',
    ].join('\n'),
  );
  return 0;
}

/** Requeues failed jobs and audits it in every workspace it touched. */
async function requeue(config: Config, db: DbHandle, scope: { workspaceId?: string }, engramId: string | undefined): Promise<number> {
  const started = performance.now();
  const requeued = await requeueFailedJobs(db.db, scope);
  const audit = new AuditLog(db.db, createLogger(config));
  for (const r of requeued) {
    audit.record({
      workspaceId: r.workspaceId,
      memberId: null,
      tokenId: null,
      actor: 'operator',
      action: 'engram detection requeue',
      summary: { requeued: r.jobs, all_workspaces: !scope.workspaceId },
      outcome: 'ok',
      errorCode: null,
      durationMs: performance.now() - started,
    });
  }
  await audit.close();
  const total = requeued.reduce((n, r) => n + r.jobs, 0);
  const where = engramId ? `in ${engramId.toUpperCase()}` : `across ${requeued.length} workspace${requeued.length === 1 ? '' : 's'}`;
  process.stdout.write(
    total === 0
      ? `No failed detection jobs to requeue ${engramId ? `in ${engramId.toUpperCase()}` : 'in any workspace'}.\n`
      : [
          `Requeued ${total} failed detection job${total === 1 ? '' : 's'} ${where}: they are due now, with their attempts reset.`,
          ...(engramId ? [] : requeued.map((r) => `  ${r.engramId}  ${r.jobs}`)),
          'A running detection worker picks them up within seconds.',
          '',
        ].join('\n'),
  );
  return 0;
}

/** The embedded database is open in `engram start`: ask that server, as its owner. */
async function viaRunningServer(config: Config, action: 'status' | 'requeue', values: Options): Promise<number> {
  const url = localServerUrl(config, values.url);
  const token = values.token ?? localOwnerToken(config.dataDir);
  if (!token) {
    process.stderr.write(
      `The embedded database in ${config.dataDir} is open in a running engram start, and no owner token is recorded there. ` +
        'Stop the server and run this again, or pass --url and --token (an owner token).\n',
    );
    return 1;
  }
  const { call } = serverClient(url, token);
  const workspace = await call<{ engram_id: string; name: string }>('GET', '/api/v1/workspace');
  if (values.workspace && values.workspace.toUpperCase() !== workspace.engram_id) {
    process.stderr.write(
      `The running server's owner token is for ${workspace.engram_id}, not ${values.workspace}: stop the server to reach every workspace, or pass --token for that workspace.\n`,
    );
    return 1;
  }
  process.stderr.write(`(The embedded database is open in the running server; asking it at ${url} for ${workspace.engram_id}.)\n`);
  if (action === 'requeue') {
    const { requeued } = await call<{ requeued: number }>('POST', '/api/v1/detection/requeue');
    process.stdout.write(
      requeued === 0
        ? `No failed detection jobs to requeue in ${workspace.engram_id}.\n`
        : `Requeued ${requeued} failed detection job${requeued === 1 ? '' : 's'} in ${workspace.engram_id}: they are due now, with their attempts reset.\n`,
    );
    return 0;
  }
  const status = await call<{ pending_jobs: number; running_jobs: number; failed_jobs: number; stuck_jobs: number; note: string | null }>(
    'GET',
    '/api/v1/detection/status',
  );
  if (values.json) {
    process.stdout.write(`${JSON.stringify([{ engram_id: workspace.engram_id, name: workspace.name, pending: status.pending_jobs, running: status.running_jobs, failed: status.failed_jobs, stuck: status.stuck_jobs }], null, 2)}\n`);
    return 0;
  }
  process.stdout.write(
    `${workspace.engram_id}  pending ${status.pending_jobs}  running ${status.running_jobs}  failed ${status.failed_jobs}  stuck ${status.stuck_jobs}\n` +
      (status.note ? `${status.note}\n` : ''),
  );
  return 0;
}
