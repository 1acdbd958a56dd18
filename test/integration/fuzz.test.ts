/**
 * Malformed input against every REST route (from the OpenAPI document) and every MCP tool (from
 * tools/list), on each engine: no 5xx and no internal tool error, and every 4xx in the one
 * documented error format. Values include NUL, lone surrogates, year 0, huge and nested values.
 */
import { provisionWorkspace } from '@engram/core';
import type { DbHandle } from '@engram/db';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, TEST_SECRET, testApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const HOST = 'localhost:8080';

const nested = (depth: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

/** What a careless or hostile client sends in place of a field: at least 30 kinds. */
const VALUES: unknown[] = [
  'a\u0000b',
  '\u0000',
  'half \ud800 pair',
  '\udfff',
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00+01:00',
  '9999-12-31T23:59:59-01:00',
  '2026-02-30T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  'x'.repeat(200_000),
  '😀'.repeat(3000),
  '',
  '   ',
  '\u202eevil',
  "'; drop table facts; --",
  '../../etc/passwd',
  '%00%ff',
  `egm_${'A'.repeat(43)}`,
  'ek_eyJhbGciOiJkaXIifQ..AAAA.BBBB.CCCC',
  -1,
  0,
  1.5,
  2 ** 53 + 1,
  1e308,
  -1e308,
  true,
  null,
  [],
  {},
  ['a\u0000', { b: '\ud800' }],
  nested(500),
  { __proto__: { polluted: true }, constructor: { prototype: { polluted: true } } },
  Array.from({ length: 5000 }, (_, i) => i),
];

interface Operation {
  method: string;
  path: string;
  query: string[];
  pathParams: string[];
  body: string[];
  admin: boolean;
}

type OpenApi = {
  paths: Record<
    string,
    Record<string, { parameters?: { in: string; name: string }[]; requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }; security?: Record<string, unknown>[] }>
  >;
};

function operations(spec: OpenApi): Operation[] {
  return Object.entries(spec.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, op]) => op !== null && typeof op === 'object')
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        pathParams: (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
        body: Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {}),
        admin: (op.security ?? []).some((s) => 'operatorToken' in s),
      })),
  );
}

/** The query string of one variant: the value put in one parameter (objects as JSON text). */
const queryValue = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value) ?? 'undefined');

/** Percent-encodes like a careless client: a lone surrogate becomes bytes that are not UTF-8. */
const encode = (text: string) => text.replace(/(?:[\ud800-\udbff][\udc00-\udfff]|[^\ud800-\udfff])+|[\ud800-\udfff]/g, (part) => (part.length === 1 && /[\ud800-\udfff]/.test(part) ? '%ED%A0%80' : encodeURIComponent(part)));

/** The variants of one operation: each value once, the fields taking turns. */
function variants(op: Operation, validId: string): (InjectOptions & { url: string })[] {
  const url = (params: Record<string, string>, query: Record<string, string>) => {
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encode(params[name] ?? validId));
    const search = Object.entries(query)
      .map(([k, v]) => `${encode(k)}=${encode(v)}`)
      .join('&');
    return search ? `${path}?${search}` : path;
  };
  const out: (InjectOptions & { url: string })[] = [];
  VALUES.forEach((value, i) => {
    const fields = [...op.body.map((f) => ['body', f] as const), ...op.query.map((f) => ['query', f] as const), ...op.pathParams.map((f) => ['path', f] as const)];
    const [where, field] = fields[i % Math.max(1, fields.length)] ?? ['body', 'unexpected'];
    if (where === 'path') {
      out.push({ method: op.method, url: url({ [field]: queryValue(value).slice(0, 300) }, {}) });
    } else if (where === 'query') {
      out.push({ method: op.method, url: url({}, { [field]: queryValue(value).slice(0, 4000) }) });
    } else if (op.method !== 'GET' && op.method !== 'DELETE') {
      out.push({ method: op.method, url: url({}, {}), payload: { [field]: value } });
    } else {
      out.push({ method: op.method, url: url({}, { [field]: queryValue(value).slice(0, 4000) }) });
    }
  });
  if (op.method !== 'GET' && op.method !== 'DELETE') {
    // Whole bodies that are not objects, not JSON, or absurdly deep.
    for (const raw of ['null', '[]', '"text"', '42', '{"a":', '\u0000', '['.repeat(100_000), `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`]) {
      out.push({ method: op.method, url: url({}, {}), payload: raw, headers: { 'content-type': 'application/json' } });
    }
  }
  return out;
}

