/**
 * One endpoint, every protocol revision: a 2026-07-28 client (SDK v2, no handshake, per-request
 * metadata, `server/discover`), a 2025-11-25 client (SDK 1.x) and a 2025-06-18 one call every
 * tool against the same started server, and get the same tools, schemas and results.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.ts';

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

/** The calls every client makes, in order: each tool a member can use, with real arguments. */
const CALLS: { name: string; args: Record<string, unknown>; expect: (out: Record<string, unknown>) => void }[] = [
  { name: 'engram_status', args: {}, expect: (out) => expect(out.status).toBe('ready') },
  {
    name: 'engram_commit',
    args: { content: 'The payments service retries webhooks 5 times with exponential backoff', scope: 'payments', confidence: 0.9 },
    expect: (out) => expect(out.fact_id).toEqual(expect.any(String)),
  },
  { name: 'engram_query', args: { topic: 'payments webhook retries' }, expect: (out) => expect(out.results).toEqual(expect.any(Array)) },
  { name: 'engram_conflicts', args: {}, expect: (out) => expect(out.groups).toEqual(expect.any(Array)) },
];

/** What both SDK generations' clients offer that these tests use. */
interface AnyClient {
  listTools(): Promise<{ tools: { name: string; inputSchema: unknown; outputSchema?: unknown }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<Record<string, unknown>>;
}

async function listsEveryTool(client: AnyClient) {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(CALLS.map((c) => c.name)));
  return tools;
}

async function callEveryTool(client: AnyClient) {
  for (const call of CALLS) {
    const result = await client.callTool({ name: call.name, arguments: call.args });
    expect(result.isError, `${call.name}: ${JSON.stringify(result.content)}`).toBeFalsy();
    call.expect(result.structuredContent as Record<string, unknown>);
  }
}

describe('MCP protocol revisions on one endpoint', () => {
  let server: TestServer;
  let mcpUrl: URL;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer();
    mcpUrl = new URL(`${server.baseUrl}/mcp`);
    token = server.local!.owner_token;
  });
  afterAll(async () => server?.stop());

  const headers = () => ({ Authorization: `Bearer ${token}` });

  it('serves a 2026-07-28 client: discovery without a handshake, every tool, structured results', async () => {
    const client = new ModernClient({ name: 'engram-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new ModernTransport(mcpUrl, { requestInit: { headers: headers() } }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getDiscoverResult()).toBeDefined();
      expect(client.getServerVersion()).toMatchObject({ name: 'engram' });
      expect(client.getInstructions()).toMatch(/engram_status first/);
      const tools = await listsEveryTool(client);
      // Portable schemas: one type per schema (a nullable field is an anyOf), which every client reads.
      for (const tool of tools) expect(JSON.stringify([tool.inputSchema, tool.outputSchema]), tool.name).not.toMatch(/"type":\[/);
      await callEveryTool(client);
    } finally {
      await client.close();
    }
  });

  it('serves a 2025-11-25 client (SDK 1.x) the same tools and results', async () => {
    const client = new LegacyClient({ name: 'engram-2025', version: '1.0.0' });
    const transport = new LegacyTransport(mcpUrl, { requestInit: { headers: headers() } });
    await client.connect(transport);
    try {
      expect(transport.protocolVersion).toBe('2025-11-25');
      await listsEveryTool(client);
      await callEveryTool(client);
    } finally {
      await client.close();
    }
  });

  it('answers a 2025-06-18 handshake with 2025-06-18 and serves its calls', async () => {
    const post = async (body: unknown, version?: string) => {
      const res = await fetch(mcpUrl, {
        method: 'POST',
        headers: {
          ...headers(),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(version ? { 'mcp-protocol-version': version } : {}),
        },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { result?: Record<string, unknown>; error?: unknown } };
    };
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '0.1' } },
    });
    expect(init.status).toBe(200);
    expect(init.body.result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'engram' } });
    for (const call of CALLS) {
      const res = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: call.name, arguments: call.args } }, '2025-06-18');
      expect(res.status).toBe(200);
      const result = res.body.result as { isError?: boolean; structuredContent: Record<string, unknown> };
      expect(result.isError).toBeFalsy();
      call.expect(result.structuredContent);
    }
  });

  // A request that only calls tools gets a server with just those tools; what a client sees must
  // not change: unknown tools, batches that also list (refused tools: test/integration/access.test.ts).
  it('answers a call of an unknown tool, and a batch that calls and lists, as a whole server does', async () => {
    const post = async (body: unknown) => {
      const res = await fetch(mcpUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    type Answer = { id: number; result?: { isError?: boolean; tools?: { name: string }[]; content?: { text: string }[] }; error?: { message: string } };
    const message = (a: Answer) => a.error?.message ?? a.result?.content?.[0]?.text ?? '';

    const unknown = (await post(call(1, 'engram_nonexistent'))).body as Answer;
    expect(message(unknown)).toMatch(/engram_nonexistent not found/);
    const mixed = (await post([call(1, 'engram_status'), call(2, 'engram_nonexistent')])).body as Answer[];
    expect(mixed.find((a) => a.id === 1)?.result?.isError).toBeFalsy();
    expect(message(mixed.find((a) => a.id === 2)!)).toMatch(/engram_nonexistent not found/);

    const batch = (await post([call(1, 'engram_status'), { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }])).body as Answer[];
    expect(batch.find((a) => a.id === 1)?.result?.isError).toBeFalsy();
    expect(batch.find((a) => a.id === 2)?.result?.tools?.map((t) => t.name)).toEqual(expect.arrayContaining(CALLS.map((c) => c.name)));
  });
});
