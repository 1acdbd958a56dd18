/** Roles, tokens, scope permissions and workspace settings, over REST and MCP, on each engine. */
import { canRead, provisionWorkspace, scopeAccess } from '@engram/core';
import { describe, expect, it } from 'vitest';
import { appSuite, TEST_SECRET } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const HOST = 'localhost:8080';

describe('scope access rules', () => {
  const grant = (scopePrefix: string, canReadScope: boolean, canWrite: boolean, window: { from?: number; until?: number } = {}) => ({
    scopePrefix,
    canRead: canReadScope,
    canWrite,
    validFrom: window.from === undefined ? null : new Date(Date.now() + window.from),
    validUntil: window.until === undefined ? null : new Date(Date.now() + window.until),
  });

  it('gives the role full access where no permission applies', () => {
    expect(scopeAccess({ role: 'member', grants: [] }, 'auth')).toEqual({ read: true, write: true });
    expect(scopeAccess({ role: 'reader', grants: [] }, 'auth')).toEqual({ read: true, write: false });
  });

  it('lets the most specific permission decide, hierarchically', () => {
    const grants = [grant('*', true, false), grant('payments', true, true), grant('payments/secrets', false, false)];
    const p = { role: 'member' as const, grants };
    expect(scopeAccess(p, 'auth')).toEqual({ read: true, write: false });
    expect(scopeAccess(p, 'payments')).toEqual({ read: true, write: true });
    expect(scopeAccess(p, 'payments/webhooks')).toEqual({ read: true, write: true });
    expect(scopeAccess(p, 'payments/secrets/keys')).toEqual({ read: false, write: false });
    expect(scopeAccess(p, 'paymentsx')).toEqual({ read: true, write: false });
  });

  it('grants nothing outside a permission window', () => {
    const sprint = { role: 'member' as const, grants: [grant('payments', true, true, { from: -1000, until: 60_000 })] };
    expect(scopeAccess(sprint, 'payments').write).toBe(true);
    const over = { role: 'member' as const, grants: [grant('payments', true, true, { from: -120_000, until: -60_000 })] };
    expect(scopeAccess(over, 'payments')).toEqual({ read: false, write: false });
    expect(canRead(over, 'auth')).toBe(true);
  });

  it('never lets a reader write, whatever the permission says', () => {
    expect(scopeAccess({ role: 'reader', grants: [grant('payments', true, true)] }, 'payments').write).toBe(false);
  });
});

