/**
 * How long an import of long facts takes (`importFacts`, as `POST /api/v1/facts/import` runs it,
 * without HTTP), on the embedded database or on Postgres: the first import of N facts of C
 * characters into a fresh workspace, then the same facts again (all duplicates). Wall time and
 * this process's CPU (the embedded database runs in it).
 *
 *   sh infra/with-node.sh node test/bench/import.ts                      # 500 facts of 2,000 characters, embedded
 *   sh infra/with-node.sh node test/bench/import.ts --count 1000 --chars 4000 --postgres
 *
 * --postgres creates (and drops) a database on BENCH_DATABASE_URL, else TEST_DATABASE_URL, else
 * postgres://postgres@127.0.0.1:5432/postgres.
 */
import { parseArgs } from 'node:util';
import { authenticateToken, ImportInput, importFacts, LocalEmbedder, provisionWorkspace, silentLogger } from '@engram/core';
import { createDb, migrate } from '@engram/db';
import { TEST_SECRET } from '../support/app.ts';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';

const { values } = parseArgs({
  options: { count: { type: 'string', default: '500' }, chars: { type: 'string', default: '2000' }, postgres: { type: 'boolean', default: false } },
});
const count = Number(values.count);
const chars = Number(values.chars);

const SERVICES = ['billing', 'auth', 'search', 'payments', 'ingest', 'notifications', 'gateway', 'scheduler'];
const TECHNOLOGIES = ['Redis', 'PostgreSQL 15', 'Kafka', 'nginx', 'Node 22', 'Go 1.22', 'S3', 'RabbitMQ'];

/** A long fact of about `length` characters, of sentences an agent writes, different for each i. */
function longFact(i: number, length: number): string {
  const parts: string[] = [];
  for (let k = 0; parts.join(' ').length < length; k++) {
    const service = SERVICES[(i + k) % SERVICES.length]!;
    const technology = TECHNOLOGIES[(i * 3 + k) % TECHNOLOGIES.length]!;
    const n = ((i + 1) * (k + 7)) % 997;
    parts.push(
      [
        `The ${service} service stores its sessions in ${technology} with a TTL of ${n} seconds since release 2.${k}.${i % 10}.`,
        `Retries for ${service} webhooks happen ${(n % 9) + 1} times with exponential backoff starting at ${n} ms, configured by ${service.toUpperCase()}_RETRY_LIMIT in config/${service}.yaml.`,
        `Deploys of ${service} to eu-west-1 go through the staging cluster first; the on-call team owns the rollback runbook (docs/runbooks/${service}-${i}.md).`,
        `We decided on ${technology} for ${service} because the previous queue dropped messages under load above ${n * 10} req/s.`,
      ][k % 4]!,
    );
  }
  return parts.join(' ').slice(0, length);
}

const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const scratch = values.postgres ? await createScratchDatabase(adminUrl, 'engram_bench_import') : undefined;
const handle = scratch
  ? await createDb({ kind: 'postgres', url: scratch }, { maxConnections: 5 })
  : await createDb({ kind: 'pglite', dataDir: 'memory://' });
try {
  await migrate(handle.db);
  const workspace = await provisionWorkspace(handle.db, TEST_SECRET, {});
  const principal = await authenticateToken(handle.db, workspace.ownerToken);
  const services = { db: handle.db, embedder: new LocalEmbedder(), secret: TEST_SECRET, log: silentLogger };
  const now = Date.now();
  const input = ImportInput.parse({
    facts: Array.from({ length: count }, (_, i) => ({
      content: longFact(i, chars),
      scope: `services/s${i % 20}`,
      agent_id: `agent-${i % 5}`,
      committed_at: new Date(now - (count - i) * 60_000).toISOString(),
    })),
  });
  for (const round of ['first import', 'again']) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const out = await importFacts(services, principal, input);
    const used = process.cpuUsage(cpu);
    process.stdout.write(
      `${scratch ? 'postgres' : 'embedded'}, ${count} facts of ${chars} characters, ${round}: ${((performance.now() - started) / 1000).toFixed(1)} s, ` +
        `${((used.user + used.system) / 1e6).toFixed(1)} s CPU; stored ${out.stored}, duplicates ${out.duplicates}, refused ${out.refused}\n`,
    );
  }
} finally {
  await handle.close();
  if (scratch) await dropScratchDatabase(adminUrl, scratch);
}
