/**
 * People beside their facts, on each engine: a member's display name next to the agent id in
 * engram_query, engram_conflicts and the conflict resource over a real MCP connection; who may rename
 * whom, and names unique in a workspace (ignoring case and spaces) whichever way a name arrives
 * (rename, join); a first owner with no name; invite labels.
 */
import { provisionWorkspace } from '@engram/core';
import { describe, expect, it } from 'vitest';
import { appSuite, TEST_SECRET } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { connectMcp, isolatedServerEngines, mustCall, provisionOverHttp, serverSuite } from '../support/mcp.ts';

const HOST = 'localhost:8080';

interface ErrorBody {
  error: { code: string; message: string };
}
interface MemberView {
  member_id: string;
  display_name: string | null;
  role: string;
  you: boolean;
}
interface QueryFact {
  content: string;
  agent_id: string;
  member: string | null;
}
interface ConflictFact {
  fact_id: string;
  content: string;
  agent_id: string;
  member: string | null;
}
interface Conflicts {
  groups: { conflicts: { conflict_id: string; facts: ConflictFact[] }[] }[];
}

describe.each(testDatabases())('member names and invite labels on $name', (engine) => {
  const suite = appSuite(engine);

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token?: string, payload?: Record<string, unknown>) =>
    suite.app.inject({
      method,
      url,
      headers: { host: HOST, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(payload ? { payload } : {}),
    });
  const rename = (token: string, memberId: string, displayName: unknown) => call('PATCH', `/api/v1/members/${memberId}`, token, { display_name: displayName });
  const membersSeenBy = async (token: string) => (await call('GET', '/api/v1/members', token)).json<{ members: MemberView[] }>().members;
  const nameOf = async (token: string, memberId: string) => (await membersSeenBy(token)).find((m) => m.member_id === memberId)?.display_name;

  async function team() {
    const created = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'Names', owner_display_name: 'Olive', invite: { max_uses: 10 } });
    const joinAs = async (role: 'member' | 'reader', display_name: string) => {
      const invite = (await call('POST', '/api/v1/invites', created.ownerToken, { role })).json<{ invite_key: string }>();
      const joined = await call('POST', '/api/v1/join', undefined, { invite_key: invite.invite_key, display_name });
      expect(joined.statusCode, joined.body).toBe(201);
      return joined.json<{ token: string; member_id: string }>();
    };
    return { ...created, mia: await joinAs('member', 'Mia'), rex: await joinAs('reader', 'Rex') };
  }

  it('lets anyone rename themselves and owners rename anyone, but not a member rename someone else', async () => {
    const t = await team();
    const self = await rename(t.mia.token, t.mia.member_id, '  Mia Lopez ');
    expect(self.statusCode, self.body).toBe(200);
    expect(self.json()).toEqual({ member_id: t.mia.member_id, role: 'member', display_name: 'Mia Lopez', previous_display_name: 'Mia' });
    expect(await nameOf(t.ownerToken, t.mia.member_id)).toBe('Mia Lopez');

    // A reader's name is theirs to change too: naming oneself writes nothing to the team's memory.
    expect((await rename(t.rex.token, t.rex.member_id, 'Rex R.')).statusCode).toBe(200);

    const byOwner = await rename(t.ownerToken, t.rex.member_id, 'Rex Reader');
    expect(byOwner.statusCode, byOwner.body).toBe(200);
    expect(await nameOf(t.mia.token, t.rex.member_id)).toBe('Rex Reader');

    const refused = await rename(t.mia.token, t.rex.member_id, 'Not Rex');
    expect(refused.statusCode).toBe(403);
    expect(refused.json<ErrorBody>().error).toMatchObject({
      code: 'forbidden',
      message: 'Only workspace owners can rename other members. You can rename yourself with your own member id.',
    });
    expect(await nameOf(t.ownerToken, t.rex.member_id)).toBe('Rex Reader');

    // engram_status shows the new name at once (the token cache is dropped on rename).
    const status = await suite.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { host: HOST, authorization: `Bearer ${t.mia.token}`, accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'engram_status', arguments: {} } },
    });
    expect(status.json<{ result: { structuredContent: { member: { display_name: string } } } }>().result.structuredContent.member.display_name).toBe('Mia Lopez');
  });

  it('refuses a name another live member holds, ignoring case and spaces, and says what to change', async () => {
    const t = await team();
    const taken = await rename(t.mia.token, t.mia.member_id, ' olive ');
    expect(taken.statusCode).toBe(409);
    expect(taken.json<ErrorBody>().error).toMatchObject({
      code: 'conflict',
      message:
        'Another member of this workspace is already called "olive" (names are compared ignoring case), and each name must say whose facts are whose. ' +
        'Choose a different display_name, for example with a surname or initial added.',
    });
    expect(await nameOf(t.ownerToken, t.mia.member_id)).toBe('Mia');

    // One's own name in another spelling is not someone else's.
    expect((await rename(t.mia.token, t.mia.member_id, 'MIA')).statusCode).toBe(200);

    // Joining under a taken name is refused the same way, and spends none of the invite's uses.
    const invite = (await call('POST', '/api/v1/invites', t.ownerToken, { max_uses: 1 })).json<{ invite_id: string; invite_key: string }>();
    const clash = await call('POST', '/api/v1/join', undefined, { invite_key: invite.invite_key, display_name: 'Rex' });
    expect(clash.statusCode).toBe(409);
    expect(clash.json<ErrorBody>().error.message).toContain('already called "Rex"');
    const listed = (await call('GET', '/api/v1/invites', t.ownerToken)).json<{ invites: { invite_id: string; uses_remaining: number }[] }>().invites;
    expect(listed.find((i) => i.invite_id === invite.invite_id)?.uses_remaining).toBe(1);
    expect((await call('POST', '/api/v1/join', undefined, { invite_key: invite.invite_key, display_name: 'Rex Two' })).statusCode).toBe(201);

    // A removed member's name is free again.
    expect((await call('DELETE', `/api/v1/members/${t.rex.member_id}`, t.ownerToken)).statusCode).toBe(200);
    expect((await rename(t.mia.token, t.mia.member_id, 'rex')).statusCode).toBe(200);
    // ... and a removed member keeps the name they had.
    const late = await rename(t.ownerToken, t.rex.member_id, 'Gone');
    expect(late.statusCode).toBe(409);
    expect(late.json<ErrorBody>().error.message).toMatch(/was removed from the workspace at .*keeps the name they had/);

    // Names in other workspaces do not count.
    const other = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'Elsewhere', owner_display_name: 'Olive' });
    expect(await nameOf(other.ownerToken, other.ownerMemberId)).toBe('Olive');
  });

  it('validates the new name', async () => {
    const t = await team();
    const blank = await rename(t.mia.token, t.mia.member_id, '   ');
    expect(blank.statusCode).toBe(400);
    expect(blank.json<ErrorBody>().error.message).toBe('Invalid input: display_name: must not be empty');
    const long = await rename(t.mia.token, t.mia.member_id, 'x'.repeat(101));
    expect(long.json<ErrorBody>().error.message).toBe('Invalid input: display_name: must be at most 100 characters');
    const missing = await rename(t.ownerToken, '00000000-0000-4000-8000-000000000000', 'Nobody');
    expect(missing.statusCode).toBe(404);
  });

  it('names a first owner nobody named "Owner", renamable like anyone', async () => {
    const created = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'Unnamed' });
    expect(created.ownerName).toBe('Owner');
    expect(await nameOf(created.ownerToken, created.ownerMemberId)).toBe('Owner');
    expect((await rename(created.ownerToken, created.ownerMemberId, 'Ada')).statusCode).toBe(200);
    expect(await nameOf(created.ownerToken, created.ownerMemberId)).toBe('Ada');
  });

  it('keeps an invite label from creation and shows it in invite lists', async () => {
    const t = await team();
    const created = await call('POST', '/api/v1/invites', t.ownerToken, { label: '  backend team ', max_uses: 3 });
    expect(created.statusCode, created.body).toBe(201);
    const labelled = created.json<{ invite_id: string; label: string | null }>();
    expect(labelled.label).toBe('backend team');
    const plain = (await call('POST', '/api/v1/invites', t.ownerToken, {})).json<{ invite_id: string; label: string | null }>();
    expect(plain.label).toBeNull();
    const rotated = (await call('POST', '/api/v1/invites/rotate', t.ownerToken, { label: "Sam's laptop" })).json<{ invite_id: string; label: string }>();
    expect(rotated.label).toBe("Sam's laptop");

    const listed = (await call('GET', '/api/v1/invites', t.ownerToken)).json<{ invites: { invite_id: string; label: string | null; status: string }[] }>().invites;
    const byId = new Map(listed.map((i) => [i.invite_id, i]));
    expect(byId.get(labelled.invite_id)).toMatchObject({ label: 'backend team', status: 'revoked' });
    expect(byId.get(plain.invite_id)).toMatchObject({ label: null, status: 'revoked' });
    expect(byId.get(rotated.invite_id)).toMatchObject({ label: "Sam's laptop", status: 'active' });

    const long = await call('POST', '/api/v1/invites', t.ownerToken, { label: 'x'.repeat(101) });
    expect(long.statusCode).toBe(400);
    expect(long.json<ErrorBody>().error.message).toContain('label: must be at most 100 characters');

    // A workspace's first invite can carry one too (admin API, `engram workspace create --invite-label`).
    const first = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'First', invite: { label: 'launch day' } });
    const firstListed = (await call('GET', '/api/v1/invites', first.ownerToken)).json<{ invites: { label: string | null }[] }>().invites;
    expect(firstListed.map((i) => i.label)).toEqual(['launch day']);
  });
});