const isErrorBody = (body: unknown) => {
  const error = (body as { error?: { code?: unknown; message?: unknown; request_id?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string' && typeof error.request_id === 'string';
};

describe.each(testDatabases())('malformed input on $name', (engine) => {
  let db: DbHandle;
  let app: FastifyInstance;
  let owner: { ownerToken: string; workspaceId: string };
  const settings = { requests_per_token_per_minute: 1_000_000, commits_per_agent_per_hour: 1_000_000 };

  beforeAll(async () => {
    db = await engine.open();
    app = await testApp(db, { openSignup: true });
    owner = await provisionWorkspace(db.db, TEST_SECRET, {});
    await restoreSettings();
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  async function restoreSettings() {
    const res = await app.inject({ method: 'PATCH', url: '/api/v1/workspace', headers: { host: HOST, authorization: `Bearer ${owner.ownerToken}` }, payload: { settings } });
    expect(res.statusCode).toBe(200);
  }

  it('answers every REST route with a 4xx in the error format, never a 5xx', async () => {
    const spec = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json', headers: { host: HOST } })).json<OpenApi>();
    const ops = operations(spec).filter((op) => !op.path.startsWith('/mcp'));
    expect(ops.length).toBeGreaterThan(25);
    const failures: string[] = [];
    let sent = 0;
    // Settings changes go last, so a variant that changes a limit cannot starve the others.
    for (const op of ops.sort((a, b) => Number(a.path === '/api/v1/workspace' && a.method === 'PATCH') - Number(b.path === '/api/v1/workspace' && b.method === 'PATCH'))) {
      const list = variants(op, '00000000-0000-7000-8000-000000000000');
      expect(list.length).toBeGreaterThanOrEqual(30);
      for (const variant of list) {
        const token = op.admin ? TEST_ADMIN_TOKEN : owner.ownerToken;
        const res = await app.inject({ ...variant, headers: { host: HOST, authorization: `Bearer ${token}`, ...variant.headers } });
        sent++;
        const label = `${variant.method} ${variant.url.slice(0, 120)} ${typeof variant.payload === 'string' ? variant.payload.slice(0, 40) : JSON.stringify(variant.payload ?? '').slice(0, 80)}`;
        if (res.statusCode >= 500) failures.push(`${res.statusCode} ${label}: ${res.body.slice(0, 200)}`);
        else if (res.statusCode >= 400 && !isErrorBody(res.json())) failures.push(`${res.statusCode} not in the error format ${label}: ${res.body.slice(0, 200)}`);
        if (op.path === '/api/v1/workspace' && op.method === 'PATCH') await restoreSettings();
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(ops.length * 30);
  });

  it('rejects path ids that are not UTF-8 or too long in the error format', async () => {
    const headers = { host: HOST, authorization: `Bearer ${owner.ownerToken}` };
    const badUtf8 = await app.inject({ method: 'DELETE', url: '/api/v1/tokens/%FF%FE', headers });
    expect(badUtf8.statusCode).toBe(400);
    expect(badUtf8.json()).toMatchObject({ error: { code: 'invalid_input', details: { problems: [{ field: 'path' }] } } });
    const long = await app.inject({ method: 'DELETE', url: `/api/v1/tokens/${'a'.repeat(150)}`, headers });
    expect(long.statusCode).toBe(414);
    expect(long.json()).toMatchObject({ error: { code: 'uri_too_long' } });
    const nul = await app.inject({ method: 'GET', url: '/api/v1/facts?q=a%00b', headers });
    expect(nul.statusCode).toBe(400);
    expect(nul.json()).toMatchObject({ error: { details: { problems: [{ field: 'query.q' }] } } });
    const year0 = await app.inject({ method: 'GET', url: '/api/v1/facts?as_of=0000-01-01T00:00:00Z', headers });
    expect(year0.statusCode).toBe(400);
    expect(year0.json()).toMatchObject({ error: { details: { problems: [{ field: 'as_of', message: expect.stringContaining('0001') }] } } });
  });

  const mcp = (token: string | null, payload: unknown) =>
    app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { host: HOST, accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      payload: payload as never,
    });

  it('answers an as_of that is not a timestamp with one message and an example, not also the year range', async () => {
    const headers = { host: HOST, authorization: `Bearer ${owner.ownerToken}` };
    const rest = await app.inject({ method: 'GET', url: '/api/v1/facts?as_of=yesterday', headers });
    expect(rest.statusCode).toBe(400);
    expect(rest.json<{ error: { details: { problems: unknown[] } } }>().error.details.problems).toEqual([
      { field: 'as_of', message: 'must be an ISO 8601 timestamp, e.g. 2026-03-01T12:00:00Z' },
    ]);
    const res = await mcp(owner.ownerToken, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'engram_query', arguments: { topic: 'which port does the fuzz service use', as_of: 'yesterday' } },
    });
    const result = res.json<{ result: { isError?: boolean; content: { text: string }[] } }>().result;
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain('must be an ISO 8601 timestamp, e.g. 2026-03-01T12:00:00Z');
    expect(result.content[0]!.text).not.toMatch(/0001|9999/);
  });

  // Arguments under which each tool gets past validation, so one bad field at a time goes deep.
  const BASE: Record<string, Record<string, unknown>> = {
    engram_commit: { content: 'The fuzz service listens on port 8080', scope: 'fuzz', confidence: 0.7 },
    engram_query: { topic: 'which port does the fuzz service use' },
    engram_promote: { fact_id: '00000000-0000-7000-8000-000000000000' },
    engram_resolve: { conflict_id: '00000000-0000-7000-8000-000000000000', resolution_type: 'dismiss' },
    engram_join: { invite_key: 'ek_eyJhbGciOiJkaXIifQ..AAAA.BBBB.CCCC' },
    engram_init: { name: 'fuzz' },
  };

  it('answers every MCP tool with a result or a tool error, never an internal error', async () => {
    const failures: string[] = [];
    for (const token of [owner.ownerToken, null]) {
      const listed = await mcp(token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      const tools = listed.json<{ result: { tools: { name: string; inputSchema: { properties?: Record<string, unknown> } }[] } }>().result.tools;
      expect(tools.length).toBeGreaterThan(1);
      for (const tool of tools) {
        const fields = Object.keys(tool.inputSchema.properties ?? {});
        const calls = VALUES.map((value, i) => ({ ...BASE[tool.name], [fields[i % Math.max(1, fields.length)] ?? 'unexpected']: value }));
        expect(calls.length).toBeGreaterThanOrEqual(30);
        for (const [i, args] of calls.entries()) {
          const res = await mcp(token, { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: tool.name, arguments: args } });
          const label = `${tool.name} ${JSON.stringify(args).slice(0, 120)}`;
          if (res.statusCode >= 500) {
            failures.push(`${res.statusCode} ${label}`);
            continue;
          }
          if (res.statusCode !== 200) {
            if (!isErrorBody(res.json())) failures.push(`${res.statusCode} not in the error format ${label}`);
            continue;
          }
          const body = res.json<{ result?: { isError?: boolean; content: { text: string }[] }; error?: { code: number } }>();
          if (body.error?.code === -32603) failures.push(`JSON-RPC internal error ${label}`);
          if (body.result?.isError && /internal error/i.test(body.result.content[0]?.text ?? '')) failures.push(`tool internal error ${label}: ${body.result.content[0]?.text}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('survives malformed JSON-RPC: batches, bad envelopes, bad arguments', async () => {
    const envelopes: unknown[] = [
      [],
      [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'engram_query', arguments: { topic: 'a\u0000' } } }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }],
      [1, 2, 3],
      { jsonrpc: '2.0', id: 1, method: '\u0000' },
      { jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'engram_query', arguments: 'not an object' } },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: '\ud800', arguments: {} } },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: nested(500) },
      'null',
      '[',
    ];
    for (const envelope of envelopes) {
      const res = await mcp(owner.ownerToken, envelope);
      expect(res.statusCode, JSON.stringify(envelope).slice(0, 100)).toBeLessThan(500);
    }
  });
});
