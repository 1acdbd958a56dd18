import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from '../support/app.ts';
import { startTestServer } from '../support/server.ts';

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

async function connect(mcpUrl: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'engram-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
  });
  await client.connect(transport);
  return client;
}

const engines = [
  { name: 'pglite', overrides: {} },
  ...(inject('postgresUrl')
    ? [{ name: 'postgres', overrides: { database: { kind: 'postgres' as const, url: inject('postgresUrl') as string } } }]
    : []),
];

describe.each(engines)('MCP over a real socket on $name', ({ name, overrides }) => {
  let server: TestServer;
  let token: string;
  let engramId: string;

  beforeAll(async () => {
    server = await startTestServer(overrides);
    if (name === 'pglite') {
      token = server.local!.owner_token;
      engramId = server.local!.engram_id;
    } else {
      // Postgres mode has no default workspace: provision one the way an operator would.
      const res = await fetch(`${server.baseUrl}/api/v1/admin/workspaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'E2E' }),
      });
      expect(res.status).toBe(201);
      const body = (await res.json()) as { owner_token: string; engram_id: string; mcp_url: string };
      expect(body.mcp_url).toBe(`${server.baseUrl}/mcp`);
      token = body.owner_token;
      engramId = body.engram_id;
    }
  });
  afterAll(async () => server?.stop());

  it('sends a client without a token to sign in, and refuses a bad token (401)', async () => {
    // The built-in authorization server is on: no credentials is a challenge an OAuth client follows
    // (without OAuth, such a client sees only engram_status and engram_join: test/integration/app.test.ts).
    await expect(connect(`${server.baseUrl}/mcp`)).rejects.toThrow(/401|Unauthorized|Sign in/i);
    await expect(connect(`${server.baseUrl}/mcp`, `egm_${'x'.repeat(43)}`)).rejects.toThrow(/invalid_token/);
    const raw = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer nonsense' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('lists engram_status with annotations and an output schema, and tells the agent to call it first', async () => {
    const client = await connect(`${server.baseUrl}/mcp`, token);
    try {
      expect(client.getServerVersion()?.name).toBe('engram');
      expect(client.getInstructions()).toMatch(/call engram_status first/);
      const { tools } = await client.listTools();
      const status = tools.find((t) => t.name === 'engram_status');
      expect(status).toBeDefined();
      expect(status?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
      expect(status?.outputSchema).toMatchObject({ type: 'object' });
      expect(status?.description).toMatch(/next_prompt/);
    } finally {
      await client.close();
    }
  });

  it('answers engram_status truthfully', async () => {
    const client = await connect(`${server.baseUrl}/mcp`, token);
    try {
      const result = await client.callTool({ name: 'engram_status', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        status: 'ready',
        engram_id: engramId,
        member: { role: 'owner' },
        memory: { current_facts: 0, open_conflicts: 0 },
        detective: { narrative: 'off' },
      });
      const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
      expect(JSON.parse(text)).toEqual(result.structuredContent);
    } finally {
      await client.close();
    }
  });

  it('rejects unexpected arguments as a tool error naming the field', async () => {
    const client = await connect(`${server.baseUrl}/mcp`, token);
    try {
      const result = await client.callTool({ name: 'engram_status', arguments: { verbose: true } });
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0]?.text).toMatch(/verbose/);
    } finally {
      await client.close();
    }
  });
});
