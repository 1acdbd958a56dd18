/**
 * A 2025-era tool call is answered in memory (McpEndpoint's ToolCallExchange), without the web
 * Request and Response of the SDK's HTTP transport. It must answer exactly as that transport
 * does: the same request, sent to an endpoint that serves everything through the SDK, gets the
 * same status, content type and JSON-RPC message; and whatever the in-memory exchange does not
 * take (a wrong Accept or Content-Type, an unsupported protocol version) keeps the SDK's answer.
 */
import { authenticateToken, LocalEmbedder, provisionWorkspace, silentLogger, type Principal } from '@engram/core';
import type { DbHandle } from '@engram/db';
import { McpEndpoint, type McpHttpAnswer, type McpRequestContext } from '@engram/mcp';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TEST_SECRET } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2025-11-25',
};

const call = (id: string | number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe.each(testDatabases())('MCP tool calls answered in memory on $name', (engine) => {
  let handle: DbHandle;
  let member: Principal;
  const embedder = new LocalEmbedder();
  const inMemory = new McpEndpoint();
  const overSdk = new McpEndpoint({ inMemoryToolCalls: false });

  beforeAll(async () => {
    handle = await engine.open();
    const workspace = await provisionWorkspace(handle.db, TEST_SECRET);
    member = await authenticateToken(handle.db, workspace.ownerToken);
  });
  afterAll(async () => {
    await Promise.all([inMemory.close(), overSdk.close()]);
    await handle?.close();
  });

  const context = (principal: Principal): McpRequestContext => ({
    db: handle.db,
    embedder,
    secret: TEST_SECRET,
    principal,
    llm: { enabled: false, model: 'gpt-4o-mini' },
    openSignup: false,
    mcpUrl: 'http://localhost:8080/mcp',
    log: silentLogger,
  });

  const post = (endpoint: McpEndpoint, body: unknown, headers: Record<string, string> = HEADERS, principal = member) =>
    endpoint.handle({ method: 'POST', url: '/mcp', headers, body }, context(principal));

  /** What a client reads of an answer: status, content type, and the JSON-RPC message. */
  const read = (answer: McpHttpAnswer) => ({
    status: answer.status,
    contentType: answer.headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1],
    message: answer.body === undefined ? undefined : (JSON.parse(answer.body) as unknown),
  });

  /** Sends `body` to both endpoints; returns what the in-memory one answered, after checking the SDK's is the same. */
  async function bothAnswer(body: unknown, headers?: Record<string, string>, principal?: Principal) {
    const before = inMemory.inMemoryAnswers;
    const fast = read(await post(inMemory, body, headers, principal));
    const sdk = read(await post(overSdk, body, headers, principal));
    expect(fast).toEqual(sdk);
    return { ...fast, inMemory: inMemory.inMemoryAnswers > before };
  }

  it('answers a successful call as the SDK does, in memory', async () => {
    const commit = read(await post(inMemory, call(1, 'engram_commit', { content: 'The billing worker retries failed charges 4 times', scope: 'billing', confidence: 0.9 })));
    expect(commit).toMatchObject({ status: 200, contentType: 'application/json', message: { jsonrpc: '2.0', id: 1, result: { structuredContent: { duplicate: false } } } });
    const status = await bothAnswer(call('status-1', 'engram_status', {}));
    expect(status).toMatchObject({ inMemory: true, status: 200, message: { id: 'status-1', result: { structuredContent: { status: 'ready' } } } });
    const query = await bothAnswer(call(7, 'engram_query', { topic: 'billing retries failed charges' }));
    expect(query.inMemory).toBe(true);
    expect(query.message).toMatchObject({ id: 7, result: { structuredContent: { results: [expect.objectContaining({ content: 'The billing worker retries failed charges 4 times' })] } } });
  });

  it('answers a call with invalid arguments, of an unknown tool, and of a tool the caller may not use as the SDK does', async () => {
    const invalid = await bothAnswer(call(2, 'engram_query', { topic: 42 }));
    expect(invalid).toMatchObject({ inMemory: true, status: 200 });
    expect(JSON.stringify(invalid.message)).toMatch(/topic/);
    const unknown = await bothAnswer(call(3, 'engram_nope', {}));
    expect(unknown).toMatchObject({ inMemory: true, status: 200 });
    expect(JSON.stringify(unknown.message)).toMatch(/engram_nope/);
    const refused = await bothAnswer(call(4, 'engram_commit', { content: 'x', scope: 'billing', confidence: 0.9 }), HEADERS, { kind: 'anonymous', address: '127.0.0.1' });
    expect(refused).toMatchObject({ inMemory: true, message: { result: { isError: true } } });
    expect(JSON.stringify(refused.message)).toMatch(/needs a member token/);
  });

  it('leaves to the SDK what it answers with an HTTP error: Accept, Content-Type, protocol version', async () => {
    const accept = await bothAnswer(call(5, 'engram_status', {}), { ...HEADERS, accept: 'application/json' });
    expect(accept).toMatchObject({ inMemory: false, status: 406 });
    const type = await bothAnswer(call(5, 'engram_status', {}), { ...HEADERS, 'content-type': 'text/plain' });
    expect(type).toMatchObject({ inMemory: false, status: 415 });
    const version = await bothAnswer(call(5, 'engram_status', {}), { ...HEADERS, 'mcp-protocol-version': '1999-01-01' });
    expect(version).toMatchObject({ inMemory: false, status: 400 });
    expect(JSON.stringify(version.message)).toMatch(/Unsupported protocol version/);
    // No version header: the SDK assumes one it supports, and so does the in-memory exchange.
    const { 'mcp-protocol-version': _omitted, ...unversioned } = HEADERS;
    expect(await bothAnswer(call(6, 'engram_status', {}), unversioned)).toMatchObject({ inMemory: true, status: 200 });
  });

  it('leaves everything but a single 2025-era tool call to the SDK', async () => {
    const list = await bothAnswer({ jsonrpc: '2.0', id: 8, method: 'tools/list' });
    expect(list).toMatchObject({ inMemory: false, status: 200, message: { result: { tools: expect.any(Array) } } });
    const batch = await bothAnswer([call(9, 'engram_status', {})]);
    expect(batch.inMemory).toBe(false);
    const notification = await bothAnswer({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notification).toMatchObject({ inMemory: false, status: 202 });
    // A 2026-07-28 call (its version in the body's envelope) is the SDK's modern handler's.
    const modern = await bothAnswer(
      {
        ...call(10, 'engram_status', {}),
        params: { name: 'engram_status', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      },
      { ...HEADERS, 'mcp-protocol-version': '2026-07-28' },
    );
    expect(modern.inMemory).toBe(false);
  });
});

// The benchmarks' stack ceiling (test/bench/stack-ceiling.ts) serves its own bare tools through
// this endpoint: the factory it gives builds every request's server, on both paths.
describe('an MCP endpoint with a server factory of its own', () => {
  const built: string[] = [];
  const endpoint = new McpEndpoint<{ caller: string }>({
    createServer: (context) => {
      built.push(context.caller);
      const server = new McpServer({ name: 'bare', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } } });
      server.registerTool('echo', { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
        content: [{ type: 'text', text: `${context.caller}: ${text}` }],
      }));
      return server;
    },
  });
  afterAll(() => endpoint.close());
  const post = (body: unknown) => endpoint.handle({ method: 'POST', url: '/mcp', headers: HEADERS, body }, { caller: 'ada' });

  it('answers a single tool call in memory and everything else through the SDK, with its servers', async () => {
    const single = await post(call(1, 'echo', { text: 'hi' }));
    expect(single.status).toBe(200);
    expect(JSON.parse(single.body!)).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'ada: hi' }] } });
    expect(endpoint.inMemoryAnswers).toBe(1);
    // A batch of one is the SDK transport's (which answers it as one message).
    const batch = await post([call(2, 'echo', { text: 'again' })]);
    expect(JSON.parse(batch.body!)).toMatchObject({ id: 2, result: { content: [{ text: 'ada: again' }] } });
    const list = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(JSON.parse(list.body!)).toMatchObject({ result: { tools: [{ name: 'echo' }] } });
    // Its input schema is checked as Engram's are: a wrong argument is a tool error, not a call.
    const wrong = await post(call(4, 'echo', { text: 7 }));
    expect(JSON.parse(wrong.body!)).toMatchObject({ id: 4, result: { isError: true } });
    expect(endpoint.inMemoryAnswers).toBe(2);
    expect(built).toEqual(['ada', 'ada', 'ada', 'ada']);
  });
});
