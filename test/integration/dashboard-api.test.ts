/**
 * The REST API the dashboard runs on, on each engine: signing in with a member token for a session
 * cookie (CSRF on cookie writes, bearer requests unaffected, sign-out, revocation), and the read
 * endpoints — knowledge base, expiring facts, timeline, agent activity — with their filters,
 * permissions and validation errors. Facts are committed through the real pipeline at chosen
 * instants; the detector is run directly, so every engine gets a database of its own.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import {
  authenticateToken,
  commitFact,
  CommitInput,
  LocalEmbedder,
  openDashboardSession,
  provisionWorkspace,
  runDeterministicPass,
  SESSION_TTL_MS,
  silentLogger,
  type MemberPrincipal,
  type ProvisionedWorkspace,
} from '@engram/core';
import { dashboardSessions } from '@engram/db';
import { createLogger } from '@engram/server';
import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { appSuite, testApp, TEST_SECRET } from '../support/app.ts';
import { isolatedTestDatabases } from '../support/databases.ts';
import { eventually } from '../support/poll.ts';

const HOST = 'localhost:8080';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface SessionBody {
  member: { id: string; display_name: string | null; role: string };
  workspace: { id: string; name: string; engram_id: string };
  csrf_token: string;
  expires_at: string;
}

interface ListedFact {
  id: string;
  lineage_id: string;
  content: string;
  scope: string;
  agent_id: string;
  fact_type: string;
  confidence: number;
  committed_at: string;
  valid_until: string | null;
  expires_at: string | null;
  durability: string;
  verified: boolean;
  provenance: string | null;
  corroboration: number;
  has_open_conflict: boolean;
}

interface Window {
  id: string;
  lineage_id: string;
  scope: string;
  content: string;
  agent_id: string;
  valid_from: string;
  valid_until: string | null;
  closed_by: string | null;
}

/** The cookie a Set-Cookie header sets, as `name=value` for a Cookie header. */
function cookieOf(res: LightMyRequestResponse): string {
  const header = res.headers['set-cookie'];
  const line = Array.isArray(header) ? header[0] : header;
  if (!line) throw new Error(`no Set-Cookie in ${res.statusCode} ${res.body}`);
  return line.split(';')[0]!;
}

