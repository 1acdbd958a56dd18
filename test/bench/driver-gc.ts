/**
 * What a read costs the garbage collector: sequential reads of 60 rows of 1 kB (about what a
 * query's candidates are) through the service's own read path on Postgres (`TenantDb.read`: a
 * reserved connection, BEGIN READ ONLY with the tenant setup, the statement and COMMIT), with
 * V8's GC profiler on. A read's rows should die young; what a young-generation GC moves to the
 * old generation instead ("promoted") is kept until a full GC, and every scavenge that finds it
 * alive copies it. postgres.js made its settling closures in the old generation, which kept each
 * query's rows alive that way (see patches/postgres+3.4.9.patch); this measures it.
 *
 *   npm run bench:gc                       # 3,000 reads after 300 of warm-up
 *   npm run bench:gc -- --reads 10000
 *
 * Needs a Postgres where it may create a database (BENCH_DATABASE_URL, else TEST_DATABASE_URL,
 * else postgres://postgres@127.0.0.1:5432/postgres).
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { GCProfiler } from 'node:v8';
import { createDb, forWorkspace, migrate } from '@engram/db';
import { sql } from 'drizzle-orm';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';
import { gcSummary } from './gc-probe.ts';

const { values: args } = parseArgs({ options: { reads: { type: 'string', default: '3000' } } });
const READS = Number(args.reads);
if (!Number.isInteger(READS) || READS < 1) throw new Error(`--reads must be a positive whole number, not "${args.reads}"`);
const WARM_UP = 300;
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const url = await createScratchDatabase(ADMIN_URL, 'engram_bench');
const handle = await createDb({ kind: 'postgres', url }, { maxConnections: 1 });
try {
  await migrate(handle.db);
  // The read touches no table: the rows are made by the statement, so only the path is measured.
  const tenant = forWorkspace(handle.db, randomUUID());
  const read = async () => {
    const rows = await tenant.read<{ n: number; text: string }>(sql`select n, repeat('x', 1000) as text from generate_series(1, 60) n`);
    if (rows.length !== 60) throw new Error(`expected 60 rows, read ${rows.length}`);
  };
  for (let i = 0; i < WARM_UP; i++) await read();

  const profiler = new GCProfiler();
  profiler.start();
  const started = performance.now();
  for (let i = 0; i < READS; i++) await read();
  const elapsed = performance.now() - started;
  const { statistics } = profiler.stop();

  const gc = gcSummary(statistics);
  const per1000 = (x: number) => (x * 1000) / READS;
  process.stdout.write(
    `${READS.toLocaleString('en-US')} reads of 60 rows (TenantDb.read), ${(elapsed / READS).toFixed(2)} ms each:\n` +
      `  scavenges ${gc.scavenges}, ${gc.scavengeMs.toFixed(0)} ms in all (${per1000(gc.scavengeMs).toFixed(1)} ms per 1,000 reads)\n` +
      `  promoted to the old generation ${(gc.promoted / 2 ** 20).toFixed(1)} MiB (${(per1000(gc.promoted) / 2 ** 20).toFixed(2)} MiB per 1,000 reads)\n` +
      `  full GCs ${gc.fullGcs}, ${gc.fullGcMs.toFixed(0)} ms\n`,
  );
} finally {
  await handle.close();
  await dropScratchDatabase(ADMIN_URL, url);
}
