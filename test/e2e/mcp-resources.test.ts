/**
 * Resources and prompts (SPEC §2) as real clients meet them: a 2026-07-28 client (SDK v2) and a
 * 2025-11-25 one (SDK 1.x) list and read the workspace summary, the open conflicts, one conflict
 * and the recent changes of a scope, and get every prompt. Seeded with a real conflict that the
 * server's worker detects in the background. A caller with an invite key gets no resources (and is
 * told to join), a reader gets no prompt that writes, and a member kept out of a scope reads none
 * of its facts through a resource.
 */
import type { CommitOutput, ConflictItem, ConflictsOutput } from '@engram/core';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mustCall, provisionOverHttp, startTestServer } from '../support/mcp.ts';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** What both SDK generations' clients offer that these tests use. */
interface AnyClient {
  listResources(): Promise<{ resources: { uri: string; name: string; title?: string; mimeType?: string }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string; name: string; mimeType?: string }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: { uri: string; mimeType?: string; text?: unknown }[] }>;
  listPrompts(): Promise<{ prompts: { name: string; description?: string; arguments?: { name: string; required?: boolean }[] }[] }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{ messages: { role: string; content: unknown }[] }>;
  getServerCapabilities(): { tools?: object; prompts?: object; resources?: object } | undefined;
  close(): Promise<void>;
}

interface Change {
  id: string;
  scope: string;
  content: string;
  agent_id: string;
  valid_from: string;
  valid_until: string | null;
  closed_by: string | null;
}
interface Changes {
  scope: string | null;
  changes: Change[];
  truncated: boolean;
}

const PROMPTS = ['onboard', 'review-conflicts', 'record-learnings'];

