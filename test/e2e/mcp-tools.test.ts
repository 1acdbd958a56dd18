/**
 * `npm run inspect` and `npm run conformance` (infra/mcp-tools.ts) against a started server: the
 * proxy the conformance suite goes through adds the token, the Inspector gets it as a header, and
 * a refused token stops with the server's reason before either tool runs (the Inspector would fall
 * into an OAuth sign-in it cannot finish without a terminal).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBearerProxy } from '../../infra/bearer-proxy.ts';
import { REPO_ROOT, runScript } from '../support/cli.ts';
import { startTestServer } from '../support/server.ts';

const SCRIPT = path.join(REPO_ROOT, 'infra/mcp-tools.ts');

describe('the bearer proxy', () => {
  let echo: http.Server;
  let target: string;
  const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    echo = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        res.writeHead(207, { 'content-type': 'text/event-stream', 'x-answer': 'yes' }).end('data: {"ok":true}\n\n');
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    target = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => echo?.close(resolve));
  });

  it('forwards method, path, body and headers with the token, replacing any Authorization sent', async () => {
    const proxy = await startBearerProxy(target, 'egm_the-token');
    try {
      const answer = await fetch(`${proxy.url}/mcp?x=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer something-else', 'mcp-protocol-version': '2026-07-28' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      expect(answer.status).toBe(207);
      expect(answer.headers.get('x-answer')).toBe('yes');
      expect(await answer.text()).toBe('data: {"ok":true}\n\n');
      const got = seen.at(-1)!;
      expect(got).toMatchObject({ method: 'POST', url: '/mcp?x=1', body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
      expect(got.headers).toMatchObject({ authorization: 'Bearer egm_the-token', 'mcp-protocol-version': '2026-07-28', 'content-type': 'application/json' });
      // A loopback target sees the Host the client sent (DNS-rebinding checks judge it).
      expect(got.headers.host).toBe(new URL(proxy.url).host);
    } finally {
      await proxy.close();
    }
  });
});

describe('npm run inspect / npm run conformance', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let home: string;
  const env = () => ({ PATH: process.env.PATH ?? '', HOME: home, ENGRAM_DATA_DIR: server.dataDir });

  beforeAll(async () => {
    server = await startTestServer();
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-mcp-tools-'));
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('runs the conformance proxy with the token: a request without one reaches the workspace', async () => {
    const child = spawn(process.execPath, [SCRIPT, 'conformance', '--url', server.baseUrl, '--token', server.local!.owner_token, '--proxy-only'], {
      cwd: REPO_ROOT,
      env: env(),
    });
    try {
      const proxied = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const url = /Proxy adding the token: (\S+)\/mcp → /.exec(out)?.[1];
          if (url) resolve(url);
        });
        child.on('close', (code) => reject(new Error(`the script exited (${code}) before printing its proxy: ${out}`)));
      });
      const answer = await fetch(`${proxied}/api/v1/workspace`);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ engram_id: server.local!.engram_id });
    } finally {
      const exited = new Promise((resolve) => child.on('close', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }, 120_000);

  it('runs a conformance scenario through the proxy', async () => {
    const run = await runScript(SCRIPT, ['conformance', '--url', `${server.baseUrl}/mcp`, '--token', server.local!.owner_token, '--scenario', 'tools-list'], env());
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/Passed: (\d+)\/\1, 0 failed/);
  }, 120_000);

  it('runs the Inspector CLI with the token recorded in the data directory', async () => {
    const run = await runScript(SCRIPT, ['inspect', '--url', server.baseUrl, '--format', 'json'], env());
    expect(run.code, run.stderr).toBe(0);
    const listed = JSON.parse(run.stdout) as { result: { tools: { name: string }[] } };
    expect(listed.result.tools.map((t) => t.name)).toContain('engram_status');
  }, 120_000);

  it('stops at a refused token with the reason, before the Inspector can start a sign-in', async () => {
    const run = await runScript(SCRIPT, ['inspect', '--url', server.baseUrl, '--token', 'egm_wrong'], env());
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^${server.baseUrl} refused the token \\(401: The bearer token is not valid.*\\)\\. Pass a member token with --token\\.\\n$`));
    expect(run.stdout).toBe('');
  }, 60_000);
});
