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
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

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

  it.each(SCENARIOS)('passes %s', async (scenario) => {
    const scenarioDir = path.join(outputDir, scenario);
    const { stdout } = await run(
      process.execPath,
      [CONFORMANCE, 'server', '--url', `${proxy.url}/mcp`, '--scenario', scenario, '--output-dir', scenarioDir],
      { cwd: REPO_ROOT },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`conformance ${scenario} failed:\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
    });
    expect(stdout).toMatch(/0 failed/);
    const [resultDir] = fs.readdirSync(scenarioDir);
    const checks = JSON.parse(fs.readFileSync(path.join(scenarioDir, resultDir!, 'checks.json'), 'utf8')) as Check[];
    const failures = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    expect(failures, JSON.stringify(failures, null, 2)).toEqual([]);
    expect(checks.filter((c) => c.status === 'SUCCESS').length).toBeGreaterThan(0);
  });
});
