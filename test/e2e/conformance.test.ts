/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against a started server,
 * for the scenarios that apply to a server without the suite's fixture tools. The suite's client
 * cannot send a bearer token, so a local proxy adds it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBearerProxy, type BearerProxy } from '../support/bearer-proxy.ts';
import { REPO_ROOT } from '../support/cli.ts';
import { startTestServer } from '../support/server.ts';

const run = promisify(execFile);
const CONFORMANCE = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
/** The protocol revisions whose required scenarios must pass, each with its baseline of known failures. */
const REVISIONS = ['2026-07-28', '2025-11-25'];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO';
  errorMessage?: string;
}

describe('MCP conformance suite', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let proxy: BearerProxy;
  let outputDir: string;

  beforeAll(async () => {
    server = await startTestServer();
    proxy = await startBearerProxy(server.baseUrl, server.local!.owner_token);
    outputDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-conformance-'));
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.stop();
    fs.rmSync(outputDir, { recursive: true, force: true });
  });

  // The suite exits non-zero on a required scenario that fails outside the baseline, and on a
  // baselined one that passes (a stale entry): either is a failure here.
  it.each(REVISIONS)('passes the scenarios %s requires, outside its expected-failures baseline', async (revision) => {
    const dir = path.join(outputDir, revision);
    const baseline = path.join(REPO_ROOT, `test/conformance/expected-failures-${revision}.yml`);
    await run(
      process.execPath,
      [CONFORMANCE, 'server', '--url', `${proxy.url}/mcp`, '--requirements', revision, '--expected-failures', baseline, '--output-dir', dir, '--timeout', '60000'],
      { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`conformance ${revision} failed:\n${(error.stdout ?? '').slice(-8000)}\n${error.stderr ?? ''}`);
    });
    // The scenarios Engram is meant to pass did run, and passed.
    const checks = new Map<string, Check[]>(
      fs.readdirSync(dir).map((d) => [d.replace(/^server-|-\d{4}-\d{2}-\d{2}T.*$/g, ''), JSON.parse(fs.readFileSync(path.join(dir, d, 'checks.json'), 'utf8')) as Check[]]),
    );
    for (const scenario of ['tools-list', 'dns-rebinding-protection', ...(revision === '2026-07-28' ? ['server-stateless', 'http-header-validation'] : ['server-initialize', 'ping'])]) {
      const ran = checks.get(scenario);
      expect(ran, `${scenario} ran`).toBeDefined();
      expect(ran!.filter((c) => c.status === 'SUCCESS').length, scenario).toBeGreaterThan(0);
    }
  });
});