describe.each(isolatedTestDatabases())('dashboard API on $name', (engine) => {
  const suite = appSuite(engine);

  const call = (
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    options: { token?: string; cookie?: string; csrf?: string; payload?: Record<string, unknown>; host?: string } = {},
  ) =>
    suite.app.inject({
      method,
      url,
      headers: {
        host: options.host ?? HOST,
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.cookie ? { cookie: options.cookie } : {}),
        ...(options.csrf ? { 'x-csrf-token': options.csrf } : {}),
      },
      ...(options.payload ? { payload: options.payload } : {}),
    });
  const signIn = async (token: string) => {
    const res = await call('POST', '/api/v1/session', { payload: { token } });
    expect(res.statusCode, res.body).toBe(200);
    return { cookie: cookieOf(res), body: res.json<SessionBody>(), res };
  };
  const joinAs = async (owner: string, role: 'member' | 'reader', display_name: string) => {
    const invite = (await call('POST', '/api/v1/invites', { token: owner, payload: { role } })).json<{ invite_key: string }>();
    return (await call('POST', '/api/v1/join', { payload: { invite_key: invite.invite_key, display_name } })).json<{ token: string; member_id: string }>();
  };

  describe('sessions', () => {
    let ws: ProvisionedWorkspace;
    beforeAll(async () => {
      ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'Sessions', owner_display_name: 'Olive' });
    });

    it('exchanges a member token for an HttpOnly, SameSite=Strict cookie and a CSRF token', async () => {
      const { res, body, cookie } = await signIn(ws.ownerToken);
      expect(body).toEqual({
        member: { id: expect.any(String), display_name: 'Olive', role: 'owner' },
        workspace: { id: ws.workspaceId, name: 'Sessions', engram_id: ws.engramId },
        csrf_token: expect.stringMatching(/^egc_[A-Za-z0-9_-]{43}$/),
        expires_at: expect.any(String),
      });
      expect(new Date(body.expires_at).getTime() - Date.now()).toBeGreaterThan(SESSION_TTL_MS - 60_000);
      const setCookie = String(res.headers['set-cookie']);
      expect(setCookie).toMatch(/^engram_session=egs_[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
      expect(setCookie).not.toContain('Secure'); // plain http here
      expect(res.body).not.toContain(cookie.split('=')[1]!);
      // Only a hash of the session id is stored.
      const rows = await suite.handle.db.select().from(dashboardSessions).where(eq(dashboardSessions.workspaceId, ws.workspaceId));
      expect(JSON.stringify(rows)).not.toContain(cookie.split('=')[1]!);

      // The cookie alone reads the session and the API.
      const again = await call('GET', '/api/v1/session', { cookie });
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(body);
      expect((await call('GET', '/api/v1/workspace', { cookie })).json()).toMatchObject({ workspace_id: ws.workspaceId });
      expect((await call('GET', '/api/v1/facts', { cookie })).statusCode).toBe(200);
      // It never authenticates MCP, which takes bearer tokens only.
      const mcp = await suite.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { host: HOST, cookie, accept: 'application/json, text/event-stream' },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      });
      expect(mcp.statusCode).toBe(401);
      expect(mcp.headers['www-authenticate']).toContain('resource_metadata=');
    });

    it('marks the cookie Secure when the service is reached over https', async () => {
      const secure = await testApp(suite.handle, { publicUrl: 'https://engram.example.com' });
      try {
        const res = await secure.inject({ method: 'POST', url: '/api/v1/session', headers: { host: 'engram.example.com' }, payload: { token: ws.ownerToken } });
        expect(res.statusCode).toBe(200);
        expect(String(res.headers['set-cookie'])).toMatch(/; HttpOnly; Secure; SameSite=Strict$/);
      } finally {
        await secure.close();
      }
    });

    it('lasts ENGRAM_SESSION_HOURS', async () => {
      const short = await testApp(suite.handle, { sessionTtlMs: 2 * 3_600_000 });
      try {
        const res = await short.inject({ method: 'POST', url: '/api/v1/session', payload: { token: ws.ownerToken } });
        expect(String(res.headers['set-cookie'])).toContain('; Max-Age=7200;');
        const expires = new Date(res.json<{ expires_at: string }>().expires_at).getTime() - Date.now();
        expect(expires).toBeGreaterThan(2 * 3_600_000 - 60_000);
        expect(expires).toBeLessThanOrEqual(2 * 3_600_000);
      } finally {
        await short.close();
      }
    });

    it('requires the CSRF token on cookie writes, and leaves bearer requests alone', async () => {
      const { cookie, body } = await signIn(ws.ownerToken);
      const missing = await call('POST', '/api/v1/invites', { cookie, payload: { role: 'member' } });
      expect(missing.statusCode).toBe(403);
      expect(missing.json().error).toMatchObject({
        code: 'csrf',
        message: 'POST with the session cookie needs the header `x-csrf-token` set to the csrf_token that POST (or GET) /api/v1/session returned.',
      });
      const wrong = await call('POST', '/api/v1/invites', { cookie, csrf: 'not-it', payload: { role: 'member' } });
      expect(wrong.statusCode).toBe(403);
      expect(wrong.json().error.message).toContain('the one sent does not match this session');
      const otherSession = await signIn(ws.ownerToken);
      expect((await call('POST', '/api/v1/invites', { cookie, csrf: otherSession.body.csrf_token, payload: { role: 'member' } })).statusCode).toBe(403);
      expect((await call('DELETE', `/api/v1/invites/${randomUUID()}`, { cookie })).json().error.code).toBe('csrf');

      const made = await call('POST', '/api/v1/invites', { cookie, csrf: body.csrf_token, payload: { role: 'member' } });
      expect(made.statusCode).toBe(201);
      // Reads need no CSRF token; bearer writes need none either, cookie or not.
      expect((await call('GET', '/api/v1/invites', { cookie })).statusCode).toBe(200);
      expect((await call('POST', '/api/v1/invites', { token: ws.ownerToken, payload: { role: 'member' } })).statusCode).toBe(201);
      const lastWrite = Date.now();
      expect((await call('POST', '/api/v1/invites', { token: ws.ownerToken, cookie: 'engram_session=garbage', payload: { role: 'member' } })).statusCode).toBe(201);

      // The audit log knows who did it through the session, and never what the token was.
      // Entries are written once the answer has gone out: ask until the last request's is there.
      const audit = await eventually(async () => {
        const { entries } = (await call('GET', '/api/v1/audit?limit=50', { cookie })).json<{ entries: { action: string; outcome: string; member_id: string | null; at: string }[] }>();
        return entries.some((e) => e.action === 'POST /api/v1/invites' && Date.parse(e.at) >= lastWrite) ? entries : undefined;
      });
      expect(audit.find((e) => e.action === 'POST /api/v1/invites' && e.outcome === 'ok')?.member_id).toBe(body.member.id);
      expect(audit.find((e) => e.action === 'POST /api/v1/session')).toMatchObject({ outcome: 'ok', member_id: body.member.id });
      expect(JSON.stringify(audit)).not.toContain(ws.ownerToken);
    });

    it('signs out: 204, cookie cleared, session gone; idempotent', async () => {
      const { cookie, body } = await signIn(ws.ownerToken);
      expect((await call('DELETE', '/api/v1/session', { cookie })).json().error.code).toBe('csrf');
      const out = await call('DELETE', '/api/v1/session', { cookie, csrf: body.csrf_token });
      expect(out.statusCode).toBe(204);
      expect(String(out.headers['set-cookie'])).toMatch(/^engram_session=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict$/);
      const after = await call('GET', '/api/v1/session', { cookie });
      expect(after.statusCode).toBe(401);
      expect(after.json().error.message).toContain('Your dashboard session has expired or was signed out');
      const api = await call('GET', '/api/v1/facts', { cookie });
      expect(api.statusCode).toBe(401);
      expect(api.json().error.message).toContain('sign in again with a member token (POST /api/v1/session)');
      expect((await call('DELETE', '/api/v1/session', { cookie })).statusCode).toBe(204);
      expect((await call('DELETE', '/api/v1/session')).statusCode).toBe(204);
      const none = await call('GET', '/api/v1/session');
      expect(none.statusCode).toBe(401);
      expect(none.json().error.message).toContain('Not signed in: POST /api/v1/session with {"token": "egm_..."}');
    });

    it('ends every session of a token when the token is revoked, and when the session expires', async () => {
      const mia = await joinAs(ws.ownerToken, 'member', 'Mia');
      const tokens = (await call('GET', '/api/v1/tokens', { token: mia.token })).json<{ tokens: { token_id: string }[] }>().tokens;
      const first = await signIn(mia.token);
      const second = await signIn(mia.token);
      expect((await call('GET', '/api/v1/session', { cookie: first.cookie })).json()).toMatchObject({ member: { display_name: 'Mia', role: 'member' } });
      // Revoked through a session of the token itself.
      const revoked = await call('DELETE', `/api/v1/tokens/${tokens[0]!.token_id}`, { cookie: second.cookie, csrf: second.body.csrf_token });
      expect(revoked.statusCode).toBe(200);
      for (const s of [first, second]) {
        expect((await call('GET', '/api/v1/session', { cookie: s.cookie })).statusCode).toBe(401);
        expect((await call('GET', '/api/v1/members', { cookie: s.cookie })).statusCode).toBe(401);
      }

      // Signing in again from the same browser ends the session it replaces.
      const owner = await signIn(ws.ownerToken);
      const replaced = await call('POST', '/api/v1/session', { cookie: owner.cookie, payload: { token: ws.ownerToken } });
      expect(replaced.statusCode).toBe(200);
      expect((await call('GET', '/api/v1/session', { cookie: owner.cookie })).statusCode).toBe(401);
      expect((await call('GET', '/api/v1/session', { cookie: cookieOf(replaced) })).statusCode).toBe(200);

      const stale = await openDashboardSession(suite.handle.db, ws.ownerToken, {}, new Date(Date.now() - SESSION_TTL_MS - 1000));
      const expired = await call('GET', '/api/v1/members', { cookie: `engram_session=${stale.sessionId}` });
      expect(expired.statusCode).toBe(401);
      expect(String(expired.headers['set-cookie'])).toContain('engram_session=; Max-Age=0');
    });

    it('says what is wrong with a sign-in', async () => {
      const cases: [Record<string, unknown>, number, string][] = [
        [{ token: 'egm_not-a-real-token' }, 401, 'This member token is not valid: it may have been revoked, or mistyped.'],
        [{ token: `egm_${'A'.repeat(43)}` }, 401, 'This member token is not valid'],
        [{ token: ws.inviteKey }, 400, 'token: is an invite key (ek_...), not a member token: redeem it first (POST /api/v1/join'],
        [{}, 400, 'token: is required: your member token (egm_...)'],
        [{ token: '' }, 400, 'token: must not be empty'],
        [{ token: ws.ownerToken, remember: true }, 400, 'remember'],
      ];
      for (const [payload, status, message] of cases) {
        const res = await call('POST', '/api/v1/session', { payload });
        expect(res.statusCode, JSON.stringify(payload)).toBe(status);
        expect(res.json().error.message, JSON.stringify(payload)).toContain(message);
        expect(res.headers['set-cookie'], JSON.stringify(payload)).toBeUndefined();
      }
    });

    it('never logs cookies, CSRF tokens or session ids', () => {
      const lines: string[] = [];
      const logger = createLogger(
        { logLevel: 'info' },
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            lines.push(chunk.toString());
            done();
          },
        }),
      );
      logger.info(
        {
          req: { headers: { cookie: 'engram_session=SESSION_COOKIE', 'x-csrf-token': 'CSRF_HEADER' } },
          res: { headers: { 'set-cookie': 'engram_session=SET_COOKIE' } },
          session: { csrf_token: 'CSRF_BODY', sessionId: 'SESSION_ID' },
          csrfToken: 'CSRF_FIELD',
        },
        'signed in',
      );
      const out = lines.join('');
      for (const secret of ['SESSION_COOKIE', 'CSRF_HEADER', 'SET_COOKIE', 'CSRF_BODY', 'SESSION_ID', 'CSRF_FIELD']) expect(out).not.toContain(secret);
    });
  });

  describe('read endpoints', () => {
    let ws: ProvisionedWorkspace;
    let owner: MemberPrincipal;
    let mia: { token: string; member_id: string };
    let reader: { token: string; member_id: string };
    const id: Record<string, string> = {};
    const now = Date.now();
    const at = (msAgo: number) => new Date(now - msAgo);
    const services = () => ({ db: suite.handle.db, embedder: new LocalEmbedder(), secret: TEST_SECRET, log: silentLogger });
    const commit = async (name: string, input: Record<string, unknown>, when: Date) => {
      const out = await commitFact(services(), owner, CommitInput.parse({ confidence: 1, ...input }), when);
      if (!out.fact_id && input.operation !== 'delete') throw new Error(`nothing stored for ${name}: ${JSON.stringify(out)}`);
      id[name] = out.fact_id ?? '';
      return out;
    };
    const detect = (ids: string[]) => runDeterministicPass({ db: suite.handle.db, log: silentLogger }, { runId: randomUUID(), workspaceId: ws.workspaceId, triggerFactIds: ids });

    beforeAll(async () => {
      ws = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'Knowledge', invite: { max_uses: 10 } });
      owner = await authenticateToken(suite.handle.db, ws.ownerToken);
      mia = await joinAs(ws.ownerToken, 'member', 'Mia');
      reader = await joinAs(ws.ownerToken, 'reader', 'Rex');

      await commit('jwt', { content: 'The auth service uses JWT access tokens', scope: 'auth', agent_id: 'alice', provenance: 'src/auth/jwt.ts:12' }, at(10 * DAY));
      await commit('hmac', { content: 'Payments webhooks are signed with HMAC-SHA256', scope: 'payments/webhooks', agent_id: 'bob', fact_type: 'decision' }, at(5 * DAY));
      await commit('refunds', { content: 'Payments refunds settle within 5 business days', scope: 'payments', agent_id: 'bob' }, at(2 * DAY));
      await commit('refunds-again', { content: 'Payment refunds settle within 5 business days', scope: 'payments', agent_id: 'hank' }, at(2 * DAY - HOUR)); // corroborates
      await commit('reindex', { content: 'Search reindex runs nightly at 02:00 UTC', scope: 'search', agent_id: 'alice', ttl_days: 3 }, at(30 * 60_000));
      await commit('flag', { content: 'Feature flag new-checkout is enabled for 10% of users', scope: 'payments/checkout', agent_id: 'carol', ttl_days: 30 }, at(0));
      await commit('scratch', { content: 'Scratch: the checkout flag might move to 20% next week', scope: 'payments/checkout', agent_id: 'carol', durability: 'ephemeral' }, at(60_000));
      await commit('migration', { content: 'The staging database is being migrated this week', scope: 'infra', agent_id: 'carol', ttl_days: 3 }, at(10 * DAY + 60_000));
      const gateway = await commit('limit-100', { content: 'The API gateway rate limit is 100 req/s', scope: 'gateway', agent_id: 'dave' }, at(20 * DAY));
      await commit('limit-200', { content: 'The API gateway rate limit is 200 req/s', scope: 'gateway', agent_id: 'dave', corrects_lineage: gateway.lineage_id }, at(3 * DAY));
      const cron = await commit('cron', { content: 'The legacy cron host is cron-1', scope: 'infra', agent_id: 'dave' }, at(15 * DAY));
      await commit('cron-delete', { content: 'retire', scope: 'infra', operation: 'delete', corrects_lineage: cron.lineage_id }, at(4 * DAY));
      await commit('redis', { content: 'The session cache is Redis', scope: 'cache', agent_id: 'gina' }, at(6 * HOUR + 60_000));
      await commit('memcached', { content: 'We switched the session cache from Redis to Memcached', scope: 'cache', agent_id: 'gina' }, at(6 * HOUR));
      await commit('timeout-30', { content: 'The billing service timeout is 30 seconds', scope: 'billing', agent_id: 'erin' }, at(2 * HOUR + 60_000));
      await commit('timeout-60', { content: 'The billing service timeout is 60 seconds', scope: 'billing', agent_id: 'frank' }, at(2 * HOUR));
      await commit('replicas-3', { content: 'The search service replica count is 3', scope: 'search', agent_id: 'erin' }, at(HOUR + 60_000));
      await commit('replicas-5', { content: 'The search service replica count is 5', scope: 'search', agent_id: 'frank' }, at(HOUR));
      await detect([id.redis!, id.memcached!, id['timeout-30']!, id['timeout-60']!, id['replicas-3']!, id['replicas-5']!]);

      const conflicts = (await call('GET', '/api/v1/conflicts?status=open', { token: ws.ownerToken })).json<{ groups: { conflicts: { conflict_id: string; facts: { fact_id: string }[] }[] }[] }>();
      const billing = conflicts.groups.flatMap((g) => g.conflicts).find((c) => c.facts.some((f) => f.fact_id === id['timeout-30']))!;
      const resolved = await call('POST', `/api/v1/conflicts/${billing.conflict_id}/resolve`, {
        token: ws.ownerToken,
        payload: { resolution_type: 'winner', winning_claim_id: id['timeout-60']!, resolution: '60 s.' },
      });
      expect(resolved.statusCode, resolved.body).toBe(200);
    });

    const facts = async (query: string, token = ws.ownerToken) => {
      const res = await call('GET', `/api/v1/facts${query}`, { token });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ facts: ListedFact[]; total: number; limit: number; offset: number }>();
    };
    const names = (list: { id: string }[]) => list.map((f) => Object.keys(id).find((k) => id[k] === f.id) ?? f.id);
    const badRequest = async (url: string, message: string) => {
      const res = await call('GET', url, { token: ws.ownerToken });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.code).toBe('invalid_input');
      expect(res.json().error.message, url).toContain(message);
    };

    const CURRENT = ['flag', 'scratch', 'reindex', 'replicas-5', 'replicas-3', 'timeout-60', 'memcached', 'refunds', 'limit-200', 'hmac', 'jwt'];

    it('lists current facts newest first, with what the knowledge base shows of each', async () => {
      const all = await facts('');
      expect(names(all.facts)).toEqual(CURRENT);
      expect(all).toMatchObject({ total: CURRENT.length, limit: 50, offset: 0 });
      const byName = Object.fromEntries(all.facts.map((f, i) => [CURRENT[i], f]));
      expect(byName.jwt).toEqual({
        id: id.jwt,
        lineage_id: id.jwt,
        content: 'The auth service uses JWT access tokens',
        scope: 'auth',
        agent_id: 'alice',
        member: 'Owner', // the owner's default name: the workspace was provisioned without one
        fact_type: 'observation',
        confidence: 1,
        committed_at: at(10 * DAY).toISOString(),
        valid_until: null,
        expires_at: null,
        durability: 'durable',
        verified: true,
        provenance: 'src/auth/jwt.ts:12',
        corroboration: 0,
        has_open_conflict: false,
      });
      expect(byName.refunds).toMatchObject({ corroboration: 1, verified: false });
      expect(byName['replicas-3']?.has_open_conflict).toBe(true);
      expect(byName['timeout-60']?.has_open_conflict).toBe(false);
      expect(byName.reindex?.expires_at).toBe(new Date(now - 30 * 60_000 + 3 * DAY).toISOString());
      expect(byName.scratch?.durability).toBe('ephemeral');
    });

    it('filters by scope (with sub-scopes), agent, type, durability, commit time and search words', async () => {
      expect(names((await facts('?scope=payments')).facts)).toEqual(['flag', 'scratch', 'refunds', 'hmac']);
      expect(names((await facts('?scope=payments/webhooks')).facts)).toEqual(['hmac']);
      expect(names((await facts('?scope=pay')).facts)).toEqual([]);
      expect(names((await facts('?agent_id=bob')).facts)).toEqual(['refunds', 'hmac']);
      expect(names((await facts('?fact_type=decision')).facts)).toEqual(['hmac']);
      expect(names((await facts('?durability=ephemeral')).facts)).toEqual(['scratch']);
      const since = at(6 * DAY).toISOString();
      const until = at(DAY).toISOString();
      expect(names((await facts(`?since=${since}&until=${until}`)).facts)).toEqual(['refunds', 'limit-200', 'hmac']);
      expect(names((await facts('?q=HMAC')).facts)).toEqual(['hmac']);
      expect(names((await facts('?q=webhooks%20signed')).facts)).toEqual(['hmac']);
      expect(names((await facts('?q=new-checkout')).facts)).toEqual(['flag']);
      expect(names((await facts('?q=refund&scope=payments&agent_id=bob')).facts)).toEqual(['refunds']);
      // Cleared form fields mean no filter.
      expect((await facts('?scope=&q=&agent_id=')).total).toBe(CURRENT.length);
    });

    it('answers what was current at an instant', async () => {
      expect(names((await facts(`?as_of=${at(12 * DAY).toISOString()}`)).facts)).toEqual(['cron', 'limit-100']);
      // Eight days ago the staging migration note had not expired yet; the JWT fact was two days old.
      expect(names((await facts(`?as_of=${at(8 * DAY).toISOString()}`)).facts)).toEqual(['jwt', 'migration', 'cron', 'limit-100']);
      expect(names((await facts(`?as_of=${at(8 * DAY).toISOString()}&scope=infra`)).facts)).toEqual(['migration', 'cron']);
    });

    it('pages with limit and offset, counting every match', async () => {
      const first = await facts('?limit=4');
      expect(names(first.facts)).toEqual(CURRENT.slice(0, 4));
      expect(first.total).toBe(CURRENT.length);
      expect(names((await facts('?limit=4&offset=4')).facts)).toEqual(CURRENT.slice(4, 8));
      expect(await facts('?offset=500')).toMatchObject({ facts: [], total: CURRENT.length });
    });

    it('counts and shows only what the caller may read', async () => {
      const grant = await call('POST', '/api/v1/scope-permissions', {
        token: ws.ownerToken,
        payload: { member_id: mia.member_id, scope_prefix: 'payments', can_read: false, can_write: false },
      });
      expect(grant.statusCode).toBe(201);
      try {
        const visible = CURRENT.filter((n) => !['flag', 'scratch', 'refunds', 'hmac'].includes(n));
        expect(await facts('', mia.token)).toMatchObject({ total: visible.length });
        expect(names((await facts('', mia.token)).facts)).toEqual(visible);
        expect((await facts('?scope=payments', mia.token)).total).toBe(0);
        const expiring = (await call('GET', '/api/v1/facts/expiring?within_days=60', { token: mia.token })).json<{ facts: ListedFact[] }>();
        expect(names(expiring.facts)).toEqual(['reindex']);
        const timeline = (await call('GET', '/api/v1/timeline', { token: mia.token })).json<{ facts: Window[] }>();
        expect(timeline.facts.some((w) => w.scope.startsWith('payments'))).toBe(false);
        const activity = (await call('GET', '/api/v1/agents/activity', { token: mia.token })).json<{ agents: { agent_id: string }[] }>();
        expect(activity.agents.map((a) => a.agent_id)).not.toContain('bob');
      } finally {
        await call('DELETE', `/api/v1/scope-permissions/${grant.json<{ permission_id: string }>().permission_id}`, { token: ws.ownerToken });
      }
      // Readers read everything their role allows; nobody reads without credentials.
      expect((await facts('', reader.token)).total).toBe(CURRENT.length);
      for (const url of ['/api/v1/facts', '/api/v1/facts/expiring', '/api/v1/timeline', '/api/v1/agents/activity']) {
        const res = await call('GET', url);
        expect(res.statusCode, url).toBe(401);
        expect(res.headers['www-authenticate'], url).toContain('resource_metadata=');
      }
    });

    it('rejects bad knowledge-base filters, naming the field', async () => {
      await badRequest('/api/v1/facts?limit=0', 'limit: must be at least 1');
      await badRequest('/api/v1/facts?limit=201', 'limit: must be at most 200');
      await badRequest('/api/v1/facts?limit=ten', 'limit: must be a whole number');
      await badRequest('/api/v1/facts?offset=-1', 'offset: must be at least 0');
      await badRequest('/api/v1/facts?since=yesterday', 'since: must be an ISO 8601 timestamp, e.g. 2026-03-01T12:00:00Z');
      await badRequest(`/api/v1/facts?since=${at(DAY).toISOString()}&until=${at(2 * DAY).toISOString()}`, 'until: must be after since');
      await badRequest('/api/v1/facts?as_of=now', 'as_of: must be an ISO 8601 timestamp');
      await badRequest('/api/v1/facts?fact_type=guess', 'fact_type: must be "observation", "inference" or "decision"');
      await badRequest('/api/v1/facts?durability=forever', 'durability: must be "durable" or "ephemeral"');
      await badRequest('/api/v1/facts?scope=Bad%20Scope!', 'scope: must be a path like "auth" or "payments/webhooks"');
      await badRequest('/api/v1/facts?agent_id=a%20b', 'agent_id: may contain letters, digits and . _ : @ / - only');
      await badRequest(`/api/v1/facts?q=${'x'.repeat(201)}`, 'q: must be at most 200 characters');
      await badRequest('/api/v1/facts?sort=oldest', 'sort');
    });

    it('lists facts whose TTL runs out soon, soonest first', async () => {
      const list = async (query: string) => {
        const res = await call('GET', `/api/v1/facts/expiring${query}`, { token: ws.ownerToken });
        expect(res.statusCode, res.body).toBe(200);
        return res.json<{ within_days: number; facts: ListedFact[] }>();
      };
      const week = await list('');
      expect(week.within_days).toBe(7);
      expect(names(week.facts)).toEqual(['scratch', 'reindex']);
      expect(week.facts.map((f) => f.expires_at)).toEqual([new Date(now - 60_000 + DAY).toISOString(), new Date(now - 30 * 60_000 + 3 * DAY).toISOString()]);
      expect(names((await list('?within_days=31')).facts)).toEqual(['scratch', 'reindex', 'flag']);
      expect(names((await list('?within_days=31&scope=payments')).facts)).toEqual(['scratch', 'flag']);
      expect(names((await list('?within_days=31&limit=1')).facts)).toEqual(['scratch']);
      await badRequest('/api/v1/facts/expiring?within_days=0', 'within_days: must be at least 1');
      await badRequest('/api/v1/facts/expiring?within_days=366', 'within_days: must be at most 365');
      await badRequest('/api/v1/facts/expiring?within_days=soon', 'within_days: must be a whole number');
    });

    it('gives validity windows, current and closed, with why each closed', async () => {
      const timeline = async (query: string) => {
        const res = await call('GET', `/api/v1/timeline${query}`, { token: ws.ownerToken });
        expect(res.statusCode, res.body).toBe(200);
        return res.json<{ since: string | null; until: string | null; facts: Window[]; truncated: boolean }>();
      };
      const all = await timeline('');
      expect(all.truncated).toBe(false);
      const byName = Object.fromEntries(all.facts.map((w) => [names([w])[0]!, w]));
      expect(Object.keys(byName).sort()).toEqual([...CURRENT.filter((n) => n !== 'scratch'), 'cron', 'limit-100', 'migration', 'redis', 'timeout-30'].sort());
      expect(Object.fromEntries(Object.entries(byName).map(([n, w]) => [n, w.closed_by]))).toMatchObject({
        'limit-100': 'superseded',
        cron: 'deleted',
        migration: 'expired',
        redis: 'detector',
        'timeout-30': 'resolution',
        'limit-200': null,
        jwt: null,
      });
      expect(byName['limit-100']).toMatchObject({
        valid_from: at(20 * DAY).toISOString(),
        valid_until: at(3 * DAY).toISOString(),
        lineage_id: id['limit-100'],
        agent_id: 'dave',
        scope: 'gateway',
        content: 'The API gateway rate limit is 100 req/s',
      });
      expect(byName.migration?.valid_until).toBe(at(7 * DAY + 60_000).toISOString()); // its expiry, not yet swept
      // By scope, then by start.
      const order = all.facts.map((w) => `${w.scope} ${w.valid_from}`);
      expect(order).toEqual([...order].sort());

      expect(names((await timeline('?scope=gateway')).facts)).toEqual(['limit-100', 'limit-200']);
      const recent = await timeline(`?since=${at(DAY).toISOString()}`);
      expect(recent.since).toBe(at(DAY).toISOString());
      expect(names(recent.facts)).not.toContain('limit-100');
      expect(names(recent.facts)).not.toContain('migration');
      expect(names(recent.facts)).toContain('jwt');
      expect(names((await timeline(`?until=${at(12 * DAY).toISOString()}`)).facts)).toEqual(['limit-100', 'cron']);
      const cut = await timeline('?limit=2');
      expect(cut.truncated).toBe(true);
      expect(names(cut.facts).sort()).toEqual(['flag', 'reindex'].sort());
      await badRequest('/api/v1/timeline?limit=5000', 'limit: must be at most 2000');
      await badRequest(`/api/v1/timeline?since=${at(DAY).toISOString()}&until=${at(2 * DAY).toISOString()}`, 'until: must be after since');
    });

    it('reports each agent’s commit, conflict and verification rates', async () => {
      const activity = async (query: string) => {
        const res = await call('GET', `/api/v1/agents/activity${query}`, { token: ws.ownerToken });
        expect(res.statusCode, res.body).toBe(200);
        return res.json<{ days: number; since: string; agents: Record<string, unknown>[] }>();
      };
      const month = await activity('');
      expect(month.days).toBe(30);
      const byAgent = Object.fromEntries(month.agents.map((a) => [a.agent_id, a]));
      expect(byAgent.alice).toEqual({
        agent_id: 'alice',
        member: 'Owner',
        commits: 2,
        commits_per_day: 0.07,
        conflicts: 0,
        conflict_rate: 0,
        verified: 1,
        verification_rate: 0.5,
        last_commit_at: at(30 * 60_000).toISOString(),
      });
      expect(byAgent.erin).toMatchObject({ commits: 2, conflicts: 2, conflict_rate: 1 });
      expect(byAgent.dave).toMatchObject({ commits: 3, conflicts: 0 });
      expect(byAgent.hank).toBeUndefined(); // corroborating stored nothing of hank's
      expect(month.agents.map((a) => a.commits)).toEqual([...month.agents.map((a) => a.commits)].sort((x, y) => Number(y) - Number(x)));

      const week = await activity('?days=7');
      expect(Object.fromEntries(week.agents.map((a) => [a.agent_id, a.commits]))).toMatchObject({ alice: 1, bob: 2, dave: 1 });
      expect(week.agents.find((a) => a.agent_id === 'alice')).toMatchObject({ commits_per_day: 0.14, verification_rate: 0 });
      await badRequest('/api/v1/agents/activity?days=0', 'days: must be at least 1');
      await badRequest('/api/v1/agents/activity?days=400', 'days: must be at most 365');
      await badRequest('/api/v1/agents/activity?days=1.5', 'days: must be a whole number');
    });

    it('documents the new routes in the OpenAPI document', async () => {
      const doc = (await call('GET', '/api/v1/openapi.json')).json<{ paths: Record<string, Record<string, { summary?: string }>> }>();
      for (const [path, method] of [
        ['/api/v1/facts', 'get'],
        ['/api/v1/facts/expiring', 'get'],
        ['/api/v1/timeline', 'get'],
        ['/api/v1/agents/activity', 'get'],
        ['/api/v1/conflicts/{id}/resolve', 'post'],
        ['/api/v1/session', 'post'],
        ['/api/v1/session', 'get'],
        ['/api/v1/session', 'delete'],
      ] as const) {
        expect(doc.paths[path]?.[method]?.summary, `${method} ${path}`).toEqual(expect.any(String));
      }
    });
  });
});
