import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, inject } from 'vitest';
import type { Config } from '@engram/config';
import { TEST_ADMIN_TOKEN } from './app.ts';
import { createScratchDatabase, dropScratchDatabase } from './postgres-admin.ts';
import { startTestServer } from './server.ts';

/** Connects the SDK's real MCP client over Streamable HTTP with a bearer token. */
export async function connectMcp(mcpUrl: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'engram-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
  });
  await client.connect(transport);
  return client;
}

/** A tool result: the structured content, or the error text of an `isError` result. */
export type ToolOutcome<T = Record<string, unknown>> = { ok: true; value: T } | { ok: false; error: string };

export async function callTool<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolOutcome<T>> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) {
    return { ok: false, error: (result.content as { text?: string }[]).map((c) => c.text ?? '').join('\n') };
  }
  return { ok: true, value: result.structuredContent as T };
}

/** Calls a tool that must succeed. */
export async function mustCall<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const outcome = await callTool<T>(client, name, args);
  if (!outcome.ok) throw new Error(`${name} failed: ${outcome.error}`);
  return outcome.value;
}

/** The engines end-to-end suites run on: the embedded database, and Postgres when configured. */
export function serverEngines(): { name: 'pglite' | 'postgres'; overrides: Partial<Config> }[] {
  const url = inject('postgresUrl');
  return [
    { name: 'pglite', overrides: {} },
    ...(url ? [{ name: 'postgres' as const, overrides: { database: { kind: 'postgres' as const, url } } }] : []),
  ];
}

/** Provisions a workspace through the admin API of a running server. */
export async function provisionOverHttp(
  baseUrl: string,
  body: Record<string, unknown> = {},
): Promise<{ workspace_id: string; engram_id: string; owner_token: string; invite_key: string; mcp_url: string }> {
  const res = await fetch(`${baseUrl}/api/v1/admin/workspaces`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`provisioning failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as never;
}

export { startTestServer };

/**
 * Like {@link serverEngines}, for servers that run detection workers: on Postgres each server gets
 * a database of its own (a worker claims every due job it can see, other test files' included).
 */
export function isolatedServerEngines(): {
  name: 'pglite' | 'postgres';
  prepare(): Promise<{ overrides: Partial<Config>; cleanup(): Promise<void> }>;
}[] {
  const adminUrl = inject('postgresAdminUrl');
  return [
    { name: 'pglite', prepare: async () => ({ overrides: {}, cleanup: async () => {} }) },
    ...(adminUrl
      ? [
          {
            name: 'postgres' as const,
            prepare: async () => {
              const url = await createScratchDatabase(adminUrl, 'engram_test_server');
              return {
                overrides: { database: { kind: 'postgres' as const, url } },
                cleanup: () => dropScratchDatabase(adminUrl, url),
              };
            },
          },
        ]
      : []),
  ];
}

/**
 * A server on one of {@link isolatedServerEngines}, started before the suite's tests and stopped
 * (its scratch database dropped) after them; read `server` inside a test or a later hook.
 */
export function serverSuite(engine: ReturnType<typeof isolatedServerEngines>[number], overrides: Partial<Config> = {}) {
  let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
  let cleanup = async () => {};
  beforeAll(async () => {
    const prepared = await engine.prepare();
    cleanup = () => prepared.cleanup();
    server = await startTestServer({ ...prepared.overrides, ...overrides });
  });
  afterAll(async () => {
    await server?.stop();
    await cleanup();
  });
  return {
    get server() {
      if (server === undefined) throw new Error('the suite starts its server in beforeAll: read it inside a test or a later hook');
      return server;
    },
  };
}