describe.each(testDatabases())('access over the API on $name', (engine) => {
  const suite = appSuite(engine);

  const call = (token: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    suite.app.inject({ method, url, headers: { host: HOST, authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

  const mcp = (token: string, name: string, args: Record<string, unknown>) =>
    suite.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { host: HOST, authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    });
  const toolResult = async (token: string, name: string, args: Record<string, unknown>) =>
    (await mcp(token, name, args)).json<{ result: { isError?: boolean; structuredContent?: Record<string, unknown>; content: { text: string }[] } }>().result;

  async function team() {
    const created = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'Access', invite: { max_uses: 10 } });
    const joinAs = async (role: 'member' | 'reader', name: string) => {
      const invite = (await call(created.ownerToken, 'POST', '/api/v1/invites', { role })).json<{ invite_key: string }>();
      const joined = await suite.app.inject({ method: 'POST', url: '/api/v1/join', headers: { host: HOST }, payload: { invite_key: invite.invite_key, display_name: name } });
      return joined.json<{ token: string; member_id: string }>();
    };
    return { ...created, member: await joinAs('member', 'Mia'), reader: await joinAs('reader', 'Rex') };
  }

  it('lists members and lets each member manage their own tokens, owners all of them', async () => {
    const t = await team();
    const listed = (await call(t.member.token, 'GET', '/api/v1/members')).json<{ members: { display_name: string | null; role: string; you: boolean }[] }>().members;
    expect(listed.map((m) => [m.role, m.display_name, m.you])).toEqual([
      ['owner', 'Owner', false], // provisioned without a name: the default one
      ['member', 'Mia', true],
      ['reader', 'Rex', false],
    ]);

    const second = (await call(t.member.token, 'POST', '/api/v1/tokens', { label: 'ci' })).json<{ token: string; token_id: string }>();
    expect(second.token).toMatch(/^egm_/);
    const counted = (await call(t.ownerToken, 'GET', '/api/v1/members')).json<{ members: { role: string; active_tokens: number }[] }>().members;
    expect(counted.map((m) => [m.role, m.active_tokens])).toEqual([
      ['owner', 1],
      ['member', 2],
      ['reader', 1],
    ]);
    expect((await call(second.token, 'GET', '/api/v1/workspace')).statusCode).toBe(200);
    const mine = (await call(t.member.token, 'GET', '/api/v1/tokens')).json<{ tokens: { token_id: string; label: string | null }[] }>().tokens;
    expect(mine.map((x) => x.label).sort()).toEqual(['ci', 'joined with invite']);
    expect(JSON.stringify(mine)).not.toContain(second.token);

    // Members cannot create tokens for others or revoke others' tokens.
    expect((await call(t.member.token, 'POST', '/api/v1/tokens', { member_id: t.reader.member_id })).statusCode).toBe(403);
    const readerTokens = (await call(t.ownerToken, 'GET', '/api/v1/tokens')).json<{ tokens: { token_id: string; member_id: string }[] }>().tokens;
    const readerToken = readerTokens.find((x) => x.member_id === t.reader.member_id)!;
    expect((await call(t.member.token, 'DELETE', `/api/v1/tokens/${readerToken.token_id}`)).statusCode).toBe(404);

    // Revoking takes effect at once (this instance clears its token cache).
    expect((await call(second.token, 'GET', '/api/v1/members')).statusCode).toBe(200);
    const revoked = await call(t.member.token, 'DELETE', `/api/v1/tokens/${second.token_id}`);
    expect(revoked.json()).toMatchObject({ token_id: second.token_id, revoked_at: expect.any(String) });
    expect((await call(second.token, 'GET', '/api/v1/members')).statusCode).toBe(401);
    // The owner can revoke anyone's.
    expect((await call(t.ownerToken, 'DELETE', `/api/v1/tokens/${readerToken.token_id}`)).statusCode).toBe(200);
    expect((await call(t.reader.token, 'GET', '/api/v1/members')).statusCode).toBe(401);
  });

  it('gives readers the read-only tools only', async () => {
    const t = await team();
    const listed = await suite.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { host: HOST, authorization: `Bearer ${t.reader.token}`, accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    const tools = listed.json<{ result: { tools: { name: string }[] } }>().result.tools.map((x) => x.name).sort();
    expect(tools).toEqual(['engram_conflicts', 'engram_join', 'engram_query', 'engram_status']);
    const commit = await mcp(t.reader.token, 'engram_commit', { content: 'x', scope: 'a', confidence: 1 });
    // Not "Tool engram_commit not found": why, and what to do instead.
    const refused = commit.json<{ result: { isError: boolean; content: { text: string }[] } }>().result;
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/engram_commit changes the workspace, and your member role is "reader".*\(code: forbidden\)/);
  });

  it('enforces scope permissions with validity windows on commit, query, import and export', async () => {
    const t = await team();
    const seed = await toolResult(t.ownerToken, 'engram_commit', { content: 'Payment webhooks are signed with HMAC-SHA256', scope: 'payments/webhooks', confidence: 1 });
    expect(seed.isError).toBeFalsy();
    await toolResult(t.ownerToken, 'engram_commit', { content: 'Auth tokens are signed with HMAC-SHA256', scope: 'auth', confidence: 1 });

    // Mia: read-only everywhere, writes to payments only during a window that is open now.
    const everywhere = await call(t.ownerToken, 'POST', '/api/v1/scope-permissions', { member_id: t.member.member_id, scope_prefix: '*', can_read: true, can_write: false });
    expect(everywhere.statusCode).toBe(201);
    const sprint = await call(t.ownerToken, 'POST', '/api/v1/scope-permissions', {
      member_id: t.member.member_id,
      scope_prefix: 'payments',
      can_read: true,
      can_write: true,
      valid_from: new Date(Date.now() - 60_000).toISOString(),
      valid_until: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(sprint.statusCode).toBe(201);

    const inPayments = await toolResult(t.member.token, 'engram_commit', { content: 'Refunds settle in 5 days', scope: 'payments/refunds', confidence: 1 });
    expect(inPayments.isError).toBeFalsy();
    const inAuth = await toolResult(t.member.token, 'engram_commit', { content: 'Auth sessions last 30 minutes', scope: 'auth', confidence: 1 });
    expect(inAuth.isError).toBe(true);
    expect(inAuth.content[0]?.text).toMatch(/do not allow writing to "auth"/);
    const importDenied = await call(t.member.token, 'POST', '/api/v1/facts/import', {
      facts: [{ content: 'x', scope: 'auth', agent_id: 'a', committed_at: new Date().toISOString() }],
    });
    expect(importDenied.statusCode).toBe(200);
    expect(importDenied.json()).toMatchObject({ stored: 0, refused: 1, facts: [{ index: 0, refused: true, problems: [{ field: 'facts.0.scope' }] }] });

    // Close the window: payments becomes neither readable nor writable for Mia; auth stays readable.
    const sprintId = sprint.json<{ permission_id: string }>().permission_id;
    expect((await call(t.ownerToken, 'DELETE', `/api/v1/scope-permissions/${sprintId}`)).statusCode).toBe(200);
    await call(t.ownerToken, 'POST', '/api/v1/scope-permissions', {
      member_id: t.member.member_id,
      scope_prefix: 'payments',
      can_read: true,
      can_write: true,
      valid_from: new Date(Date.now() - 7_200_000).toISOString(),
      valid_until: new Date(Date.now() - 3_600_000).toISOString(),
    });
    const query = await toolResult(t.member.token, 'engram_query', { topic: 'signed with HMAC-SHA256' });
    const scopes = (query.structuredContent?.results as { scope: string }[]).map((r) => r.scope);
    expect(scopes).toEqual(['auth']);
    const exported = await call(t.member.token, 'GET', '/api/v1/facts/since');
    expect(exported.body).not.toContain('payments');
    expect(exported.body).toContain('Auth tokens are signed');
    // A lineage in a scope Mia cannot read is "not found", even from a scope she may write to.
    await call(t.ownerToken, 'POST', '/api/v1/scope-permissions', { member_id: t.member.member_id, scope_prefix: 'auth', can_read: true, can_write: true });
    const correction = await toolResult(t.member.token, 'engram_commit', {
      content: 'x', scope: 'auth', confidence: 1, corrects_lineage: (seed.structuredContent as { lineage_id: string }).lineage_id,
    });
    expect(correction.content[0]?.text).toMatch(/was not found/);

    // Others are unaffected, and only owners manage permissions.
    const ownerView = (await toolResult(t.ownerToken, 'engram_query', { topic: 'signed with HMAC-SHA256' })).structuredContent?.results as { scope: string }[];
    expect(ownerView.map((r) => r.scope)).toEqual(expect.arrayContaining(['auth', 'payments/webhooks', 'payments/refunds']));
    expect((await call(t.member.token, 'POST', '/api/v1/scope-permissions', { member_id: t.member.member_id, scope_prefix: '*' })).statusCode).toBe(403);
    const listed = (await call(t.member.token, 'GET', '/api/v1/scope-permissions')).json<{ scope_permissions: unknown[] }>().scope_permissions;
    expect(listed).toHaveLength(3);
    const bad = await call(t.ownerToken, 'POST', '/api/v1/scope-permissions', { member_id: t.member.member_id, scope_prefix: 'Bad Scope!' });
    expect(bad.statusCode).toBe(400);
  });

  it('lets owners change settings, and applies privacy settings to the next commit', async () => {
    const t = await team();
    const before = await toolResult(t.member.token, 'engram_commit', { content: 'The admin panel uses React', scope: 'admin', confidence: 1, agent_id: 'mia-1' });
    expect(before.isError).toBeFalsy();
    expect((await call(t.member.token, 'PATCH', '/api/v1/workspace', { settings: { anonymous_mode: true } })).statusCode).toBe(403);
    const patched = await call(t.ownerToken, 'PATCH', '/api/v1/workspace', { name: 'Renamed', settings: { anonymous_mode: true, anon_agents: true } });
    expect(patched.json()).toMatchObject({ name: 'Renamed', settings: { anonymous_mode: true, anon_agents: true, commits_per_agent_per_hour: 50 } });
    const after = await toolResult(t.member.token, 'engram_commit', { content: 'The admin panel is built with Vite', scope: 'admin', confidence: 1, agent_id: 'mia-1' });
    const exported = (await call(t.ownerToken, 'GET', '/api/v1/facts/since')).body.trim().split('\n').map((l) => JSON.parse(l) as { id: string; agent_id: string });
    expect(exported.find((f) => f.id === (before.structuredContent as { fact_id: string }).fact_id)?.agent_id).toBe('mia-1');
    expect(exported.find((f) => f.id === (after.structuredContent as { fact_id: string }).fact_id)?.agent_id).toMatch(/^anon-/);
    const invalid = await call(t.ownerToken, 'PATCH', '/api/v1/workspace', { settings: { commits_per_agent_per_hour: 0 } });
    expect(invalid.json().error.message).toMatch(/settings\.commits_per_agent_per_hour: must be at least 1/);
  });
});
