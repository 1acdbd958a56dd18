import { provisionWorkspace, openInviteKey } from '@engram/core';
import type { DbHandle } from '@engram/db';
import { createDb } from '@engram/db';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localOperatorToken } from '@engram/server';
import { TEST_ADMIN_TOKEN, TEST_SECRET, testApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { MIGRATION_COUNT } from '../support/migrations.ts';

const HOST = { host: 'localhost:8080' };

describe.each(testDatabases())('HTTP app on $name', (engine) => {
  let handle: DbHandle;
  let app: FastifyInstance;
  beforeAll(async () => {
    handle = await engine.open();
    app = await testApp(handle);
    app.get('/test/boom', async () => {
      throw new Error('database password is hunter2');
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await handle?.close();
  });

  it('answers /healthz and /readyz', async () => {
    const health = await app.inject({ url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'ok' });
    const ready = await app.inject({ url: '/readyz' });
    expect(ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', writes: 'ok', migrations: 'ok' } });
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await app.inject({ url: '/nope', headers: HOST });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 'not_found', message: 'No route for GET /nope.' });
    expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
  });

  it('hides the message of a 5xx', async () => {
    const res = await app.inject({ url: '/test/boom', headers: HOST });
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toMatchObject({ code: 'internal', message: 'Internal server error.' });
    expect(res.body).not.toContain('hunter2');
  });

  it('rejects a foreign Host or Origin (DNS rebinding)', async () => {
    const host = await app.inject({ method: 'POST', url: '/mcp', headers: { host: 'evil.example.com' }, payload: {} });
    expect(host.statusCode).toBe(403);
    expect(host.json().error.code).toBe('host_not_allowed');
    const origin = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...HOST, origin: 'http://evil.example.com' },
      payload: {},
    });
    expect(origin.statusCode).toBe(403);
    expect(origin.json().error.code).toBe('origin_not_allowed');
  });

  it('sends MCP without a token to sign in (OAuth on), or answers it with the onboarding tools only (OAuth off); rejects a bad token with an RFC 9728 challenge', async () => {
    const listTools = (target: FastifyInstance) =>
      target.inject({ method: 'POST', url: '/mcp', headers: { ...HOST, accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    const signIn = await listTools(app);
    expect(signIn.statusCode).toBe(401);
    expect(signIn.json().error.message).toMatch(/Sign in to use Engram.*invite key/);
    expect(signIn.headers['www-authenticate']).toContain('resource_metadata="http://localhost:8080/.well-known/oauth-protected-resource"');

    const withoutOAuth = await testApp(handle, { oauth: false });
    try {
      const anonymous = await listTools(withoutOAuth);
      expect(anonymous.statusCode).toBe(200);
      const listed = anonymous.json<{ result: { tools: { name: string }[] } }>().result.tools;
      expect(listed.map((t) => t.name).sort()).toEqual(['engram_join', 'engram_status']);
    } finally {
      await withoutOAuth.close();
    }

    const bad = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...HOST, authorization: 'Bearer egm_' + 'x'.repeat(43) },
      payload: {},
    });
    expect(bad.statusCode).toBe(401);
    expect(bad.json().error.code).toBe('invalid_token');
    // The challenge carries the server's message too, for clients that show it instead of the body.
    expect(bad.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", error_description="${bad.json().error.message}", resource_metadata="http://localhost:8080/.well-known/oauth-protected-resource"`,
    );
    expect(bad.json().error.message).toMatch(/token/i);

    const rest = await app.inject({ url: '/api/v1/members', headers: HOST });
    expect(rest.statusCode).toBe(401);
    expect(rest.headers['www-authenticate']).toBe(
      `Bearer error_description="${rest.json().error.message}", resource_metadata="http://localhost:8080/.well-known/oauth-protected-resource"`,
    );

    const metadata = await app.inject({ url: '/.well-known/oauth-protected-resource', headers: HOST });
    expect(metadata.json()).toMatchObject({ resource: 'http://localhost:8080/mcp', bearer_methods_supported: ['header'] });
  });

  it('refuses GET and DELETE on the stateless MCP endpoint', async () => {
    const res = await app.inject({ method: 'GET', url: '/mcp', headers: HOST });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });

  it('answers MCP over POST for a member token', async () => {
    const created = await provisionWorkspace(handle.db, TEST_SECRET, { name: 'Inject' });
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        ...HOST,
        authorization: `Bearer ${created.ownerToken}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      },
      payload: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'engram_status', arguments: {} } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: 7,
      result: { structuredContent: { status: 'ready', engram_id: created.engramId } },
    });
  });

  describe('admin API', () => {
    const url = '/api/v1/admin/workspaces';
    const admin = { ...HOST, authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

    it('provisions a workspace for the operator', async () => {
      const res = await app.inject({ method: 'POST', url, headers: admin, payload: { name: 'Infra' } });
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body).toMatchObject({ name: 'Infra', mcp_url: 'http://localhost:8080/mcp' });
      expect(Object.keys(body).sort()).toEqual(
        ['engram_id', 'invite_expires_at', 'invite_key', 'mcp_url', 'name', 'owner_token', 'workspace_id'].sort(),
      );
      expect(body.owner_token).toMatch(/^egm_/);
      expect((await openInviteKey(TEST_SECRET, body.invite_key)).workspace_id).toBe(body.workspace_id);

      const status = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          ...HOST,
          authorization: `Bearer ${body.owner_token}`,
          accept: 'application/json, text/event-stream',
        },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'engram_status', arguments: {} } },
      });
      expect(status.json().result.structuredContent.workspace.name).toBe('Infra');
    });

    it('accepts an empty body', async () => {
      const res = await app.inject({ method: 'POST', url, headers: admin });
      expect(res.statusCode).toBe(201);
      expect(res.json().name).toMatch(/^Workspace ENG-/);
    });

    it('names each invalid field', async () => {
      const res = await app.inject({
        method: 'POST',
        url,
        headers: admin,
        payload: { name: '', invite: { max_uses: 0 }, surprise: true },
      });
      expect(res.statusCode).toBe(400);
      const error = res.json().error;
      expect(error.code).toBe('invalid_input');
      const fields = (error.details.problems as { field: string }[]).map((p) => p.field);
      expect(fields).toEqual(expect.arrayContaining(['name', 'invite.max_uses']));
      expect(error.message).toMatch(/name: must not be empty/);
      expect(error.message).toMatch(/invite\.max_uses: must be at least 1/);
      expect(error.message).toMatch(/surprise/);
    });

    it('rejects a missing or wrong operator token', async () => {
      const none = await app.inject({ method: 'POST', url, headers: HOST, payload: {} });
      expect(none.statusCode).toBe(401);
      expect(none.headers['www-authenticate']).toMatch(/^Bearer error_description="The admin API needs .*", resource_metadata=/);
      const wrong = await app.inject({
        method: 'POST',
        url,
        headers: { ...HOST, authorization: 'Bearer not-the-admin-token' },
        payload: {},
      });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json().error.code).toBe('invalid_token');
    });

    it('is disabled without ENGRAM_ADMIN_TOKEN on a hosted database', async () => {
      const disabled = await testApp(handle, { adminToken: undefined, database: { kind: 'postgres', url: 'postgres://db.example/engram' } });
      try {
        const res = await disabled.inject({ method: 'POST', url, headers: admin, payload: {} });
        expect(res.statusCode).toBe(403);
        expect(res.json().error).toMatchObject({ code: 'admin_disabled' });
        expect(res.json().error.message).toMatch(/ENGRAM_ADMIN_TOKEN/);
      } finally {
        await disabled.close();
      }
    });

    it('lists members and issues tokens by workspace id, like engram member list and token create', async () => {
      const created = await provisionWorkspace(handle.db, TEST_SECRET, { name: 'Rescue', owner_display_name: 'Olive' });
      const listed = await app.inject({ url: `/api/v1/admin/members?engram_id=${created.engramId}`, headers: admin });
      expect(listed.statusCode).toBe(200);
      expect(listed.json()).toEqual({
        engram_id: created.engramId,
        name: 'Rescue',
        members: [{ id: created.ownerMemberId, role: 'owner', display_name: 'Olive', active_tokens: 1, removed_at: null }],
      });

      // No member named: the oldest owner (a lost owner token).
      const issued = await app.inject({ method: 'POST', url: '/api/v1/admin/tokens', headers: admin, payload: { engram_id: created.engramId, label: 'rescue' } });
      expect(issued.statusCode).toBe(201);
      expect(issued.json()).toMatchObject({ workspace_id: created.workspaceId, member: { id: created.ownerMemberId, role: 'owner', display_name: 'Olive' } });
      const workspace = await app.inject({ url: '/api/v1/workspace', headers: { ...HOST, authorization: `Bearer ${issued.json().token}` } });
      expect(workspace.json()).toMatchObject({ engram_id: created.engramId });
      const tokens = await app.inject({ url: `/api/v1/admin/members?engram_id=${created.engramId}`, headers: admin });
      expect(tokens.json().members[0].active_tokens).toBe(2);

      const forMember = await app.inject({ method: 'POST', url: '/api/v1/admin/tokens', headers: admin, payload: { engram_id: created.engramId, member_id: created.ownerMemberId } });
      expect(forMember.json().member.id).toBe(created.ownerMemberId);
      const nobody = await app.inject({
        method: 'POST',
        url: '/api/v1/admin/tokens',
        headers: admin,
        payload: { engram_id: created.engramId, member_id: '00000000-0000-7000-8000-000000000000' },
      });
      expect(nobody.statusCode).toBe(404);
      expect(nobody.json().error.message).toBe(
        `No member 00000000-0000-7000-8000-000000000000 in ${created.engramId}. List them with: engram member list --workspace ${created.engramId}`,
      );
      const noWorkspace = await app.inject({ url: '/api/v1/admin/members?engram_id=ENG-NONE-NONE', headers: admin });
      expect(noWorkspace.statusCode).toBe(404);
      expect(noWorkspace.json().error.message).toBe('No workspace ENG-NONE-NONE on this database.');
      const unauthenticated = await app.inject({ url: `/api/v1/admin/members?engram_id=${created.engramId}`, headers: HOST });
      expect(unauthenticated.statusCode).toBe(401);
    });

    it('revokes tokens and removes members by workspace id, like engram token revoke and member remove', async () => {
      const created = await provisionWorkspace(handle.db, TEST_SECRET, { name: 'Offboarding', owner_display_name: 'Olive' });
      const engram = `engram_id=${created.engramId}`;
      const issued = await app.inject({ method: 'POST', url: '/api/v1/admin/tokens', headers: admin, payload: { engram_id: created.engramId } });
      const tokenId = issued.json<{ token_id: string }>().token_id;
      const revoked = await app.inject({ method: 'DELETE', url: `/api/v1/admin/tokens/${tokenId}?${engram}`, headers: admin });
      expect(revoked.json()).toEqual({ workspace_id: created.workspaceId, token_id: tokenId, revoked: true });
      expect((await app.inject({ url: '/api/v1/workspace', headers: { ...HOST, authorization: `Bearer ${issued.json().token}` } })).statusCode).toBe(401);
      expect((await app.inject({ method: 'DELETE', url: `/api/v1/admin/tokens/${tokenId}?${engram}`, headers: admin })).json().revoked).toBe(false);

      const lastOwner = await app.inject({ method: 'DELETE', url: `/api/v1/admin/members/${created.ownerMemberId}?${engram}`, headers: admin });
      expect(lastOwner.statusCode).toBe(409);
      const joined = await app.inject({ method: 'POST', url: '/api/v1/join', headers: HOST, payload: { invite_key: created.inviteKey, display_name: 'Sam' } });
      const sam = joined.json<{ member_id: string; token: string }>();
      const removed = await app.inject({ method: 'DELETE', url: `/api/v1/admin/members/${sam.member_id}?${engram}`, headers: admin });
      expect(removed.json()).toMatchObject({ member_id: sam.member_id, display_name: 'Sam', removed_now: true, tokens_revoked: 1 });
      expect((await app.inject({ url: '/api/v1/workspace', headers: { ...HOST, authorization: `Bearer ${sam.token}` } })).statusCode).toBe(401);
      const elsewhere = await app.inject({ method: 'DELETE', url: `/api/v1/admin/members/${sam.member_id}?engram_id=ENG-NONE-NONE`, headers: admin });
      expect(elsewhere.statusCode).toBe(404);
    });

    it('takes the local operator token derived from the secret in embedded mode only', async () => {
      const local = { ...HOST, authorization: `Bearer ${localOperatorToken(TEST_SECRET)}` };
      const embedded = await testApp(handle, { adminToken: undefined });
      const hosted = await testApp(handle, { database: { kind: 'postgres', url: 'postgres://db.example/engram' } });
      try {
        const res = await embedded.inject({ method: 'POST', url, headers: local, payload: { name: 'Second' } });
        expect(res.statusCode).toBe(201);
        expect(res.json().name).toBe('Second');
        const refused = await hosted.inject({ method: 'POST', url, headers: local, payload: {} });
        expect(refused.statusCode).toBe(401);
        expect(refused.json().error.code).toBe('invalid_token');
        expect((await embedded.inject({ method: 'POST', url, headers: admin, payload: {} })).statusCode).toBe(401);
        // Beside ENGRAM_ADMIN_TOKEN, both work.
        expect((await app.inject({ method: 'POST', url, headers: local, payload: {} })).statusCode).toBe(201);
        expect((await app.inject({ method: 'POST', url, headers: admin, payload: {} })).statusCode).toBe(201);
      } finally {
        await embedded.close();
        await hosted.close();
      }
    });

    it('reports a malformed JSON body', async () => {
      const res = await app.inject({
        method: 'POST',
        url,
        headers: { ...admin, 'content-type': 'application/json' },
        payload: '{"name":',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.message).toMatch(/not valid JSON/);
    });
  });

  it('publishes an OpenAPI document', async () => {
    const res = await app.inject({ url: '/api/v1/openapi.json', headers: HOST });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json().paths)).toContain('/api/v1/admin/workspaces');
  });
});

describe('readiness before migrations', () => {
  it('reports pending migrations with 503', async () => {
    const handle = await createDb({ kind: 'pglite', dataDir: 'memory://' });
    const app = await testApp(handle);
    try {
      const res = await app.inject({ url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'not_ready', checks: { database: 'ok', writes: 'ok', migrations: `${MIGRATION_COUNT} pending` } });
    } finally {
      await app.close();
      await handle.close();
    }
  });
});

describe('CORS for ENGRAM_ALLOWED_ORIGINS', () => {
  it('answers preflights and exposes the MCP headers to an allowed origin, and nothing to others', async () => {
    const handle = await testDatabases()[0]!.open();
    const app = await testApp(handle, { allowedOrigins: ['https://app.example.com'] });
    try {
      const allowed = { ...HOST, origin: 'https://app.example.com' };
      const preflight = await app.inject({
        method: 'OPTIONS',
        url: '/mcp',
        headers: { ...allowed, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers).toMatchObject({ 'access-control-allow-origin': 'https://app.example.com', vary: 'Origin' });
      expect(String(preflight.headers['access-control-allow-methods'])).toContain('POST');
      expect(String(preflight.headers['access-control-allow-headers'])).toMatch(/authorization.*mcp-protocol-version/);

      // A refused call still tells the browser client why (it can read WWW-Authenticate).
      const refused = await app.inject({ method: 'POST', url: '/mcp', headers: { ...allowed, authorization: 'Bearer egm_' + 'x'.repeat(43) }, payload: {} });
      expect(refused.statusCode).toBe(401);
      expect(refused.headers['access-control-allow-origin']).toBe('https://app.example.com');
      expect(String(refused.headers['access-control-expose-headers'])).toMatch(/mcp-protocol-version.*www-authenticate/);
      const metadata = await app.inject({ url: '/.well-known/oauth-protected-resource/mcp', headers: allowed });
      expect(metadata.headers['access-control-allow-origin']).toBe('https://app.example.com');

      // Other routes and other origins get no CORS headers (the guard refuses foreign origins).
      const rest = await app.inject({ url: '/api/v1/workspace', headers: allowed });
      expect(rest.headers['access-control-allow-origin']).toBeUndefined();
      const foreign = await app.inject({ method: 'OPTIONS', url: '/mcp', headers: { ...HOST, origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
      expect(foreign.statusCode).toBe(403);
      expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await app.close();
      await handle.close();
    }
  });
});
