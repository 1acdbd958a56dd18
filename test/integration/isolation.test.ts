/**
 * Tenant isolation: with workspace A's owner token, every MCP tool and REST route is tried with
 * workspace B's ids and scopes. Nothing of B may be read, changed or revealed — not even by an
 * error that differs between "exists in another workspace" and "does not exist" (each probe is
 * run with B's id and with a random id, and the two answers must be identical).
 *
 * The probe table is the place to add a row when a tool or route that takes an id is added.
 */
import { randomUUID } from 'node:crypto';
import { createInviteFor, provisionWorkspace, issueToken, type ProvisionedWorkspace } from '@engram/core';
import {
  auditLog,
  conflictFacts,
  conflicts,
  facts,
  forWorkspace,
  invites,
  members,
  scopePermissions,
  tokens,
  workspaces,
  type DbHandle,
} from '@engram/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET, testApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const HOST = 'localhost:8080';

interface Foreign {
  factId: string;
  ephemeralFactId: string;
  lineageId: string;
  conflictId: string;
  inviteId: string;
  memberId: string;
  tokenId: string;
  permissionId: string;
  scope: string;
  contents: string[];
}

type IdKind = 'fact' | 'ephemeral fact' | 'lineage' | 'conflict' | 'invite' | 'member' | 'token' | 'scope permission';

interface IdProbe {
  surface: string;
  kind: IdKind;
  send(app: FastifyInstance, token: string, id: string): Promise<LightMyRequestResponse>;
}

const mcpCall = (app: FastifyInstance, token: string, name: string, args: Record<string, unknown>) =>
  app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { host: HOST, authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });
