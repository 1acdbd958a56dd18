/**
 * Evaluates conflict detection on a stories file: per-story outcomes, precision, recall and
 * violated expectations.
 *
 *   npm run eval:detection -- [FILE] [--url URL --admin-token TOKEN] [--json]
 *
 * FILE defaults to the dev stories (test/data/detection/dev-stories.json). Without --url, a
 * service is started in this process on a fresh in-memory embedded database, with its in-process
 * detection worker; with --url, the stories run against that service (its operator token from
 * --admin-token or ENGRAM_ADMIN_TOKEN; each story creates a workspace there).
 *
 * The embedded service runs the narrative detective when OPENAI_API_KEY is set (OPENAI_BASE_URL,
 * ENGRAM_DETECTIVE_MODEL as for the service), so the same command measures the deterministic
 * tiers alone or with the LLM pass; facts are embedded locally either way.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { configFor, loadConfig } from '@engram/config';
import { createLogger, startServer } from '@engram/server';
import { runStories } from './runner.ts';
import { formatReport, loadStories, summarize } from './stories.ts';

const DEFAULT_FILE = path.join(import.meta.dirname, '../data/detection/dev-stories.json');

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    'admin-token': { type: 'string' },
    json: { type: 'boolean', default: false },
    concurrency: { type: 'string', default: '4' },
  },
});

const file = loadStories(positionals[0] ?? DEFAULT_FILE);
let baseUrl = values.url;
let adminToken = values['admin-token'] ?? process.env.ENGRAM_ADMIN_TOKEN;
let stop = async () => {};

if (!baseUrl) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-eval-'));
  adminToken = randomBytes(24).toString('base64url');
  const config = configFor({
    logLevel: 'warn',
    host: '127.0.0.1',
    port: 0,
    dataDir,
    database: { kind: 'pglite', dataDir: 'memory://' },
    secret: randomBytes(32).toString('base64url'),
    adminToken,
    publicUrl: undefined,
    inProcessWorker: true,
    openai: loadConfig({
      OPENAI_API_KEY: process.env.OPENAI_API_KEY,
      OPENAI_BASE_URL: process.env.OPENAI_BASE_URL,
      ENGRAM_DETECTIVE_MODEL: process.env.ENGRAM_DETECTIVE_MODEL,
    }).openai,
    embeddings: loadConfig({}).embeddings,
    // Every story is its own workspace, all from this one client: lift the signup limit.
    anonymousLimits: { requestsPerMinute: 100_000, signupsPerHour: 100_000 },
  });
  process.stderr.write(
    config.openai.apiKey
      ? `narrative detective on (${config.openai.detectiveModel}${config.openai.baseUrl ? ` at ${config.openai.baseUrl}` : ''})\n`
      : 'narrative detective off (no OPENAI_API_KEY): deterministic tiers only\n',
  );
  const server = await startServer(config, createLogger(config));
  baseUrl = server.baseUrl;
  stop = async () => {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
} else if (!adminToken) {
  process.stderr.write('--url needs the operator token: pass --admin-token or set ENGRAM_ADMIN_TOKEN.\n');
  process.exit(2);
}

try {
  const started = performance.now();
  const outcomes = await runStories({ baseUrl, adminToken: adminToken ?? '', concurrency: Number(values.concurrency) }, file);
  const summary = summarize(outcomes);
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ summary, outcomes: outcomes.map(({ observation, ...o }) => ({ ...o, current: [...observation.current].sort(), conflicts: observation.conflicts })) }, null, 2)}\n`,
    );
  } else {
    process.stdout.write(`${formatReport(outcomes, summary)}\n\n${file.stories.length} stories in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }
} finally {
  await stop();
}