describe.each(isolatedServerEngines())('member names beside facts over a real MCP connection on $name', (engine) => {
  const suite = serverSuite(engine, { inProcessWorker: true });

  async function join(inviteKey: string, displayName: string): Promise<string> {
    const res = await fetch(`${suite.server.baseUrl}/api/v1/join`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ invite_key: inviteKey, display_name: displayName }),
    });
    if (res.status !== 201) throw new Error(`join failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { token: string }).token;
  }

  /** The open conflicts once the background detector has raised one (polled: it runs after the commit). */
  async function raisedConflicts(client: Awaited<ReturnType<typeof connectMcp>>): Promise<Conflicts['groups'][number]['conflicts']> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = await mustCall<Conflicts>(client, 'engram_conflicts', {});
      const all = found.groups.flatMap((g) => g.conflicts);
      if (all.length > 0) return all;
      if (Date.now() > deadline) throw new Error('the detector raised no conflict');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("shows each member's name beside their agents' facts in engram_query, engram_conflicts and the conflict resource", async () => {
    const created = await provisionOverHttp(suite.server.baseUrl, { name: 'Payments', owner_display_name: 'Alice' });
    const bobToken = await join(created.invite_key, 'Bob');
    const alice = await connectMcp(created.mcp_url, created.owner_token);
    const bob = await connectMcp(created.mcp_url, bobToken);
    try {
      await mustCall(alice, 'engram_commit', { content: 'The billing service timeout is 30 seconds', scope: 'billing', confidence: 1, agent_id: 'agent-1d77f581' });
      await mustCall(bob, 'engram_commit', { content: 'The billing service timeout is 60 seconds', scope: 'billing', confidence: 1, agent_id: 'agent-9c2e0b14' });

      const answer = await mustCall<{ results: QueryFact[] }>(bob, 'engram_query', { topic: 'billing service timeout' });
      const byAgent = Object.fromEntries(answer.results.map((r) => [r.agent_id, r.member]));
      expect(byAgent).toEqual({ 'agent-1d77f581': 'Alice', 'agent-9c2e0b14': 'Bob' });

      const [conflict] = await raisedConflicts(alice);
      expect(conflict!.facts.map((f) => [f.content, f.agent_id, f.member])).toEqual([
        ['The billing service timeout is 30 seconds', 'agent-1d77f581', 'Alice'],
        ['The billing service timeout is 60 seconds', 'agent-9c2e0b14', 'Bob'],
      ]);
      const resource = await alice.readResource({ uri: `engram://conflicts/${conflict!.conflict_id}` });
      const [content] = resource.contents;
      const read = JSON.parse(content && 'text' in content ? content.text : '{}') as { facts: ConflictFact[] };
      expect(read.facts.map((f) => f.member)).toEqual(['Alice', 'Bob']);

      // A rename shows at once beside every fact already committed.
      const renamed = await fetch(`${suite.server.baseUrl}/api/v1/members/${(await memberIdOf(created.owner_token, 'Bob'))!}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${created.owner_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ display_name: 'Bob Builder' }),
      });
      expect(renamed.status).toBe(200);
      const again = await mustCall<{ results: QueryFact[] }>(alice, 'engram_query', { topic: 'billing service timeout' });
      expect(again.results.find((r) => r.agent_id === 'agent-9c2e0b14')?.member).toBe('Bob Builder');
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  it('names nobody in an anonymous workspace', async () => {
    const created = await provisionOverHttp(suite.server.baseUrl, { name: 'Private', owner_display_name: 'Alice', anonymous_mode: true });
    const client = await connectMcp(created.mcp_url, created.owner_token);
    try {
      await mustCall(client, 'engram_commit', { content: 'The search service replica count is 3', scope: 'search', confidence: 1, agent_id: 'agent-a' });
      const answer = await mustCall<{ results: QueryFact[] }>(client, 'engram_query', { topic: 'search service replica count' });
      expect(answer.results.map((r) => r.member)).toEqual([null]);
    } finally {
      await client.close();
    }
  });

  async function memberIdOf(token: string, name: string): Promise<string | undefined> {
    const res = await fetch(`${suite.server.baseUrl}/api/v1/members`, { headers: { authorization: `Bearer ${token}` } });
    return ((await res.json()) as { members: MemberView[] }).members.find((m) => m.display_name === name)?.member_id;
  }
});
