/**
 * Cost of the commit path's secret scan: `findSecret` per call on typical ~200-character facts
 * (no secret in them, so every rule that can run does), after a warm-up.
 *
 *   npm run bench:secrets -- [calls=20000]
 */
import { findSecret } from '../../packages/core/src/facts/secrets.ts';
import { percentile } from './stats.ts';

const FACTS = [
  'The auth service rate-limits to 1000 req/s per IP using a sliding window in Redis; the limit is read from AUTH_RATE_LIMIT and the window from AUTH_RATE_WINDOW_MS, both set in the Helm values.',
  'Billing runs its nightly cron at 02:00 UTC on the worker pool; retries back off 1s, 2s, 4s up to a minute, and a failed invoice run pages #billing-oncall through PagerDuty after 3 attempts.',
  'We pinned postgres to 16.4 and pgvector to 0.8.0 in the Dockerfile after the 0.7.x HNSW build was too slow; see commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 for the benchmark numbers.',
  'The Stripe API key lives in STRIPE_API_KEY (1Password vault "payments"); rotate it with scripts/rotate-stripe.sh and then restart the checkout deployment so the pods pick it up.',
  'Session cookies are signed with HMAC-SHA256 using the key in SESSION_SIGNING_KEY, and the dashboard at https://dash.example.com/settings expires them after 12 hours of inactivity.',
  'The mobile app talks to api.example.com/v2 through Cloudflare; requests carry an Authorization: Bearer <token> header and the gateway rejects anything without workspace_id in the path.',
  'Workspace 5f0c1a9e-4b7e-4c55-9f0a-2d1e3c4b5a69 is the staging tenant; its data is reset every Monday by the reset-staging job, which also reseeds the demo facts from fixtures/demo.ndjson.',
  'Release v2.14.3 shipped the new importer; the tarball checksum is sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 and it is mirrored to the S3 bucket engram-releases.',
];

const calls = Number(process.argv[2] ?? 20_000);
for (let i = 0; i < 2_000; i++) findSecret(FACTS[i % FACTS.length]!);

const micros: number[] = [];
for (let i = 0; i < calls; i++) {
  const text = FACTS[i % FACTS.length]!;
  const start = process.hrtime.bigint();
  const found = findSecret(text);
  micros.push(Number(process.hrtime.bigint() - start) / 1_000);
  if (found) throw new Error(`bench fact ${i % FACTS.length} was flagged as ${found.name}; pick facts without secrets`);
}
const mean = FACTS.reduce((sum, f) => sum + f.length, 0) / FACTS.length;
process.stdout.write(
  `findSecret on ${FACTS.length} facts of ~${Math.round(mean)} chars, ${calls} calls: ` +
    `p50 ${percentile(micros, 50).toFixed(1)} µs, p99 ${percentile(micros, 99).toFixed(1)} µs, max ${Math.max(...micros).toFixed(0)} µs\n`,
);
