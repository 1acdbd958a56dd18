/**
 * The whole OAuth flow as a real client runs it, against a started `engram start`: the SDK's own
 * client OAuth support discovers the authorization server from a 401, registers (a Client ID
 * Metadata Document served over https by a local server, and Dynamic Client Registration), sends
 * the browser to the consent page (headless Chromium signs in with a member token, or joins with an
 * invite key), exchanges the code with PKCE, calls tools with the access token, refreshes it when
 * it stops working, and is refused after revocation.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard, staleReason } from '../../infra/dashboard-build.ts';
import { cliEnv, startCli, type StartedCli } from '../support/cli.ts';

const CHROMIUM = process.env.ENGRAM_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOTS = path.join(import.meta.dirname, '../artifacts/screenshots');

/** A client's OAuth state, kept in memory as a desktop client would keep it on disk. */
class MemoryProvider implements OAuthClientProvider {
  information: StoredOAuthClientInformation | undefined;
  stored: StoredOAuthTokens | undefined;
  verifier = '';
  /** Where the SDK sent the user to sign in (the test opens it in the browser). */
  authorizationUrl: URL | undefined;

  readonly redirectUrl: string;
  readonly clientMetadataUrl: string | undefined;

  constructor(redirectUrl: string, clientMetadataUrl?: string) {
    this.redirectUrl = redirectUrl;
    this.clientMetadataUrl = clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'E2E Agent', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: StoredOAuthClientInformation) {
    this.information = information;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A loopback http server that records the authorization responses sent to `/callback`. */
async function callbackServer() {
  const waiting: ((url: URL) => void)[] = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    response.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
    if (url.pathname === '/callback') waiting.shift()?.(url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return {
    url,
    /** The next authorization response. */
    next: () => new Promise<URL>((resolve) => waiting.push(resolve)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An https server with a throwaway certificate for 127.0.0.1, serving one client metadata document. */
async function metadataServer(dir: string, redirectUri: string) {
  const key = path.join(dir, 'cimd.key');
  const cert = path.join(dir, 'cimd.crt');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  let documentUrl = '';
  const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (request, response) => {
    if (request.url !== '/oauth/client.json') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ client_id: documentUrl, client_name: 'Metadata Document Agent', client_uri: 'https://agent.example.com', redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  documentUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/client.json`;
  return { cert, documentUrl, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('OAuth end to end: SDK client, consent in Chromium, tokens at /mcp', () => {
  let dir: string;
  let cli: StartedCli;
  let base: string;
  let browser: Browser;
  let callback: Awaited<ReturnType<typeof callbackServer>>;
  let metadata: Awaited<ReturnType<typeof metadataServer>>;

  beforeAll(async () => {
    if (staleReason()) await buildDashboard();
    if (!fs.existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: run infra/ensure-chromium.sh, or set ENGRAM_CHROMIUM to a Chromium binary.`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-oauth-'));
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    callback = await callbackServer();
    metadata = await metadataServer(dir, callback.url);
    // The server trusts the throwaway certificate, as it trusts a public CA's in production.
    cli = await startCli(cliEnv({ ENGRAM_DATA_DIR: path.join(dir, 'data'), PORT: '0', NODE_EXTRA_CA_CERTS: metadata.cert }));
    base = cli.dashboardUrl.replace(/\/$/, '');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await cli?.stop();
    await callback?.close();
    await metadata?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Connects with OAuth: the SDK's first attempt ends in a sign-in the browser completes. */
  async function connect(provider: MemoryProvider, consent: (page: Page) => Promise<void>) {
    const first = new Client({ name: 'e2e-oauth', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl?.origin).toBe(base);
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(30_000);
    const response = callback.next();
    await page.goto(provider.authorizationUrl!.toString());
    await page.waitForURL(/\/oauth\/consent\?request=/);
    await consent(page);
    const url = await response;
    await page.context().close();
    expect(url.searchParams.get('iss')).toBe(base);
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
    await transport.finishAuth(url.searchParams);
    const client = new Client({ name: 'e2e-oauth', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }));
    return { client, code: url.searchParams.get('code')! };
  }

  const structured = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    return result.structuredContent as Record<string, unknown>;
  };

  it('discovers from a 401, uses a client metadata document, consents with a member token, calls tools, refreshes, and is refused after revocation', async () => {
    const provider = new MemoryProvider(callback.url, metadata.documentUrl);
    const { client, code } = await connect(provider, async (page) => {
      await page.getByText('Metadata Document Agent').first().waitFor();
      await page.getByLabel('Member token').fill(cli.ownerToken!);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'oauth-consent-token.png'), fullPage: true });
      await page.getByRole('button', { name: 'Allow' }).click();
    });
    expect(provider.information?.client_id).toBe(metadata.documentUrl);
    try {
      expect(await structured(client, 'engram_status')).toMatchObject({ status: 'ready' });
      const committed = await structured(client, 'engram_commit', { content: 'The OAuth e2e suite signs in through the consent page.', scope: 'auth', agent_id: 'e2e', confidence: 0.7 });
      expect(committed.fact_id).toBeTruthy();
      const found = await structured(client, 'engram_query', { topic: 'consent page sign in' });
      expect(JSON.stringify(found)).toContain('consent page');

      // The code cannot be used twice (the SDK already exchanged it).
      const reused = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callback.url, client_id: metadata.documentUrl, code_verifier: provider.verifier }),
      });
      expect(reused.status).toBe(400);
      expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
    } finally {
      await client.close();
    }
  }, 180_000);

  it('registers dynamically, joins with an invite key on the consent page, refreshes a dead access token, stops after revocation', async () => {
    const invite = await fetch(`${base}/api/v1/invites`, { method: 'POST', headers: { authorization: `Bearer ${cli.ownerToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ role: 'member' }) });
    expect(invite.status).toBe(201);
    const { invite_key: inviteKey } = (await invite.json()) as { invite_key: string };
    const provider = new MemoryProvider(callback.url);
    const { client } = await connect(provider, async (page) => {
      await page.getByText('E2E Agent').first().waitFor();
      await page.getByLabel('Join with an invite').check();
      await page.getByLabel('Invite key').fill(inviteKey);
      await page.getByLabel('Your name').fill('Ada');
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: path.join(SCREENSHOTS, 'oauth-consent-invite-phone.png'), fullPage: true });
      await page.getByRole('button', { name: 'Allow' }).click();
    });
    expect(provider.information?.client_id).toMatch(/^egc_/);
    try {
      expect(await structured(client, 'engram_status')).toMatchObject({ status: 'ready' });

      // The access token stops working (as it does after an hour): the SDK refreshes and retries.
      const refreshToken = provider.stored!.refresh_token;
      provider.stored = { ...provider.stored!, access_token: 'egm_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };
      expect(await structured(client, 'engram_status')).toMatchObject({ status: 'ready' });
      expect(provider.stored.refresh_token).not.toBe(refreshToken);

      // Revoked (RFC 7009): the token and its refresh token stop working.
      const revoked = await fetch(`${base}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: provider.stored.refresh_token!, client_id: provider.information!.client_id }),
      });
      expect(revoked.status).toBe(200);
      const status = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${provider.stored.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(status.status).toBe(401);
      expect(status.headers.get('www-authenticate')).toContain('resource_metadata=');
    } finally {
      await client.close();
    }
  }, 180_000);

  it('refuses a wrong resource, an unregistered redirect URI, and a missing or plain PKCE challenge', async () => {
    const registered = await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [callback.url], token_endpoint_auth_method: 'none', client_name: 'Refusals' }) });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const authorize = (params: Record<string, string>) =>
      fetch(`${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: callback.url, ...params }).toString()}`, { redirect: 'manual' });
    const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
    const errorOf = async (params: Record<string, string>) => new URL((await authorize(params)).headers.get('location')!).searchParams.get('error');
    expect(await errorOf({ code_challenge: challenge, code_challenge_method: 'S256', resource: 'https://elsewhere.example.com/mcp' })).toBe('invalid_target');
    expect(await errorOf({})).toBe('invalid_request');
    expect(await errorOf({ code_challenge: challenge, code_challenge_method: 'plain' })).toBe('invalid_request');
    const elsewhere = await authorize({ redirect_uri: 'http://127.0.0.1:1/evil', code_challenge: challenge, code_challenge_method: 'S256' });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get('location')).toBeNull();
  });
});
