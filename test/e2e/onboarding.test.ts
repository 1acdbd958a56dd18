/**
 * The whole onboarding through the SDK's real MCP client: a founder creates a workspace from
 * their agent (open signup), a teammate connects with the invite key, joins, reconnects with the
 * returned token, commits and queries. On PGlite and (with TEST_DATABASE_URL) Postgres.
 */
import type { CommitOutput, JoinOutput, QueryOutput } from '@engram/core';
import { facts, forWorkspace, members } from '@engram/db';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectMcp, mustCall, serverEngines, startTestServer } from '../support/mcp.ts';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const names = async (client: Awaited<ReturnType<typeof connectMcp>>) => (await client.listTools()).tools.map((t) => t.name).sort();

describe.each(serverEngines())('onboarding over MCP on $name', ({ overrides }) => {
  let server: Server;
  beforeAll(async () => {
    server = await startTestServer({ ...overrides, openSignup: true });
  });
  afterAll(async () => server?.stop());

  it('takes a founder and a teammate from nothing to shared, attributed memory', async () => {
    const mcpUrl = `${server.baseUrl}/mcp`;

    // 1. The founder's agent connects without a token.
    const founderSetup = await connectMcp(mcpUrl);
    expect(await names(founderSetup)).toEqual(['engram_init', 'engram_join', 'engram_status']);
    const unconfigured = await mustCall<{ status: string; next_prompt: string }>(founderSetup, 'engram_status', {});
    expect(unconfigured.status).toBe('unconfigured');
    expect(unconfigured.next_prompt).toMatch(/invite key/);
    expect(unconfigured.next_prompt).toMatch(/engram_init/);
    expect(unconfigured.next_prompt).toMatch(/anonymous_mode/);

    const init = await mustCall<{ engram_id: string; workspace_id: string; owner_token: string; invite_key: string; mcp_url: string; next_prompt: string }>(
      founderSetup,
      'engram_init',
      { name: 'Checkout team', display_name: 'Ada', anonymous_mode: false, anon_agents: true },
    );
    await founderSetup.close();
    expect(init.mcp_url).toBe(mcpUrl);
    expect(init.next_prompt).toContain(`claude mcp add --transport http engram ${mcpUrl} --header "Authorization: Bearer ${init.owner_token}"`);
    expect(init.next_prompt).toContain(init.invite_key);
    expect(init.next_prompt).toMatch(/agent ids are randomized per session/);

    // 2. The teammate's agent connects with the invite key as its bearer.
    const invited = await connectMcp(mcpUrl, init.invite_key);
    expect(await names(invited)).toEqual(['engram_join', 'engram_status']);
    const joining = await mustCall<{ status: string; engram_id: string; next_prompt: string }>(invited, 'engram_status', {});
    expect(joining).toMatchObject({ status: 'joining', engram_id: init.engram_id });
    expect(joining.next_prompt).toMatch(/engram_join/);
    // A member tool called with the invite key says to join first, not "not found".
    const early = await callTool(invited, 'engram_query', { topic: 'deploys' });
    expect(early.ok ? '' : early.error).toMatch(/engram_query needs a member token, and this connection presents an invite key\. Join first: call engram_join/);

    // 3. It joins (the key comes from the connection) and learns how to configure every client.
    const joined = await mustCall<JoinOutput>(invited, 'engram_join', { display_name: 'Grace' });
    await invited.close();
    expect(joined).toMatchObject({ status: 'joined', engram_id: init.engram_id, role: 'member', mcp_url: mcpUrl });
    for (const client of ['Claude Code', 'Cursor', 'VS Code', 'Claude Desktop']) expect(joined.next_prompt).toContain(client);
    expect(joined.next_prompt).toContain(`claude mcp add --transport http engram ${mcpUrl} --header "Authorization: Bearer ${joined.token}"`);
    expect(joined.next_prompt).toContain('"mcp-remote"');

    // 4. It reconnects with its own token: ready, with the member tools.
    const teammate = await connectMcp(mcpUrl, joined.token);
    expect(await names(teammate)).toEqual(['engram_commit', 'engram_conflicts', 'engram_init', 'engram_join', 'engram_promote', 'engram_query', 'engram_resolve', 'engram_status', 'engram_verify']);
    const ready = await mustCall<{ status: string; member: { role: string; display_name: string } }>(teammate, 'engram_status', {});
    expect(ready).toMatchObject({ status: 'ready', member: { role: 'member', display_name: 'Grace' } });

    // 5. It commits; the founder queries and finds it.
    const committed = await mustCall<CommitOutput>(teammate, 'engram_commit', {
      content: 'Checkout retries card payments 3 times before failing',
      scope: 'checkout',
      confidence: 1,
      agent_id: 'grace-laptop',
    });
    await teammate.close();
    const founder = await connectMcp(mcpUrl, init.owner_token);
    const found = await mustCall<QueryOutput>(founder, 'engram_query', { topic: 'checkout card payment retries' });
    expect(found.results[0]?.fact_id).toBe(committed.fact_id);
    await founder.close();

    // Attribution and privacy as chosen at init: the member is recorded, the agent id is not.
    const tenant = forWorkspace(server.db.db, init.workspace_id);
    const [row] = await tenant.select(facts, eq(facts.id, committed.fact_id!));
    expect(row?.memberId).toBe(joined.member_id);
    expect(row?.agentId).toMatch(/^anon-[0-9a-f]{12}$/);
    const people = await tenant.select(members);
    expect(people.map((m) => [m.role, m.displayName]).sort()).toEqual([
      ['member', 'Grace'],
      ['owner', 'Ada'],
    ]);
  });

  it('explains a spent invite key to the agent holding it', async () => {
    const mcpUrl = `${server.baseUrl}/mcp`;
    const setup = await connectMcp(mcpUrl);
    const init = await mustCall<{ owner_token: string; invite_key: string }>(setup, 'engram_init', { name: 'Revoked' });
    await setup.close();
    const list = await fetch(`${server.baseUrl}/api/v1/invites`, { headers: { authorization: `Bearer ${init.owner_token}` } });
    const [invite] = ((await list.json()) as { invites: { invite_id: string }[] }).invites;
    await fetch(`${server.baseUrl}/api/v1/invites/${invite!.invite_id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${init.owner_token}` },
    });
    const invited = await connectMcp(mcpUrl, init.invite_key);
    const status = await mustCall<{ status: string; next_prompt: string }>(invited, 'engram_status', {});
    expect(status.status).toBe('joining');
    expect(status.next_prompt).toMatch(/revoked/);
    const join = await callTool(invited, 'engram_join', {});
    expect(join.ok ? '' : join.error).toMatch(/revoked.*\(code: invite_revoked\)/);
    await invited.close();
  });
});

describe('onboarding without open signup (and without OAuth, which would send the client to sign in)', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startTestServer({ openSignup: false, oauth: false });
  });
  afterAll(async () => server?.stop());

  it('does not offer engram_init, and says who creates workspaces', async () => {
    const client = await connectMcp(`${server.baseUrl}/mcp`);
    expect(await names(client)).toEqual(['engram_join', 'engram_status']);
    const status = await mustCall<{ next_prompt: string }>(client, 'engram_status', {});
    expect(status.next_prompt).toMatch(/operator/);
    const join = await callTool(client, 'engram_join', {});
    expect(join.ok ? '' : join.error).toMatch(/invite_key: is required/);
    await client.close();
  });
});
