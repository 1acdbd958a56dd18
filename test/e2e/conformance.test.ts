/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against a started server,
 * for the scenarios that apply to a server without the suite's fixture tools. The suite's client
 * cannot send a bearer token, so a local proxy adds it.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard, staleReason } from '../../infra/dashboard-build.ts';
import { startBearerProxy, type BearerProxy } from '../../infra/bearer-proxy.ts';
import { REPO_ROOT } from '../support/cli.ts';
import { startTestServer } from '../support/server.ts';

const run = promisify(execFile);
const CHROMIUM = process.env.ENGRAM_CHROMIUM ?? '/usr/bin/chromium';
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

/**
 * The suite's authorization-server scenarios against the built-in OAuth server: its metadata, and
 * a full authorization code grant, with the consent given in headless Chromium.
 */
describe('MCP conformance suite: authorization server', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let browser: Browser;
  let outputDir: string;

  beforeAll(async () => {
    if (staleReason()) await buildDashboard();
    server = await startTestServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    outputDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-conformance-auth-'));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (outputDir) fs.rmSync(outputDir, { recursive: true, force: true });
  });

  it('passes the metadata and authorization code grant scenarios', async () => {
    const port = await freePort();
    const registered = await fetch(`${server.baseUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Conformance suite', redirect_uris: [`http://127.0.0.1:${port}/callback`], token_endpoint_auth_method: 'none' }),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const suite = spawn(
      process.execPath,
      [CONFORMANCE, 'authorization', '--url', server.baseUrl, '--client-id', clientId, '--resource', `${server.baseUrl}/mcp`, '--port', String(port), '--output-dir', outputDir],
      { cwd: REPO_ROOT },
    );
    let stdout = '';
    let stderr = '';
    suite.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => suite.on('close', resolve));
    // The suite prints the authorization URL for a person to open, then waits for the callback.
    const authorizationUrl = await new Promise<string>((resolve, reject) => {
      suite.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const url = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(stdout)?.[1];
        if (url) resolve(url);
      });
      void exited.then((code) => reject(new Error(`the suite exited (${code}) before asking for consent:\n${stdout}\n${stderr}`)));
    });
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(authorizationUrl);
    await page.getByLabel('Member token').fill(server.local!.owner_token);
    await page.getByRole('button', { name: 'Allow' }).click();
    const code = await exited;
    await page.context().close();
    const checks = fs
      .readdirSync(outputDir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('checks.json'))
      .flatMap((file) => JSON.parse(fs.readFileSync(path.join(outputDir, file), 'utf8')) as Check[]);
    const status = Object.fromEntries(checks.map((c) => [c.id, `${c.status}${c.errorMessage ? `: ${c.errorMessage}` : ''}`]));
    expect(status, stdout).toMatchObject({
      'authorization-server-metadata': 'SUCCESS',
      'authorization-server-metadata-cimd': 'SUCCESS',
      'authorization-code-grant': 'SUCCESS',
    });
    expect(code, stdout).toBe(0);
  }, 180_000);
});

/** A port nothing listens on now (the suite's callback server takes it). */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
