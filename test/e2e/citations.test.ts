/**
 * Facts tied to the code (issue 57), against a started server: citations committed and returned
 * over MCP, `engram check` (the real CLI) against a git repository made here, its `--report`
 * raising stale questions and recording verifications, and engram_verify seen in the dashboard
 * API and the audit log. On PGlite and (with TEST_DATABASE_URL) Postgres.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommitOutput, ConflictsOutput, QueryOutput, VerificationsOutput, VerifyOutput } from '@engram/core';
import { auditLog, type Database } from '@engram/db';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../support/cli.ts';
import { callTool, connectMcp, mustCall, provisionOverHttp, serverEngines, startTestServer } from '../support/mcp.ts';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** Runs git in `dir` (a fixed identity: the machine's may be unset). */
function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim();
}

const RETRY_TS = ['export const BACKOFF_MS = 200;', 'export const MAX_RETRIES = 3;', '', 'export const JITTER = true;', ''].join('\n');

/** A repository with code, a doc and config files, one commit. */
function makeRepository(): { dir: string; sha: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-check-'));
  git(dir, 'init', '-q');
  fs.mkdirSync(path.join(dir, 'src'));
  fs.mkdirSync(path.join(dir, 'docs'));
  fs.mkdirSync(path.join(dir, 'config'));
  fs.writeFileSync(path.join(dir, 'src/retry.ts'), RETRY_TS);
  fs.writeFileSync(path.join(dir, 'docs/queue.md'), '# Queue\nJobs go through the outbox table.\n');
  fs.writeFileSync(path.join(dir, '.env'), 'SESSION_TIMEOUT=900\nLOG_LEVEL=info\n');
  fs.writeFileSync(path.join(dir, 'config/pool.json'), '{\n  "pool": {\n    "maxConnections": 20\n  }\n}\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  return { dir, sha: git(dir, 'rev-parse', 'HEAD') };
}

describe.each(serverEngines())('citations and engram check on $name', { timeout: 240_000 }, ({ overrides }) => {
  let server: Server;
  let db: Database;
  const clients: Client[] = [];
  const repos: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(overrides);
    db = server.db.db;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.stop();
    for (const dir of repos) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function workspace() {
    const created = await provisionOverHttp(server.baseUrl, { owner_display_name: 'Ada' });
    const client = await connectMcp(`${server.baseUrl}/mcp`, created.owner_token);
    clients.push(client);
    const commit = (args: Record<string, unknown>) => mustCall<CommitOutput>(client, 'engram_commit', { confidence: 0.9, ...args });
    /** Commits a fact citing one place at `sha`. */
    const cite = (sha: string, content: string, scope: string, citation: Record<string, unknown>) => commit({ content, scope, citations: [{ ...citation, commit: sha }] });
    const api = async <T>(route: string) => {
      const response = await fetch(`${server.baseUrl}${route}`, { headers: { authorization: `Bearer ${created.owner_token}` } });
      expect(response.status, route).toBe(200);
      return (await response.json()) as T;
    };
    const check = (repo: string, ...args: string[]) =>
      runCli(['check', '--repo', repo, '--url', server.baseUrl, '--token', created.owner_token, ...args], cliEnv({ ENGRAM_DATA_DIR: repo }));
    return { ...created, client, commit, cite, api, check };
  }

  /** Audit entries of a workspace for an action, polled until `count` are written (the log is buffered). */
  async function auditEntries(workspaceId: string, action: string, count: number) {
    for (;;) {
      const rows = await db.select().from(auditLog).where(and(eq(auditLog.workspaceId, workspaceId), eq(auditLog.action, action))).orderBy(auditLog.id);
      if (rows.length >= count) return rows;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('refuses citations it cannot use, naming the field and what to change', async () => {
    const ws = await workspace();
    const bad = async (citations: unknown) => {
      const outcome = await callTool(ws.client, 'engram_commit', { content: 'The cache TTL is 60 s.', scope: 'cache', confidence: 1, citations });
      expect(outcome.ok).toBe(false);
      return outcome.ok ? '' : outcome.error;
    };
    expect(await bad([{ path: '/srv/app/cache.ts' }])).toMatch(/citations\.0\.path.*relative to the repository root/);
    expect(await bad([{ path: 'src/../../etc/passwd' }])).toMatch(/citations\.0\.path.*must not contain "\.\."/);
    expect(await bad([{ path: 'cache.ts', start_line: 9, end_line: 2 }])).toMatch(/citations\.0\.end_line.*at least start_line/);
    expect(await bad([{ path: 'cache.ts', commit: 'HEAD' }])).toMatch(/citations\.0\.commit.*commit sha/);
    expect(await bad([{ path: 'cache.ts', repo: 'not a url' }])).toMatch(/citations\.0\.repo.*remote URL/);
    expect(await bad(Array.from({ length: 11 }, (_, i) => ({ path: `f${i}.ts` })))).toMatch(/at most 10 citations/);
  });

  it('imports facts with their citations (a bad one refused by its field) and exports them again', async () => {
    const ws = await workspace();
    const headers = { authorization: `Bearer ${ws.owner_token}`, 'content-type': 'application/json' };
    const citation = { path: 'infra/terraform/main.tf', start_line: 4, end_line: 9, commit: 'abcdef1' };
    const response = await fetch(`${server.baseUrl}/api/v1/facts/import`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        facts: [
          { content: 'Staging runs in eu-west-1.', scope: 'infra', committed_at: '2026-03-01T10:00:00Z', agent_id: 'importer', citations: [citation] },
          { content: 'Production runs in us-east-1.', scope: 'infra', committed_at: '2026-03-01T10:00:00Z', agent_id: 'importer', citations: [{ path: '../main.tf' }] },
        ],
      }),
    });
    expect(response.status).toBe(200);
    const imported = (await response.json()) as { stored: number; facts: ({ id: string } | { problems: { field: string; message: string }[] })[] };
    expect(imported.stored).toBe(1);
    expect(imported.facts[1]).toMatchObject({ problems: [{ field: 'facts.1.citations.0.path', message: expect.stringMatching(/must not contain "\.\."/) }] });
    const exported = await fetch(`${server.baseUrl}/api/v1/facts/since`, { headers });
    const lines = (await exported.text()).trim().split('\n').map((l) => JSON.parse(l) as { id: string; citations?: unknown });
    expect(lines.find((l) => l.id === (imported.facts[0] as { id: string }).id)?.citations).toEqual([citation]);
  });

  it('reports changed, vanished and disagreeing citations, raises stale questions with --report, and verifies the rest', async () => {
    const ws = await workspace();
    const { dir, sha } = makeRepository();
    repos.push(dir);
    const retries = await ws.cite(sha, 'Webhooks are retried 3 times (MAX_RETRIES in src/retry.ts).', 'payments/webhooks', { path: 'src/retry.ts', start_line: 2 });
    const backoff = await ws.cite(sha, 'The webhook retry backoff starts at 200 ms (BACKOFF_MS).', 'payments/webhooks', { path: 'src/retry.ts', start_line: 1, repo: 'https://github.com/acme/payments.git' });
    const queue = await ws.cite(sha, 'Background jobs go through the outbox table.', 'queue', { path: 'docs/queue.md', start_line: 2 });
    const session = await ws.cite(sha, 'The session timeout is 30 minutes, set by SESSION_TIMEOUT in .env.', 'auth', { path: '.env', start_line: 1 });
    const pool = await ws.cite(sha, 'The database pool allows 20 connections (maxConnections in config/pool.json).', 'db', { path: 'config/pool.json', start_line: 2, end_line: 4 });
    const uncited = await ws.commit({ content: 'Deploys happen on Tuesdays.', scope: 'ops' });

    // engram_query returns citations, with a link to the lines at that commit on GitHub.
    const found = await mustCall<QueryOutput>(ws.client, 'engram_query', { topic: 'webhook retry backoff BACKOFF_MS', scope: 'payments' });
    const shown = found.results.find((r) => r.fact_id === backoff.fact_id);
    expect(shown?.citations).toEqual([
      { path: 'src/retry.ts', start_line: 1, commit: sha, repo: 'https://github.com/acme/payments.git', url: `https://github.com/acme/payments/blob/${sha}/src/retry.ts#L1` },
    ]);
    const plain = await mustCall<QueryOutput>(ws.client, 'engram_query', { topic: 'deploys Tuesdays', scope: 'ops' });
    expect(plain.results.find((r) => r.fact_id === uncited.fact_id)).not.toHaveProperty('citations');

    // The change: MAX_RETRIES goes to 5 (a line is inserted above the backoff's too), the doc is deleted.
    fs.writeFileSync(path.join(dir, 'src/retry.ts'), `// retry settings\n${RETRY_TS.replace('MAX_RETRIES = 3', 'MAX_RETRIES = 5')}`);
    git(dir, 'rm', '-q', 'docs/queue.md');
    git(dir, 'commit', '-q', '-am', 'retry more, drop the queue doc');
    const changeSha = git(dir, 'rev-parse', 'HEAD');

    const checked = await ws.check(dir, '--json');
    expect(checked.code, checked.stderr).toBe(1);
    const report = JSON.parse(checked.stdout) as { head: string; facts: { fact_id: string; state: string; citations: { hunks?: { text: string }[]; changedIn?: string; now?: unknown }[] }[] };
    expect(report.head).toBe(changeSha);
    const stateOf = Object.fromEntries(report.facts.map((f) => [f.fact_id, f.state]));
    expect(stateOf).toEqual({
      [retries.fact_id!]: 'changed',
      [backoff.fact_id!]: 'unchanged',
      [queue.fact_id!]: 'gone',
      [session.fact_id!]: 'mismatch',
      [pool.fact_id!]: 'unchanged',
    });
    const changed = report.facts.find((f) => f.fact_id === retries.fact_id)!.citations[0]!;
    expect(changed.changedIn).toBe(changeSha);
    expect(changed.hunks!.map((h) => h.text).join('\n')).toContain('+export const MAX_RETRIES = 5;');
    // The untouched line moved down one: followed, not reported.
    expect(report.facts.find((f) => f.fact_id === backoff.fact_id)!.citations[0]!.now).toEqual({ start: 2, end: 2 });

    // The text report, sent to the server.
    const reported = await ws.check(dir, '--report');
    expect(reported.code, reported.stderr).toBe(1);
    expect(reported.stdout).toMatch(/CHANGED\s+\S+\s+\(payments\/webhooks\)/);
    expect(reported.stdout).toContain('+export const MAX_RETRIES = 5;');
    expect(reported.stdout).toMatch(/GONE .*\n\s+docs\/queue\.md line 2 .*the file is gone/);
    expect(reported.stdout).toMatch(/SESSION_TIMEOUT is 900 in the file; the fact says 30 minutes/);
    expect(reported.stdout).toMatch(/Reported: 2 verified, 3 stale question\(s\) raised, 0 already asked/);

    const stale = await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', { kind: 'stale' });
    const questions = stale.groups.flatMap((g) => g.conflicts);
    const about = (factId: string | null) => questions.filter((c) => c.facts.some((f) => f.fact_id === factId));
    expect(about(retries.fact_id)).toHaveLength(1);
    expect(about(retries.fact_id)[0]).toMatchObject({ kind: 'stale', detected_by: 'citation_check', status: 'open' });
    expect(about(retries.fact_id)[0]!.question).toBe(`The code this fact cites changed in ${changeSha.slice(0, 12)}: is it still true?`);
    expect(about(retries.fact_id)[0]!.facts[0]!.citations).toEqual([{ path: 'src/retry.ts', start_line: 2, commit: sha }]);
    expect(about(queue.fact_id)[0]!.question).toMatch(/docs\/queue\.md\) is gone/);
    expect(about(session.fact_id)[0]!.question).toMatch(/SESSION_TIMEOUT/);
    expect(about(backoff.fact_id)).toEqual([]);
    expect(about(pool.fact_id)).toEqual([]);
    expect(questions).toHaveLength(3);

    // Unchanged ones are verified (in the dashboard API), each in the audit log.
    const verifications = await ws.api<VerificationsOutput>(`/api/v1/facts/${backoff.fact_id}/verifications`);
    expect(verifications.verifications).toEqual([
      expect.objectContaining({ status: 'still_true', source: 'check', commit: changeSha, member: 'Ada' }),
    ]);
    expect(verifications.verified_at).not.toBeNull();
    const checkAudit = await auditEntries(ws.workspace_id, 'engram check', 5);
    expect(checkAudit.map((e) => e.summary.fact_id).sort()).toEqual([retries.fact_id, backoff.fact_id, queue.fact_id, session.fact_id, pool.fact_id].sort());

    // Reporting again asks nothing twice and verifies nothing twice at the same commit.
    const again = await ws.check(dir, '--report');
    expect(again.stdout).toMatch(/Reported: 0 verified, 0 stale question\(s\) raised, 3 already asked/);
    const after = await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', { kind: 'stale' });
    expect(after.total).toBe(3);

    // A person answers one: still true (the fact is kept, the question settled), and it stays answered.
    const answered = await mustCall<{ status: string; closed_fact_ids: string[] }>(ws.client, 'engram_resolve', {
      conflict_id: about(session.fact_id)[0]!.conflict_id,
      resolution_type: 'winner',
      winning_claim_id: session.fact_id,
      resolution: 'Checked: production overrides SESSION_TIMEOUT to 1800.',
    });
    expect(answered).toMatchObject({ status: 'resolved', closed_fact_ids: [] });
    const stillCurrent = await mustCall<QueryOutput>(ws.client, 'engram_query', { topic: 'session timeout', scope: 'auth' });
    expect(stillCurrent.results.map((r) => r.fact_id)).toContain(session.fact_id);
    expect((await ws.check(dir, '--report')).stdout).toMatch(/0 stale question\(s\) raised, 3 already asked/);
  });

  it('exits 0 when every cited line is untouched, and a value that agrees is not reported', async () => {
    const ws = await workspace();
    const { dir, sha } = makeRepository();
    repos.push(dir);
    await ws.cite(sha, 'The database pool allows 20 connections (maxConnections in config/pool.json).', 'db', { path: 'config/pool.json', start_line: 3 });
    await ws.commit({ content: 'The log level is info (LOG_LEVEL in .env).', scope: 'ops', citations: [{ path: '.env', start_line: 2, commit: sha }] });
    // A change elsewhere in a cited file, and in another file.
    fs.appendFileSync(path.join(dir, '.env'), 'FEATURE_X=on\n');
    fs.writeFileSync(path.join(dir, 'src/retry.ts'), RETRY_TS.replace('200', '250'));
    git(dir, 'commit', '-q', '-am', 'elsewhere');
    const checked = await ws.check(dir);
    expect(checked.stdout, checked.stderr).toMatch(/2 unchanged, 0 changed, 0 gone, 0 config value\(s\) disagreeing/);
    expect(checked.code).toBe(0);
  });

  it('engram_verify: still true is recorded and ranked, outdated asks people, replaced_by settles; all in the dashboard API and the audit log', async () => {
    const ws = await workspace();
    const sha = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
    const fact = await ws.commit({
      content: 'Invoices are rendered with wkhtmltopdf in the billing worker.',
      scope: 'billing',
      citations: [{ path: 'workers/billing/render.py', start_line: 10, end_line: 14, commit: sha }],
    });

    const verified = await mustCall<VerifyOutput>(ws.client, 'engram_verify', {
      fact_id: fact.fact_id,
      status: 'still_true',
      commit: sha,
      evidence: 'render.py:12 still calls wkhtmltopdf.',
    });
    expect(verified).toMatchObject({ fact_id: fact.fact_id, status: 'still_true', outcome: 'verified', conflict_id: null });
    const queried = await mustCall<QueryOutput>(ws.client, 'engram_query', { topic: 'how are invoices rendered', scope: 'billing' });
    expect(queried.results[0]).toMatchObject({ fact_id: fact.fact_id, verified_at: verified.verified_at });

    // The dashboard API: the knowledge base and the fact's verifications.
    const listed = await ws.api<{ facts: { id: string; verified_at: string | null; citations?: unknown[] }[] }>('/api/v1/facts?scope=billing');
    expect(listed.facts.find((f) => f.id === fact.fact_id)).toMatchObject({ verified_at: verified.verified_at, citations: [expect.objectContaining({ path: 'workers/billing/render.py' })] });
    const history = await ws.api<VerificationsOutput>(`/api/v1/facts/${fact.fact_id}/verifications`);
    expect(history.verifications).toEqual([
      expect.objectContaining({ status: 'still_true', source: 'agent', commit: sha, evidence: 'render.py:12 still calls wkhtmltopdf.', member: 'Ada' }),
    ]);

    // Outdated: a stale question for people (once while open).
    const outdated = await mustCall<VerifyOutput>(ws.client, 'engram_verify', { fact_id: fact.fact_id, status: 'outdated', evidence: 'render.py now imports weasyprint.' });
    expect(outdated.outcome).toBe('stale_raised');
    const twice = await mustCall<VerifyOutput>(ws.client, 'engram_verify', { fact_id: fact.fact_id, status: 'outdated' });
    expect(twice).toMatchObject({ outcome: 'stale_already_open', conflict_id: outdated.conflict_id });
    const open = await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', { kind: 'stale' });
    expect(open.groups.flatMap((g) => g.conflicts)).toEqual([
      expect.objectContaining({ conflict_id: outdated.conflict_id, detected_by: 'agent_verify', explanation: 'render.py now imports weasyprint.' }),
    ]);

    // The conflicts resource shows what the fact cites too.
    const resource = await ws.client.readResource({ uri: 'engram://conflicts' });
    const fromResource = JSON.parse((resource.contents[0] as { text: string }).text) as ConflictsOutput;
    expect(fromResource.groups.flatMap((g) => g.conflicts)[0]!.facts[0]!.citations).toEqual([
      { path: 'workers/billing/render.py', start_line: 10, end_line: 14, commit: sha },
    ]);

    // With the fact that replaces it: settled, the old fact closed, the question moot.
    const now = await ws.commit({ content: 'Invoices are rendered with WeasyPrint in the billing worker.', scope: 'billing' });
    const settled = await mustCall<VerifyOutput>(ws.client, 'engram_verify', { fact_id: fact.fact_id, status: 'outdated', replaced_by: now.fact_id });
    expect(settled.outcome).toBe('settled');
    const all = await mustCall<ConflictsOutput>(ws.client, 'engram_conflicts', { status: 'all' });
    const conflicts = all.groups.flatMap((g) => g.conflicts);
    expect(conflicts.find((c) => c.conflict_id === settled.conflict_id)).toMatchObject({ status: 'resolved', resolution_type: 'detector', winning_fact_id: now.fact_id });
    expect(conflicts.find((c) => c.conflict_id === outdated.conflict_id)).toMatchObject({ status: 'resolved' });
    const current = await mustCall<QueryOutput>(ws.client, 'engram_query', { topic: 'how are invoices rendered', scope: 'billing' });
    expect(current.results.map((r) => r.fact_id)).not.toContain(fact.fact_id);

    // Refusals say what to change.
    const wrong = await callTool(ws.client, 'engram_verify', { fact_id: fact.fact_id, status: 'still_true', replaced_by: now.fact_id });
    expect(wrong.ok ? '' : wrong.error).toMatch(/replaced_by: is only for status "outdated"/);
    const unknown = await callTool(ws.client, 'engram_verify', { fact_id: '00000000-0000-4000-8000-000000000000', status: 'unsure' });
    expect(unknown.ok ? '' : unknown.error).toMatch(/not found/);

    // Every verification in the audit log, with the fact and the status.
    const audited = await auditEntries(ws.workspace_id, 'engram_verify', 5);
    expect(audited.filter((e) => e.outcome === 'ok').map((e) => [e.summary.fact_id, e.summary.status])).toEqual([
      [fact.fact_id, 'still_true'],
      [fact.fact_id, 'outdated'],
      [fact.fact_id, 'outdated'],
      [fact.fact_id, 'outdated'],
    ]);
  });
});