const rest = (app: FastifyInstance, token: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  app.inject({ method, url, headers: { host: HOST, authorization: `Bearer ${token}` }, ...(payload ? { payload: payload as Record<string, unknown> } : {}) });

/** Every (tool or route) × (foreign id kind) combination that takes an id. */
const ID_PROBES: IdProbe[] = [
  { surface: 'engram_promote', kind: 'ephemeral fact', send: (app, t, id) => mcpCall(app, t, 'engram_promote', { fact_id: id }) },
  { surface: 'engram_promote', kind: 'fact', send: (app, t, id) => mcpCall(app, t, 'engram_promote', { fact_id: id }) },
  { surface: 'engram_promote', kind: 'conflict', send: (app, t, id) => mcpCall(app, t, 'engram_promote', { fact_id: id }) },
  {
    surface: 'engram_commit (corrects_lineage)',
    kind: 'lineage',
    send: (app, t, id) => mcpCall(app, t, 'engram_commit', { content: 'A corrects something', scope: 'probe', confidence: 1, corrects_lineage: id }),
  },
  {
    surface: 'engram_commit (corrects_lineage)',
    kind: 'fact',
    send: (app, t, id) => mcpCall(app, t, 'engram_commit', { content: 'A corrects a fact id', scope: 'probe', confidence: 1, corrects_lineage: id }),
  },
  {
    surface: 'engram_commit (operation delete)',
    kind: 'lineage',
    send: (app, t, id) => mcpCall(app, t, 'engram_commit', { content: 'retire', scope: 'probe', confidence: 1, operation: 'delete', corrects_lineage: id }),
  },
  {
    surface: 'engram_commit (operation update)',
    kind: 'lineage',
    send: (app, t, id) => mcpCall(app, t, 'engram_commit', { content: 'A updates', scope: 'probe', confidence: 1, operation: 'update', corrects_lineage: id }),
  },
  { surface: 'DELETE /api/v1/invites/:id', kind: 'invite', send: (app, t, id) => rest(app, t, 'DELETE', `/api/v1/invites/${id}`) },
  { surface: 'DELETE /api/v1/tokens/:id', kind: 'token', send: (app, t, id) => rest(app, t, 'DELETE', `/api/v1/tokens/${id}`) },
  { surface: 'POST /api/v1/tokens', kind: 'member', send: (app, t, id) => rest(app, t, 'POST', '/api/v1/tokens', { member_id: id }) },
  { surface: 'DELETE /api/v1/members/:member_id', kind: 'member', send: (app, t, id) => rest(app, t, 'DELETE', `/api/v1/members/${id}`) },
  {
    surface: 'POST /api/v1/scope-permissions',
    kind: 'member',
    send: (app, t, id) => rest(app, t, 'POST', '/api/v1/scope-permissions', { member_id: id, scope_prefix: 'probe' }),
  },
  { surface: 'DELETE /api/v1/scope-permissions/:id', kind: 'scope permission', send: (app, t, id) => rest(app, t, 'DELETE', `/api/v1/scope-permissions/${id}`) },
  { surface: 'DELETE /api/v1/invites/:id', kind: 'conflict', send: (app, t, id) => rest(app, t, 'DELETE', `/api/v1/invites/${id}`) },
  { surface: 'DELETE /api/v1/tokens/:id', kind: 'member', send: (app, t, id) => rest(app, t, 'DELETE', `/api/v1/tokens/${id}`) },
  { surface: 'POST /api/v1/facts/:id/restore', kind: 'fact', send: (app, t, id) => rest(app, t, 'POST', `/api/v1/facts/${id}/restore`) },
  { surface: 'POST /api/v1/facts/:id/restore', kind: 'conflict', send: (app, t, id) => rest(app, t, 'POST', `/api/v1/facts/${id}/restore`) },
  {
    surface: 'engram_resolve',
    kind: 'conflict',
    send: (app, t, id) => mcpCall(app, t, 'engram_resolve', { conflict_id: id, resolution_type: 'dismissed', resolution: 'probe' }),
  },
  {
    surface: 'POST /api/v1/conflicts/:id/resolve',
    kind: 'conflict',
    send: (app, t, id) => rest(app, t, 'POST', `/api/v1/conflicts/${id}/resolve`, { resolution_type: 'dismissed', resolution: 'probe' }),
  },
  {
    surface: 'POST /api/v1/conflicts/:id/resolve (merged_content)',
    kind: 'conflict',
    send: (app, t, id) =>
      rest(app, t, 'POST', `/api/v1/conflicts/${id}/resolve`, { resolution_type: 'merge', resolution: 'probe', merged_content: 'A merges into a foreign conflict' }),
  },
];

/** Probes that take a scope or list things: B's data must never appear. */
interface ScopeProbe {
  surface: string;
  send(app: FastifyInstance, token: string, foreign: Foreign): Promise<LightMyRequestResponse>;
}
const SCOPE_PROBES: ScopeProbe[] = [
  { surface: 'engram_status', send: (app, t) => mcpCall(app, t, 'engram_status', {}) },
  { surface: 'engram_query (scope)', send: (app, t, f) => mcpCall(app, t, 'engram_query', { topic: f.contents[0]!, scope: f.scope }) },
  { surface: 'engram_query (history)', send: (app, t, f) => mcpCall(app, t, 'engram_query', { topic: f.contents[0]!, include_history: true, include_ephemeral: true }) },
  { surface: 'engram_query (as_of)', send: (app, t, f) => mcpCall(app, t, 'engram_query', { topic: f.contents[1]!, as_of: new Date().toISOString() }) },
  { surface: 'engram_commit (scope)', send: (app, t, f) => mcpCall(app, t, 'engram_commit', { content: 'A writes to a scope named like B\'s', scope: f.scope, confidence: 1 }) },
  { surface: 'GET /api/v1/facts/since (scope)', send: (app, t, f) => rest(app, t, 'GET', `/api/v1/facts/since?scope=${f.scope}`) },
  { surface: 'GET /api/v1/facts/since', send: (app, t) => rest(app, t, 'GET', '/api/v1/facts/since') },
  {
    surface: 'POST /api/v1/facts/import (scope)',
    send: (app, t, f) => rest(app, t, 'POST', '/api/v1/facts/import', { facts: [{ content: 'A imports into a scope named like B\'s', scope: f.scope, agent_id: 'a', committed_at: new Date().toISOString() }] }),
  },
  { surface: 'GET /api/v1/workspace', send: (app, t) => rest(app, t, 'GET', '/api/v1/workspace') },
  { surface: 'PATCH /api/v1/workspace', send: (app, t) => rest(app, t, 'PATCH', '/api/v1/workspace', { settings: { anon_agents: true } }) },
  { surface: 'GET /api/v1/members', send: (app, t) => rest(app, t, 'GET', '/api/v1/members') },
  { surface: 'GET /api/v1/tokens', send: (app, t) => rest(app, t, 'GET', '/api/v1/tokens') },
  { surface: 'GET /api/v1/invites', send: (app, t) => rest(app, t, 'GET', '/api/v1/invites') },
  { surface: 'POST /api/v1/invites/rotate', send: (app, t) => rest(app, t, 'POST', '/api/v1/invites/rotate', {}) },
  { surface: 'GET /api/v1/scope-permissions', send: (app, t) => rest(app, t, 'GET', '/api/v1/scope-permissions') },
  { surface: 'GET /api/v1/audit', send: (app, t) => rest(app, t, 'GET', '/api/v1/audit?limit=500') },
  { surface: 'engram_conflicts (scope)', send: (app, t, f) => mcpCall(app, t, 'engram_conflicts', { scope: f.scope, status: 'all' }) },
  { surface: 'engram_conflicts', send: (app, t) => mcpCall(app, t, 'engram_conflicts', { status: 'all' }) },
  { surface: 'GET /api/v1/conflicts', send: (app, t) => rest(app, t, 'GET', '/api/v1/conflicts?status=all') },
  { surface: 'GET /api/v1/detection/status', send: (app, t) => rest(app, t, 'GET', '/api/v1/detection/status') },
  { surface: 'GET /api/v1/facts (scope)', send: (app, t, f) => rest(app, t, 'GET', `/api/v1/facts?scope=${f.scope}`) },
  { surface: 'GET /api/v1/facts (q, as_of)', send: (app, t) => rest(app, t, 'GET', `/api/v1/facts?q=Workspace&as_of=${new Date().toISOString()}`) },
  { surface: 'GET /api/v1/facts/expiring', send: (app, t) => rest(app, t, 'GET', '/api/v1/facts/expiring?within_days=365') },
  { surface: 'GET /api/v1/timeline', send: (app, t) => rest(app, t, 'GET', '/api/v1/timeline') },
  { surface: 'GET /api/v1/agents/activity', send: (app, t) => rest(app, t, 'GET', '/api/v1/agents/activity?days=365') },
];

/** An answer with volatile parts (ids, request ids, timestamps) replaced, for comparison. */
function normalized(res: LightMyRequestResponse, id: string): string {
  return `${res.statusCode} ${res.body
    .replaceAll(id, '<ID>')
    .replace(/"request_id":"[^"]+"/g, '"request_id":"<REQ>"')
    .replace(/"id":\d+/g, '"id":<N>')}`;
}

describe.each(testDatabases())('tenant isolation on $name', (engine) => {
  let handle: DbHandle;
  let app: FastifyInstance;
  let a: ProvisionedWorkspace;
  let b: ProvisionedWorkspace;
  let foreign: Foreign;
  let snapshotB: () => Promise<string>;

  beforeAll(async () => {
    handle = await engine.open();
    app = await testApp(handle, { openSignup: true });
    a = await provisionWorkspace(handle.db, TEST_SECRET, { name: 'A' });
    b = await provisionWorkspace(handle.db, TEST_SECRET, { name: 'B' });

    // Fill workspace B through its own API, then add what the API cannot make yet (a conflict).
    const contents = ['Workspace B stores invoices in S3 bucket b-invoices', 'Workspace B rate limit is 777 req/s', 'Workspace B scratch note on retries'];
    const commit = async (args: Record<string, unknown>) =>
      (await mcpCall(app, b.ownerToken, 'engram_commit', { confidence: 1, scope: 'b-secrets', ...args })).json<{ result: { structuredContent: { fact_id: string; lineage_id: string } } }>().result.structuredContent;
    const fact = await commit({ content: contents[0] });
    await commit({ content: contents[1] });
    const ephemeral = await commit({ content: contents[2], durability: 'ephemeral' });
    const tenantB = forWorkspace(handle.db, b.workspaceId);
    const [conflict] = await tenantB
      .insert(conflicts, { kind: 'value_mismatch', question: 'Is B right?', detectedBy: 'tier0_entity', severity: 'high', factSetKey: fact.fact_id })
      .returning();
    await tenantB.insert(conflictFacts, { conflictId: conflict!.id, factId: fact.fact_id });
    const invite = await createInviteFor(handle.db, TEST_SECRET, await ownerPrincipal(b), { role: 'member', max_uses: 5, expires_in_days: 7 });
    const [member] = await tenantB.insert(members, { role: 'member', displayName: 'B-person' }).returning();
    const { tokenId } = await issueToken(tenantB, member!.id, 'b token');
    const [permission] = await tenantB.insert(scopePermissions, { memberId: member!.id, scopePrefix: 'b-secrets' }).returning();
    foreign = {
      factId: fact.fact_id,
      ephemeralFactId: ephemeral.fact_id,
      lineageId: fact.lineage_id,
      conflictId: conflict!.id,
      inviteId: invite.invite_id,
      memberId: member!.id,
      tokenId,
      permissionId: permission!.id,
      scope: 'b-secrets',
      contents,
    };

    snapshotB = async () => {
      const t = forWorkspace(handle.db, b.workspaceId);
      const [ws] = await handle.db.select().from(workspaces).where(eq(workspaces.id, b.workspaceId));
      return JSON.stringify({
        workspace: { name: ws?.name, settings: ws?.settings },
        facts: (await t.select(facts).orderBy(facts.id)).map((f) => [f.id, f.validUntil, f.durability, f.queryHits, f.corroboratingAgents]),
        invites: (await t.select(invites).orderBy(invites.id)).map((i) => [i.id, i.revokedAt, i.usesRemaining]),
        members: (await t.select(members).orderBy(members.id)).map((m) => [m.id, m.role, m.removedAt]),
        tokens: (await t.select(tokens).orderBy(tokens.id)).map((x) => [x.id, x.revokedAt]),
        permissions: (await t.select(scopePermissions).orderBy(scopePermissions.id)).map((p) => p.id),
        conflicts: (await t.select(conflicts)).map((c) => [c.id, c.status]),
      });
    };
  });
  afterAll(async () => {
    await app?.close();
    await handle?.close();
  });

  async function ownerPrincipal(w: ProvisionedWorkspace) {
    const { authenticateToken } = await import('@engram/core');
    return authenticateToken(handle.db, w.ownerToken);
  }

  const idOf = (kind: IdKind): string =>
    ({
      fact: foreign.factId,
      'ephemeral fact': foreign.ephemeralFactId,
      lineage: foreign.lineageId,
      conflict: foreign.conflictId,
      invite: foreign.inviteId,
      member: foreign.memberId,
      token: foreign.tokenId,
      'scope permission': foreign.permissionId,
    })[kind];

  const bSecrets = () => [
    ...foreign.contents,
    foreign.factId,
    foreign.ephemeralFactId,
    foreign.conflictId,
    foreign.inviteId,
    foreign.memberId,
    foreign.tokenId,
    foreign.permissionId,
    b.workspaceId,
    b.engramId,
    'B-person',
    'Is B right?',
  ];

  it(`tries ${ID_PROBES.length + SCOPE_PROBES.length} (tool or route) × (foreign id kind) combinations: ${ID_PROBES.length} with ids, ${SCOPE_PROBES.length} with scopes and listings`, async () => {
    const before = await snapshotB();

    for (const probe of ID_PROBES) {
      const foreignId = idOf(probe.kind);
      const withForeign = await probe.send(app, a.ownerToken, foreignId);
      const missingId = randomUUID();
      const withMissing = await probe.send(app, a.ownerToken, missingId);
      expect(normalized(withForeign, foreignId), `${probe.surface} × ${probe.kind}`).toBe(normalized(withMissing, missingId));
      expect(withForeign.statusCode === 200 ? withForeign.body : '', `${probe.surface} × ${probe.kind}`).not.toMatch(/"isError":false|structuredContent/);
      for (const secret of bSecrets().filter((s) => s !== foreignId)) {
        expect(withForeign.body, `${probe.surface} × ${probe.kind} leaked ${secret}`).not.toContain(secret);
      }
    }

    // A's own audit log records the ids A itself sent above; that echoes A's input, not B's data.
    const probedIds = new Set(ID_PROBES.map((p) => idOf(p.kind)));
    for (const probe of SCOPE_PROBES) {
      const res = await probe.send(app, a.ownerToken, foreign);
      expect(res.statusCode, probe.surface).toBeLessThan(500);
      for (const secret of bSecrets().filter((x) => !(probe.surface === 'GET /api/v1/audit' && probedIds.has(x)))) {
        expect(res.body, `${probe.surface} leaked ${secret}`).not.toContain(secret);
      }
    }

    // B is exactly as it was; what A wrote landed in A.
    expect(await snapshotB()).toBe(before);
    const aFacts = await forWorkspace(handle.db, a.workspaceId).select(facts);
    expect(aFacts.map((f) => f.scope)).toEqual(expect.arrayContaining(['b-secrets']));
    const bAudit = await forWorkspace(handle.db, b.workspaceId).select(auditLog, eq(auditLog.memberId, (await ownerPrincipal(a)).memberId));
    expect(bAudit).toEqual([]);
  });

  it('keeps a conflict of B from flagging anything A can see', async () => {
    const res = await mcpCall(app, a.ownerToken, 'engram_query', { topic: foreign.contents[0]!, include_history: true });
    const results = res.json<{ result: { structuredContent: { results: { has_open_conflict: boolean; fact_id: string }[] } } }>().result.structuredContent.results;
    expect(results.every((r) => r.fact_id !== foreign.factId && !r.has_open_conflict)).toBe(true);
  });
});
