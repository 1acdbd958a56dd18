/**
 * Removing a member, on each engine: the membership ends at once on this instance (tokens over MCP
 * and REST, dashboard sessions), each credential's next use is told the membership ended, the
 * member's facts stay, the removal is audited; who may remove whom; the last owner stays; other
 * instances honour the removal within the token cache's TTL.
 */
import { endMembership, issueToken, provisionWorkspace, TOKEN_CACHE_TTL_MS } from '@engram/core';
import { facts, forWorkspace, members } from '@engram/db';
import { and, eq, isNull } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { appSuite, testApp, TEST_SECRET } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const HOST = 'localhost:8080';

interface ErrorBody {
  error: { code: string; message: string; details?: { reason?: string; removed_at?: string } };
}

interface Removal {
  member_id: string;
  role: string;
  display_name: string | null;
  removed_at: string;
  removed_now: boolean;
  tokens_revoked: number;
  sessions_ended: number;
}

function cookieOf(res: LightMyRequestResponse): string {
  const header = res.headers['set-cookie'];
  const line = Array.isArray(header) ? header[0] : header;
  if (!line) throw new Error(`no Set-Cookie in ${res.statusCode} ${res.body}`);
  return line.split(';')[0]!;
}

/** A 401 that says the membership ended. */
function expectMembershipEnded(res: LightMyRequestResponse, code: 'invalid_token' | 'unauthorized' = 'invalid_token') {
  expect(res.statusCode, res.body).toBe(401);
  const { error } = res.json<ErrorBody>();
  expect(error.code).toBe(code);
  expect(error.message).toMatch(/^Your membership of the workspace "Team" ended at .*The facts you committed stay in the workspace\./);
  expect(error.details).toEqual({ reason: 'membership_ended', removed_at: expect.any(String) });
}

