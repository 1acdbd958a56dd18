/**
 * The built-in OAuth 2.1 authorization server over HTTP, on each engine: registration, the
 * authorization request's checks, consent (member token, dashboard session, invite key), the code
 * exchange with PKCE, refresh rotation, revocation and every refusal the flow owes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { provisionWorkspace } from '@engram/core';
import { forWorkspace, members, tokens } from '@engram/db';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { appSuite, testApp, TEST_SECRET } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const HOST = 'localhost:8080';
const ISSUER = 'http://localhost:8080';
const REDIRECT = 'http://127.0.0.1:9999/callback';

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

describe.each(testDatabases())('OAuth authorization server on $name', (engine) => {
  const suite = appSuite(engine);

  const form = (url: string, params: Record<string, string>, headers: Record<string, string> = {}) =>
    suite.app.inject({
      method: 'POST',
      url,
      headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(params).toString(),
    });

  async function register(body: Record<string, unknown> = {}) {
    const res = await suite.app.inject({ method: 'POST', url: '/oauth/register', headers: { host: HOST }, payload: { redirect_uris: [REDIRECT], client_name: 'Test Agent', token_endpoint_auth_method: 'none', ...body } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ client_id: string; client_secret?: string }>();
  }

  const authorize = (params: Record<string, string>) =>
    suite.app.inject({ url: `/oauth/authorize?${new URLSearchParams(params).toString()}`, headers: { host: HOST } });

  /** Starts an authorization; the sealed request the consent page gets. */
  async function begin(clientId: string, challenge: string, extra: Record<string, string> = {}) {
    const res = await authorize({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 'xyz', resource: `${ISSUER}/mcp`, ...extra });
    expect(res.statusCode, res.body).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(location.pathname).toBe('/oauth/consent');
    return location.searchParams.get('request') as string;
  }

  const decide = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    suite.app.inject({ method: 'POST', url: '/api/v1/oauth/authorization', headers: { host: HOST, ...headers }, payload: body });

  /** A code the owner consented to, and its verifier. */
  async function codeFor(clientId: string, ownerToken: string) {
    const { verifier, challenge } = pkce();
    const request = await begin(clientId, challenge);
    const res = await decide({ request, decision: 'allow', token: ownerToken });
    expect(res.statusCode, res.body).toBe(200);
    const back = new URL(res.json<{ redirect_to: string }>().redirect_to);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('xyz');
    expect(back.searchParams.get('iss')).toBe(ISSUER);
    return { code: back.searchParams.get('code') as string, verifier };
  }

  const exchange = (clientId: string, code: string, verifier: string | undefined, extra: Record<string, string> = {}) =>
    form('/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, ...(verifier ? { code_verifier: verifier } : {}), ...extra });

  const whoAmI = (accessToken: string) => suite.app.inject({ url: '/api/v1/tokens', headers: { host: HOST, authorization: `Bearer ${accessToken}` } });

  it('publishes RFC 8414 metadata and names itself in the protected-resource metadata', async () => {
    const metadata = await suite.app.inject({ url: '/.well-known/oauth-authorization-server', headers: { host: HOST } });
    expect(metadata.statusCode).toBe(200);
    expect(metadata.json()).toMatchObject({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/oauth/authorize`,
      token_endpoint: `${ISSUER}/oauth/token`,
      registration_endpoint: `${ISSUER}/oauth/register`,
      revocation_endpoint: `${ISSUER}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      grant_types_supported: ['authorization_code', 'refresh_token'],
    });
    const resource = await suite.app.inject({ url: '/.well-known/oauth-protected-resource/mcp', headers: { host: HOST } });
    expect(resource.json()).toMatchObject({ resource: `${ISSUER}/mcp`, authorization_servers: [ISSUER] });
  });

  it('registers clients and refuses unsafe redirect URIs with a reason', async () => {
    const refused = async (body: Record<string, unknown>, error: string, mentions: string) => {
      const res = await suite.app.inject({ method: 'POST', url: '/oauth/register', headers: { host: HOST }, payload: body });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ error });
      expect(res.json<{ error_description: string }>().error_description).toContain(mentions);
    };
    await refused({ client_name: 'x' }, 'invalid_client_metadata', 'redirect_uris');
    await refused({ redirect_uris: ['http://evil.example.com/cb'] }, 'invalid_redirect_uri', 'https');
    await refused({ redirect_uris: ['https://app.example.com/cb#frag'] }, 'invalid_redirect_uri', 'fragment');
    await refused({ redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri', 'javascript');
    await refused({ redirect_uris: [REDIRECT], grant_types: ['client_credentials'] }, 'invalid_client_metadata', 'client_credentials');

    const confidential = await register({ token_endpoint_auth_method: 'client_secret_basic', redirect_uris: ['https://app.example.com/cb', 'cursor://anysphere.cursor/oauth'] });
    expect(confidential.client_secret).toMatch(/^egcs_/);
    expect((await register()).client_secret).toBeUndefined();
  });

  it('shows a page, never a redirect, for an unknown client or an unregistered redirect URI; other problems go back to the client', async () => {
    const client = await register();
    const { challenge } = pkce();
    const unknown = await authorize({ response_type: 'code', client_id: 'egc_nope', redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.headers['content-type']).toContain('text/html');
    expect(unknown.body).toContain('Unknown client_id');

    const elsewhere = await authorize({ response_type: 'code', client_id: client.client_id, redirect_uri: 'https://attacker.example.com/cb', code_challenge: challenge, code_challenge_method: 'S256' });
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.headers.location).toBeUndefined();
    expect(elsewhere.body).toContain('must match exactly');

    const back = async (params: Record<string, string>, error: string) => {
      const res = await authorize({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, state: 's1', ...params });
      expect(res.statusCode).toBe(302);
      const url = new URL(res.headers.location as string);
      expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
      expect(url.searchParams.get('error')).toBe(error);
      expect(url.searchParams.get('state')).toBe('s1');
      expect(url.searchParams.get('iss')).toBe(ISSUER);
      return url.searchParams.get('error_description') ?? '';
    };
    expect(await back({}, 'invalid_request')).toContain('code_challenge is required');
    const verifier = randomBytes(32).toString('base64url');
    expect(await back({ code_challenge: verifier, code_challenge_method: 'plain' }, 'invalid_request')).toContain('S256');
    expect(await back({ code_challenge: challenge, code_challenge_method: 'S256', resource: 'https://other.example.com/mcp' }, 'invalid_target')).toContain(`${ISSUER}/mcp`);
    expect(await back({ code_challenge: challenge, code_challenge_method: 'S256', response_type: 'token' }, 'unsupported_response_type')).toContain('code');
  });

  it('runs the whole flow with a member token: code, PKCE exchange, a token that acts for the member, refresh rotation, revocation', async () => {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'OAuth flow' });
    const client = await register();
    const consentView = await suite.app.inject({ url: `/api/v1/oauth/authorization?request=${await begin(client.client_id, pkce().challenge)}`, headers: { host: HOST } });
    expect(consentView.statusCode, consentView.body).toBe(200);
    expect(consentView.json()).toMatchObject({
      client: { client_id: client.client_id, name: 'Test Agent', redirect_host: '127.0.0.1:9999', registration: 'dynamic' },
      resource: `${ISSUER}/mcp`,
      session: null,
    });

    const { code, verifier } = await codeFor(client.client_id, ws.ownerToken);
    const issued = await exchange(client.client_id, code, verifier);
    expect(issued.statusCode, issued.body).toBe(200);
    expect(issued.headers['cache-control']).toBe('no-store');
    const body = issued.json<{ access_token: string; refresh_token: string; token_type: string; expires_in: number }>();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'engram' });

    // The access token is the owner's: it sees every token of the workspace, itself labelled.
    const listed = await whoAmI(body.access_token);
    expect(listed.statusCode).toBe(200);
    const own = listed.json<{ tokens: { label: string; current: boolean; oauth_client_id: string | null }[] }>().tokens.find((t) => t.current);
    expect(own).toMatchObject({ label: 'Test Agent (OAuth)', oauth_client_id: client.client_id });

    // The same code again: refused, and what it bought is revoked.
    const again = await exchange(client.client_id, code, verifier);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await whoAmI(body.access_token)).statusCode).toBe(401);

    // A fresh grant: refresh rotates both tokens; the old refresh token replayed ends the grant.
    const second = await codeFor(client.client_id, ws.ownerToken);
    const pair = (await exchange(client.client_id, second.code, second.verifier)).json<{ access_token: string; refresh_token: string }>();
    const refreshed = await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: client.client_id });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const next = refreshed.json<{ access_token: string; refresh_token: string }>();
    expect(next.refresh_token).not.toBe(pair.refresh_token);
    expect((await whoAmI(pair.access_token)).statusCode).toBe(401);
    expect((await whoAmI(next.access_token)).statusCode).toBe(200);
    const replay = await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: client.client_id });
    expect(replay.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await whoAmI(next.access_token)).statusCode).toBe(401);

    // Revocation (RFC 7009) of a refresh token ends its access token too; unknown tokens are fine.
    const third = await codeFor(client.client_id, ws.ownerToken);
    const last = (await exchange(client.client_id, third.code, third.verifier)).json<{ access_token: string; refresh_token: string }>();
    expect((await form('/oauth/revoke', { token: last.refresh_token, client_id: client.client_id })).statusCode).toBe(200);
    expect((await whoAmI(last.access_token)).statusCode).toBe(401);
    expect((await form('/oauth/revoke', { token: 'egm_unknown', client_id: client.client_id })).statusCode).toBe(200);
  });

  it('refuses a mismatched redirect URI, a missing or wrong verifier, a wrong resource, another client', async () => {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'OAuth refusals' });
    const client = await register();
    const other = await register();
    const refusal = async (extra: { verifier?: string | null; params?: Record<string, string>; clientId?: string }, error: string, mentions: string) => {
      const { code, verifier } = await codeFor(client.client_id, ws.ownerToken);
      const res = await exchange(extra.clientId ?? client.client_id, code, extra.verifier === null ? undefined : (extra.verifier ?? verifier), extra.params);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ error });
      expect(res.json<{ error_description: string }>().error_description).toContain(mentions);
    };
    await refusal({ params: { redirect_uri: 'http://127.0.0.1:9999/other' } }, 'invalid_grant', 'redirect_uri');
    await refusal({ verifier: null }, 'invalid_grant', 'code_verifier is required');
    await refusal({ verifier: randomBytes(32).toString('base64url') }, 'invalid_grant', 'does not match');
    await refusal({ params: { resource: 'https://other.example.com/mcp' } }, 'invalid_target', `${ISSUER}/mcp`);
    await refusal({ clientId: other.client_id }, 'invalid_grant', 'another client');
    const unsupported = await form('/oauth/token', { grant_type: 'password', client_id: client.client_id });
    expect(unsupported.json()).toMatchObject({ error: 'unsupported_grant_type' });
    const json = await suite.app.inject({ method: 'POST', url: '/oauth/token', headers: { host: HOST }, payload: { grant_type: 'authorization_code' } });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('holds a confidential client to its secret', async () => {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'OAuth confidential' });
    const client = await register({ token_endpoint_auth_method: 'client_secret_basic' });
    const { code, verifier } = await codeFor(client.client_id, ws.ownerToken);
    const anonymous = await exchange(client.client_id, code, verifier);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: 'invalid_client' });
    const second = await codeFor(client.client_id, ws.ownerToken);
    const basic = Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64');
    const res = await form('/oauth/token', { grant_type: 'authorization_code', code: second.code, redirect_uri: REDIRECT, code_verifier: second.verifier }, { authorization: `Basic ${basic}` });
    expect(res.statusCode, res.body).toBe(200);
    const garbled = await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x' }, { authorization: `Basic ${Buffer.from('%E0%A4%A:secret').toString('base64')}` });
    expect(garbled.statusCode).toBe(401);
    expect(garbled.headers['www-authenticate']).toContain('Basic');
    expect(garbled.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('lets a person join with an invite key in the consent step, or decline', async () => {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'OAuth join' });
    const client = await register();
    const { verifier, challenge } = pkce();
    const request = await begin(client.client_id, challenge);
    const noOne = await decide({ request, decision: 'allow' });
    expect(noOne.statusCode).toBe(401);
    const joined = await decide({ request, decision: 'allow', invite_key: ws.inviteKey, display_name: 'Rosa' });
    expect(joined.statusCode, joined.body).toBe(200);
    const code = new URL(joined.json<{ redirect_to: string }>().redirect_to).searchParams.get('code') as string;
    const pair = (await exchange(client.client_id, code, verifier)).json<{ access_token: string }>();
    const listed = (await whoAmI(pair.access_token)).json<{ tokens: { member_id: string; current: boolean }[] }>().tokens;
    const [member] = await forWorkspace(suite.handle.db, ws.workspaceId).select(members, eq(members.id, listed[0]!.member_id));
    expect(member).toMatchObject({ displayName: 'Rosa', role: 'member' });

    const denied = await decide({ request: await begin(client.client_id, challenge), decision: 'deny' });
    const url = new URL(denied.json<{ redirect_to: string }>().redirect_to);
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('xyz');

    const tampered = await decide({ request: `${request.slice(0, -4)}AAAA`, decision: 'allow', token: ws.ownerToken });
    expect(tampered.statusCode).toBe(400);
    expect(tampered.json()).toMatchObject({ error: { code: 'oauth_request_invalid' } });
  });

  it('lets a signed-in dashboard session allow, with its CSRF token', async () => {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'OAuth session' });
    const client = await register();
    const signIn = await suite.app.inject({ method: 'POST', url: '/api/v1/session', headers: { host: HOST }, payload: { token: ws.ownerToken } });
    const cookie = `engram_session=${signIn.cookies.find((c) => c.name === 'engram_session')?.value}`;
    const request = await begin(client.client_id, pkce().challenge);
    const view = await suite.app.inject({ url: `/api/v1/oauth/authorization?request=${request}`, headers: { host: HOST, cookie } });
    expect(view.json()).toMatchObject({ session: { workspace: { name: 'OAuth session' } } });
    const csrf = view.json<{ session: { csrf_token: string } }>().session.csrf_token;
    expect((await decide({ request, decision: 'allow' }, { cookie })).statusCode).toBe(403);
    const allowed = await decide({ request, decision: 'allow' }, { cookie, 'x-csrf-token': csrf });
    expect(allowed.statusCode, allowed.body).toBe(200);
    expect(new URL(allowed.json<{ redirect_to: string }>().redirect_to).searchParams.get('code')).toBeTruthy();
  });

  it('stops honouring an access token when it expires; its refresh token brings a new one', async () => {
    const ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'OAuth expiry' });
    const client = await register();
    const { code, verifier } = await codeFor(client.client_id, ws.ownerToken);
    const pair = (await exchange(client.client_id, code, verifier)).json<{ access_token: string; refresh_token: string }>();
    // (Not used before: a resolved token is cached for a few seconds.)
    const tenant = forWorkspace(suite.handle.db, ws.workspaceId);
    await tenant.update(tokens, { expiresAt: new Date(Date.now() - 1000) }, eq(tokens.clientId, client.client_id));
    expect((await whoAmI(pair.access_token)).statusCode).toBe(401);
    // The refresh token still works: it brings a new access token.
    const refreshed = await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: client.client_id });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect((await whoAmI(refreshed.json<{ access_token: string }>().access_token)).statusCode).toBe(200);
  });

  it('is off with ENGRAM_OAUTH=false: no metadata, no endpoints, nothing named in the resource metadata', async () => {
    const off = await testApp(suite.handle, { oauth: false });
    try {
      expect((await off.inject({ url: '/.well-known/oauth-authorization-server', headers: { host: HOST } })).statusCode).toBe(404);
      expect((await off.inject({ method: 'POST', url: '/oauth/register', headers: { host: HOST }, payload: { redirect_uris: [REDIRECT] } })).statusCode).toBe(404);
      const resource = (await off.inject({ url: '/.well-known/oauth-protected-resource', headers: { host: HOST } })).json<Record<string, unknown>>();
      expect(resource.authorization_servers).toBeUndefined();
    } finally {
      await off.close();
    }
  });
});