describe('MCP resources and prompts', () => {
  let server: Server;
  let mcpUrl: URL;
  let owner: string;
  let inviteKey: string;
  /** A member who may not read `payments`. */
  let restricted: string;
  let reader: string;
  let conflict: ConflictItem;
  let hiddenConflict: ConflictItem;
  let webhooks: CommitOutput;
  const clients: AnyClient[] = [];

  const rest = async <T>(token: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };

  async function modern(token: string): Promise<ModernClient> {
    const client = new ModernClient({ name: 'engram-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new ModernTransport(mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  }

  async function legacy(token: string): Promise<LegacyClient> {
    const client = new LegacyClient({ name: 'engram-2025', version: '1.0.0' });
    const transport = new LegacyTransport(mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    await client.connect(transport);
    expect(transport.protocolVersion).toBe('2025-11-25');
    clients.push(client);
    return client;
  }

  const joinAs = async (invite: string, name: string) =>
    (await rest<{ token: string; member_id: string }>(owner, 'POST', '/api/v1/join', { invite_key: invite, display_name: name }));

  beforeAll(async () => {
    server = await startTestServer({ inProcessWorker: true });
    mcpUrl = new URL(`${server.baseUrl}/mcp`);
    const created = await provisionOverHttp(server.baseUrl);
    owner = created.owner_token;
    inviteKey = created.invite_key;

    const client = await legacy(owner);
    const commit = (content: string, agent: string, scope: string) =>
      mustCall<CommitOutput>(client, 'engram_commit', { content, scope, confidence: 0.9, agent_id: agent });
    await commit('The auth service rate limit is 1000 req/s per IP', 'agent-a', 'auth');
    await commit('The auth service rate limit is 2000 req/s per IP', 'agent-b', 'auth');
    await commit('The payments webhook timeout is 30 seconds', 'agent-a', 'payments');
    await commit('The payments webhook timeout is 60 seconds', 'agent-b', 'payments');
    webhooks = await commit('Payment webhooks are signed with HMAC-SHA256', 'agent-a', 'payments/webhooks');

    // Detection runs in the background: wait on the queue, not on a clock.
    for (;;) {
      const status = await rest<{ pending_jobs: number; running_jobs: number; runs_total: number }>(owner, 'GET', '/api/v1/detection/status');
      if (status.pending_jobs === 0 && status.running_jobs === 0 && status.runs_total > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const found = await mustCall<ConflictsOutput>(client, 'engram_conflicts', {});
    const byScope = Object.fromEntries(found.groups.map((g) => [g.scope, g.conflicts]));
    expect(byScope.auth, JSON.stringify(found)).toHaveLength(1);
    expect(byScope.payments, JSON.stringify(found)).toHaveLength(1);
    conflict = byScope.auth![0]!;
    hiddenConflict = byScope.payments![0]!;

    const mia = await joinAs(inviteKey, 'Mia');
    await rest(owner, 'POST', '/api/v1/scope-permissions', { member_id: mia.member_id, scope_prefix: 'payments', can_read: false, can_write: false });
    restricted = mia.token;
    const readerInvite = await rest<{ invite_key: string }>(owner, 'POST', '/api/v1/invites', { role: 'reader' });
    reader = (await joinAs(readerInvite.invite_key, 'Rey')).token;
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.stop();
  });

  const json = async <T>(client: AnyClient, uri: string): Promise<T> => {
    const { contents } = await client.readResource({ uri });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
    return JSON.parse(contents[0]!.text as string) as T;
  };
  const promptText = async (client: AnyClient, name: string, args: Record<string, string> = {}) => {
    const { messages } = await client.getPrompt({ name, arguments: args });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ role: 'user', content: { type: 'text' } });
    return (messages[0]!.content as { text: string }).text;
  };

  /** Everything a member's client sees, the same whichever protocol revision it speaks. */
  async function readsEverything(client: AnyClient) {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['engram://workspace', 'engram://conflicts', 'engram://changes', 'ui://engram/conflicts', `engram://conflicts/${conflict.conflict_id}`, `engram://conflicts/${hiddenConflict.conflict_id}`]);
    // Every resource is JSON, but the conflict queue MCP App (test/e2e/mcp-app.test.ts).
    expect(resources.filter((r) => r.mimeType !== 'application/json').map((r) => [r.uri, r.mimeType])).toEqual([['ui://engram/conflicts', 'text/html;profile=mcp-app']]);
    expect(resources.find((r) => r.uri.endsWith(conflict.conflict_id))?.title).toBe(conflict.question);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => [t.name, t.uriTemplate])).toEqual([
      ['conflict', 'engram://conflicts/{conflict_id}'],
      ['scope-changes', 'engram://changes/{+scope}'],
    ]);

    const summary = await json<Record<string, unknown>>(client, 'engram://workspace');
    expect(summary).toMatchObject({
      engram_id: expect.stringMatching(/^ENG-/),
      workspace: { name: expect.any(String), members: 3, settings: { anonymous_mode: false } },
      member: { role: 'owner' },
      memory: { current_facts: 5, open_conflicts: 2 },
      detective: { narrative: 'off' },
    });

    const open = await json<ConflictsOutput>(client, 'engram://conflicts');
    expect(open.total).toBe(2);
    expect(open.groups.flatMap((g) => g.conflicts.map((c) => c.conflict_id)).sort()).toEqual([conflict.conflict_id, hiddenConflict.conflict_id].sort());

    const one = await json<ConflictItem>(client, `engram://conflicts/${conflict.conflict_id}`);
    expect(one).toEqual(conflict);

    const auth = await json<Changes>(client, 'engram://changes/auth');
    expect(auth.scope).toBe('auth');
    expect(auth.changes.map((c) => c.content)).toEqual(['The auth service rate limit is 2000 req/s per IP', 'The auth service rate limit is 1000 req/s per IP']);
    expect(auth.changes[0]).toMatchObject({ agent_id: 'agent-b', valid_until: null, closed_by: null });
    // `{+scope}` takes a path; a scope includes the scopes below it.
    const nested = await json<Changes>(client, 'engram://changes/payments/webhooks');
    expect(nested.changes.map((c) => c.id)).toEqual([webhooks.fact_id]);
    expect((await json<Changes>(client, 'engram://changes/payments')).changes).toHaveLength(3);
    const everything = await json<Changes>(client, 'engram://changes');
    expect(everything).toMatchObject({ scope: null, truncated: false });
    expect(everything.changes).toHaveLength(5);
    expect(everything.changes[0]!.id).toBe(webhooks.fact_id); // newest first

    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(PROMPTS);
    expect(prompts.every((p) => p.description)).toBe(true);
    expect(prompts.find((p) => p.name === 'onboard')?.arguments).toEqual([
      { name: 'invite_key', description: expect.stringContaining('"ek_"'), required: false },
      { name: 'display_name', description: 'How teammates should see you.', required: false },
    ]);

    const onboard = await promptText(client, 'onboard', { invite_key: 'ek_example', display_name: 'Ana' });
    expect(onboard).toMatch(/engram_status[\s\S]*engram_join[\s\S]*"ek_example"[\s\S]*"Ana"[\s\S]*Claude Code, Cursor, VS Code and Claude Desktop/);
    const review = await promptText(client, 'review-conflicts', { scope: 'Auth' });
    expect(review).toContain('engram_conflicts with scope "auth"');
    expect(review).toContain('engram_resolve');
    const record = await promptText(client, 'record-learnings', { scope: 'payments/webhooks' });
    expect(record).toContain('engram_commit, in scope "payments/webhooks"');
    // The commit guidance of engram_commit's description, word for word.
    expect(record).toContain('Only commit what you verified by reading code, running tests or observing behaviour.');
    expect(record).toMatch(/Never include secrets/);
    expect(await promptText(client, 'record-learnings')).toContain('each in the scope it is about');
  }

  it('serves a 2026-07-28 client every resource, template and prompt', async () => {
    await readsEverything(await modern(owner));
  });

  it('serves a 2025-11-25 client (SDK 1.x) the same', async () => {
    await readsEverything(await legacy(owner));
  });

  it.each([
    ['2026-07-28', modern],
    ['2025-11-25', legacy],
  ] as const)('answers a bad read or prompt with an error that says what to change (%s)', async (_revision, connect) => {
    const client: AnyClient = await connect(owner);
    await expect(client.readResource({ uri: 'engram://conflicts/8b7a1c1e-1d7c-4c1e-9a57-0a4f3a1b2c3d' })).rejects.toThrow(/Conflict 8b7a1c1e-1d7c-4c1e-9a57-0a4f3a1b2c3d was not found/);
    await expect(client.readResource({ uri: 'engram://conflicts/not-a-uuid' })).rejects.toThrow(/was not found/);
    await expect(client.readResource({ uri: 'engram://changes/Bad%20Scope!' })).rejects.toThrow(/scope: must be a path like "auth"/);
    await expect(client.readResource({ uri: 'engram://nothing-here' })).rejects.toThrow(/not found/i);
    await expect(client.getPrompt({ name: 'review-conflicts', arguments: { scope: '//' } })).rejects.toThrow(/scope: must not be empty/);
  });

  it.each([
    ['2026-07-28', modern],
    ['2025-11-25', legacy],
  ] as const)('lists no resources to an invite-key bearer, and tells it to join first (%s)', async (_revision, connect) => {
    const client: AnyClient = await connect(inviteKey);
    // No resources capability: the v2 client lists nothing without asking; asked anyway, the
    // server has no resources/list for this caller.
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, prompts: {} });
    expect(client.getServerCapabilities()?.resources).toBeUndefined();
    const none = (error: Error) => (/Method not found/.test(error.message) ? { resources: [], resourceTemplates: [] } : Promise.reject(error));
    expect((await client.listResources().catch(none)).resources).toEqual([]);
    expect((await client.listResourceTemplates().catch(none)).resourceTemplates).toEqual([]);
    for (const uri of ['engram://workspace', `engram://conflicts/${conflict.conflict_id}`, 'engram://changes/auth']) {
      await expect(client.readResource({ uri })).rejects.toThrow(/needs a member token, and this connection presents an invite key\. Join first: call engram_join/);
    }
    // Onboarding is for exactly this caller; the others need a member.
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['onboard']);
    const onboard = await promptText(client, 'onboard');
    expect(onboard).toContain('already presents the invite key, so engram_join needs no invite_key');
    expect(onboard).toContain('Ask me how teammates should see me (display_name)');
    await expect(client.getPrompt({ name: 'review-conflicts', arguments: {} })).rejects.toThrow(/review-conflicts needs a member token.*engram_join/);
  });

  it('gives a reader every resource, and no prompt that writes', async () => {
    const client: AnyClient = await modern(reader);
    expect((await json<{ member: { role: string } }>(client, 'engram://workspace')).member.role).toBe('reader');
    expect((await json<ConflictsOutput>(client, 'engram://conflicts')).total).toBe(2);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['onboard', 'review-conflicts']);
    const review = await promptText(client, 'review-conflicts');
    expect(review).toContain('read-only (reader role)');
    expect(review).not.toContain('engram_resolve, with my reason');
    await expect(client.getPrompt({ name: 'record-learnings', arguments: {} })).rejects.toThrow(/record-learnings changes the workspace, and your member role is "reader"/);
  });

  it('reads no fact of a scope the member may not read, through any resource', async () => {
    const client: AnyClient = await legacy(restricted);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`engram://conflicts/${conflict.conflict_id}`);
    expect(resources.map((r) => r.uri)).not.toContain(`engram://conflicts/${hiddenConflict.conflict_id}`);

    const open = await json<ConflictsOutput>(client, 'engram://conflicts');
    expect(open.groups.map((g) => g.scope)).toEqual(['auth']);
    expect(await json<ConflictItem>(client, `engram://conflicts/${conflict.conflict_id}`)).toEqual(conflict);
    // Not "forbidden": whether it exists is not theirs to learn.
    await expect(client.readResource({ uri: `engram://conflicts/${hiddenConflict.conflict_id}` })).rejects.toThrow(/was not found/);

    expect((await json<Changes>(client, 'engram://changes/payments')).changes).toEqual([]);
    expect((await json<Changes>(client, 'engram://changes/payments/webhooks')).changes).toEqual([]);
    const everything = await json<Changes>(client, 'engram://changes');
    expect(everything.changes.map((c) => c.scope)).toEqual(['auth', 'auth']);
    for (const uri of ['engram://workspace', 'engram://conflicts', 'engram://changes']) {
      const { contents } = await client.readResource({ uri });
      expect(contents[0]!.text).not.toMatch(/payments|webhook/i);
    }
  });
});