describe.each(testDatabases())('removing members on $name', (engine) => {
  const suite = appSuite(engine);
  afterEach(() => {
    vi.useRealTimers();
  });

  const call = (
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    options: { token?: string; cookie?: string; csrf?: string; payload?: Record<string, unknown>; on?: FastifyInstance } = {},
  ) =>
    (options.on ?? suite.app).inject({
      method,
      url,
      headers: {
        host: HOST,
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.cookie ? { cookie: options.cookie } : {}),
        ...(options.csrf ? { 'x-csrf-token': options.csrf } : {}),
      },
      ...(options.payload ? { payload: options.payload } : {}),
    });
  const mcp = (token: string, name: string, args: Record<string, unknown>, on?: FastifyInstance) =>
    (on ?? suite.app).inject({
      method: 'POST',
      url: '/mcp',
      headers: { host: HOST, authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    });
  const remove = (token: string, memberId: string, options: { cookie?: string; csrf?: string } = {}) =>
    call('DELETE', `/api/v1/members/${memberId}`, { token, ...options });

  async function team() {
    const created = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'Team', owner_display_name: 'Olive', invite: { max_uses: 10 } });
    const joinAs = async (role: 'member' | 'reader', display_name: string) => {
      const invite = (await call('POST', '/api/v1/invites', { token: created.ownerToken, payload: { role } })).json<{ invite_key: string }>();
      return (await call('POST', '/api/v1/join', { payload: { invite_key: invite.invite_key, display_name } })).json<{ token: string; member_id: string }>();
    };
    const [owner] = await forWorkspace(suite.handle.db, created.workspaceId).select(members, eq(members.role, 'owner'));
    return { ...created, ownerId: owner!.id, member: await joinAs('member', 'Mia'), reader: await joinAs('reader', 'Rex') };
  }

  it('ends every token and dashboard session at once, tells each one the membership ended, keeps the facts and audits it', async () => {
    const t = await team();
    const mia = t.member;
    const ci = (await call('POST', '/api/v1/tokens', { token: mia.token, payload: { label: 'ci' } })).json<{ token: string }>();
    const commit = await mcp(mia.token, 'engram_commit', { content: 'The billing service retries webhooks 5 times', scope: 'billing', confidence: 1, agent_id: 'mia-laptop' });
    expect(commit.json<{ result: { isError?: boolean } }>().result.isError).toBeFalsy();
    const signedIn = await call('POST', '/api/v1/session', { payload: { token: ci.token } });
    const cookie = cookieOf(signedIn);
    // Warm this instance's token cache for both of her tokens: removal must not wait for it.
    expect((await call('GET', '/api/v1/workspace', { token: mia.token })).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/workspace', { token: ci.token })).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/members', { cookie })).statusCode).toBe(200);

    const res = await remove(t.ownerToken, mia.member_id);
    expect(res.statusCode, res.body).toBe(200);
    const removed = res.json<Removal>();
    expect(removed).toEqual({
      member_id: mia.member_id,
      role: 'member',
      display_name: 'Mia',
      removed_at: expect.any(String),
      removed_now: true,
      tokens_revoked: 2,
      sessions_ended: 1,
    });

    // Her next MCP call, REST call and dashboard request: 401, saying the membership ended.
    const mcpCall = await mcp(mia.token, 'engram_query', { topic: 'webhooks' });
    expectMembershipEnded(mcpCall);
    expect(mcpCall.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token", error_description="[^"]*membership[^"]*", resource_metadata=/i);
    expectMembershipEnded(await call('GET', '/api/v1/workspace', { token: ci.token }));
    expectMembershipEnded(await call('GET', '/api/v1/facts', { cookie }), 'unauthorized');
    const session = await call('GET', '/api/v1/session', { cookie });
    expectMembershipEnded(session, 'unauthorized');
    expect(String(session.headers['set-cookie'])).toMatch(/^engram_session=;/);
    // Signing in again with one of her tokens says the same.
    expectMembershipEnded(await call('POST', '/api/v1/session', { payload: { token: mia.token } }));

    // Her facts stay, attributed as before; the owner still finds them.
    const stored = await forWorkspace(suite.handle.db, t.workspaceId).select(facts, eq(facts.memberId, mia.member_id));
    expect(stored.map((f) => [f.content, f.agentId])).toEqual([['The billing service retries webhooks 5 times', 'mia-laptop']]);
    const found = await mcp(t.ownerToken, 'engram_query', { topic: 'billing webhooks retries' });
    expect(JSON.stringify(found.json())).toContain('retries webhooks 5 times');

    // The member list shows her removed, with no live token; no new token can be issued to her.
    const listed = (await call('GET', '/api/v1/members', { token: t.ownerToken })).json<{ members: { member_id: string; removed_at: string | null; active_tokens: number }[] }>();
    expect(listed.members.find((m) => m.member_id === mia.member_id)).toMatchObject({ removed_at: removed.removed_at, active_tokens: 0 });
    expect((await call('POST', '/api/v1/tokens', { token: t.ownerToken, payload: { member_id: mia.member_id } })).statusCode).toBe(404);

    // Idempotent: removing her again changes nothing and reports the first removal.
    const again = await remove(t.ownerToken, mia.member_id);
    expect(again.statusCode).toBe(200);
    expect(again.json<Removal>()).toEqual({ ...removed, removed_now: false, tokens_revoked: 0, sessions_ended: 0 });

    // Audited: who removed whom.
    const audit = (await call('GET', '/api/v1/audit?limit=20', { token: t.ownerToken })).json<{
      entries: { action: string; outcome: string; member_id: string | null; summary: { params?: { member_id?: string } } }[];
    }>().entries;
    const removals = audit.filter((e) => e.action === 'DELETE /api/v1/members/:member_id');
    expect(removals).toHaveLength(2);
    for (const entry of removals) expect(entry).toMatchObject({ outcome: 'ok', member_id: t.ownerId, summary: { params: { member_id: mia.member_id } } });
  });

  it('lets owners remove anyone and anyone leave, but never removes the last owner', async () => {
    const t = await team();
    // A member cannot remove someone else, nor can a reader.
    const denied = await remove(t.member.token, t.reader.member_id);
    expect(denied.statusCode).toBe(403);
    expect(denied.json<ErrorBody>().error.message).toMatch(/Only workspace owners can remove other members\. You can remove yourself/);
    expect((await remove(t.reader.token, t.ownerId)).statusCode).toBe(403);

    // The last owner stays, with a message that says what to do instead.
    const last = await remove(t.ownerToken, t.ownerId);
    expect(last.statusCode).toBe(409);
    expect(last.json<ErrorBody>().error).toMatchObject({ code: 'conflict' });
    expect(last.json<ErrorBody>().error.message).toMatch(
      new RegExp(`^"Olive" is the last owner of the workspace.*nothing was removed.*engram token create --workspace ${t.engramId}.*DELETE /api/v1/admin/workspaces/:id`),
    );
    expect((await call('GET', '/api/v1/workspace', { token: t.ownerToken })).statusCode).toBe(200);

    // Unknown, foreign and malformed ids.
    expect((await remove(t.ownerToken, '00000000-0000-4000-8000-000000000000')).json<ErrorBody>().error.code).toBe('not_found');
    const other = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'Other' });
    const [otherOwner] = await forWorkspace(suite.handle.db, other.workspaceId).select(members);
    expect((await remove(t.ownerToken, otherOwner!.id)).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/workspace', { token: other.ownerToken })).statusCode).toBe(200);
    const malformed = await remove(t.ownerToken, 'not-a-uuid');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).toContain('must be a member id (UUID)');

    // Anyone may leave: the reader removes themself through the dashboard, whose next request is
    // told why the session ended (and its cookie cleared).
    const signedIn = await call('POST', '/api/v1/session', { payload: { token: t.reader.token } });
    const cookie = cookieOf(signedIn);
    const left = await call('DELETE', `/api/v1/members/${t.reader.member_id}`, { cookie, csrf: signedIn.json<{ csrf_token: string }>().csrf_token });
    expect(left.statusCode, left.body).toBe(200);
    expect(left.json<Removal>()).toMatchObject({ role: 'reader', removed_now: true, tokens_revoked: 1, sessions_ended: 1 });
    const next = await call('GET', '/api/v1/members', { cookie });
    expectMembershipEnded(next, 'unauthorized');
    expect(String(next.headers['set-cookie'])).toMatch(/^engram_session=;/);
    expectMembershipEnded(await call('GET', '/api/v1/workspace', { token: t.reader.token }));
  });

  it('keeps an owner when two owners remove each other at the same moment', async () => {
    const t = await team();
    const tenant = forWorkspace(suite.handle.db, t.workspaceId);
    const [second] = await tenant.insert(members, { role: 'owner', displayName: 'Otto' }).returning();
    const otto = await issueToken(tenant, second!.id);
    // Over the API (authentication first) and straight at the transaction, so the two overlap.
    const results = await Promise.all([remove(t.ownerToken, second!.id), remove(otto.token, t.ownerId)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual(results.some((r) => r.statusCode === 401) ? [200, 401] : [200, 409]);
    const live = () => tenant.select(members, and(eq(members.role, 'owner'), isNull(members.removedAt)));
    expect(await live()).toHaveLength(1);

    const [third] = await tenant.insert(members, { role: 'owner', displayName: 'Ines' }).returning();
    const survivor = (await live()).find((m) => m.id !== third!.id)!;
    const raced = await Promise.allSettled([endMembership(suite.handle.db, t.workspaceId, third!.id), endMembership(suite.handle.db, t.workspaceId, survivor.id)]);
    expect(raced.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(await live()).toHaveLength(1);
  });

  it('is honoured by other instances within the token cache TTL', async () => {
    const t = await team();
    const other = await testApp(suite.handle);
    try {
      // The other instance has resolved (and cached) her token before the removal.
      expect((await mcp(t.member.token, 'engram_status', {}, other)).statusCode).toBe(200);
      expect((await remove(t.ownerToken, t.member.member_id)).statusCode).toBe(200);
      expectMembershipEnded(await call('GET', '/api/v1/workspace', { token: t.member.token }));
      // Until its cache entry expires, the other instance still knows her (the documented window)...
      expect((await call('GET', '/api/v1/workspace', { token: t.member.token, on: other })).statusCode).toBe(200);
      // ...and once TOKEN_CACHE_TTL_MS has passed, it answers as this one does.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + TOKEN_CACHE_TTL_MS + 1 });
      expectMembershipEnded(await call('GET', '/api/v1/workspace', { token: t.member.token, on: other }));
      expectMembershipEnded(await mcp(t.member.token, 'engram_status', {}, other));
    } finally {
      vi.useRealTimers();
      await other.close();
    }
  });
});
