/**
 * One detection run over a busy workspace's backlog, alone: what the concurrency bench's drain is
 * made of, without the load around it.
 *
 *   npm run bench:drain                              # 10,000 facts, 1,800 queued commits, 3 runs, Postgres
 *   npm run bench:drain -- --size 10000 --burst 1800 --runs 5
 *   npm run bench:drain -- --per-run 150              # the backlog as a steady load's runs take it
 *
 * Seeds a workspace with the benchmark story (test/bench/seed.ts), commits `--burst` more facts
 * through the real commit pipeline (each queues its detection job, but for the few another agent
 * had already stated, which count as corroboration), and keeps that database as a template. Each run
 * copies the template (CREATE DATABASE ... TEMPLATE, then ANALYZE) and times `runDeterministicPass`
 * over every queued trigger, as the worker would claim them: the same input every run. Prints each
 * run's time and this process's CPU time in it (the detector's own work, its collector's threads
 * included and Postgres's not: steadier than the time on a shared machine), the fact rows it read,
 * and the conflicts and retirements it applied. With `--per-run N` the queue is taken N triggers at
 * a time, one run after another in commit order (as a worker keeps up with a steady load), and the
 * totals are printed. Needs Postgres with pgvector where it may create databases
 * (BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres);
 * every database it creates is dropped.
 */
import { parseArgs } from 'node:util';
import { commitFact, CommitInput, runDeterministicPass, silentLogger } from '@engram/core';
import { createDb, type RunStats } from '@engram/db';
import postgres from 'postgres';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';
import { BULK_LIMITS, factText, seededWorkspace } from './seed.ts';
import { fmt, median } from './stats.ts';

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '10000' },
    burst: { type: 'string', default: '1800' },
    runs: { type: 'string', default: '3' },
    'per-run': { type: 'string', default: '0' },
  },
});
const SIZE = Number(args.size);
const BURST = Number(args.burst);
const RUNS = Number(args.runs);
const PER_RUN = Number(args['per-run']);
if (![SIZE, BURST, RUNS, PER_RUN].every((n) => Number.isInteger(n) && n >= 0) || RUNS < 1) {
  throw new Error('--size, --burst, --runs and --per-run must be whole numbers (--runs at least 1; --per-run 0 takes the whole queue in one run)');
}
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const nameOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

const template = await createScratchDatabase(ADMIN_URL, 'engram_bench_drain_template');
const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
try {
  const { handle, principal, services } = await seededWorkspace(template, SIZE, { name: 'drain bench', maxConnections: 4 });
  try {
    for (let i = 0; i < BURST; i++) {
      await commitFact(services, principal, CommitInput.parse({ ...factText(1_000_000 + i), confidence: 0.9, agent_id: `bench-agent-${i % 50}` }));
    }
  } finally {
    await handle.close();
  }

  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const copy = await createScratchDatabase(ADMIN_URL, 'engram_bench_drain');
    try {
      // The new database is empty: it is dropped and made again as a copy of the template.
      await admin.unsafe(`drop database "${nameOf(copy)}"`);
      await admin.unsafe(`create database "${nameOf(copy)}" template "${nameOf(template)}"`);
      const direct = postgres(copy, { max: 1, onnotice: () => {} });
      const jobs = await direct<{ workspace_id: string; trigger_fact_id: string }[]>`
        select workspace_id, trigger_fact_id from detection_jobs where trigger_fact_id is not null order by id`;
      await direct.unsafe('analyze');
      await direct.end();
      if (jobs.length === 0) throw new Error('no detection job was queued: nothing to drain');
      const handle = await createDb({ kind: 'postgres', url: copy }, { maxConnections: 4, limits: BULK_LIMITS });
      try {
        const triggers = jobs.map((j) => j.trigger_fact_id);
        const perRun = PER_RUN || triggers.length;
        const stats: RunStats = { factsRead: 0, conflictsRaised: 0, factsRetired: 0 };
        const started = performance.now();
        const cpuBefore = process.cpuUsage();
        for (let at = 0; at < triggers.length; at += perRun) {
          const one = await runDeterministicPass(
            { db: handle.db, log: silentLogger },
            { runId: `drain-${run}-${at}`, workspaceId: jobs[0]!.workspace_id, triggerFactIds: triggers.slice(at, at + perRun) },
          );
          stats.factsRead += one.factsRead;
          stats.conflictsRaised += one.conflictsRaised;
          stats.factsRetired += one.factsRetired;
        }
        const ms = performance.now() - started;
        const cpu = process.cpuUsage(cpuBefore);
        const cpuMs = (cpu.user + cpu.system) / 1000;
        times.push(ms);
        cpuTimes.push(cpuMs);
        process.stdout.write(
          `run ${run + 1}: ${jobs.length.toLocaleString('en-US')} triggers${PER_RUN ? ` in runs of ${PER_RUN}` : ''} in ${fmt(ms)} (${fmt(cpuMs)} of CPU), ${stats.factsRead.toLocaleString('en-US')} facts read, ` +
            `${stats.conflictsRaised} conflicts raised, ${stats.factsRetired} facts retired\n`,
        );
      } finally {
        await handle.close();
      }
    } finally {
      await dropScratchDatabase(ADMIN_URL, copy);
    }
  }
  process.stdout.write(
    `Detection over a backlog, ${SIZE.toLocaleString('en-US')} facts and ${BURST.toLocaleString('en-US')} commits (Postgres${PER_RUN ? `, runs of ${PER_RUN}` : ''}): median ${fmt(median(times))} of ${RUNS} runs, ${fmt(median(cpuTimes))} of CPU\n`,
  );
} finally {
  await admin.end();
  await dropScratchDatabase(ADMIN_URL, template);
}
