/**
 * The official MCP Inspector (@modelcontextprotocol/inspector), in CLI mode, against a started
 * server: with a member token it lists and calls the tools, lists and reads the resources, lists
 * and gets the prompts, and its tool-schema portability lint finds nothing to report.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runScript, type Finished } from '../support/cli.ts';
import { startTestServer } from '../support/server.ts';

const PACKAGE = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/inspector');
/** The `mcp-inspector` bin, i.e. what `npx @modelcontextprotocol/inspector --cli ...` runs. */
const INSPECTOR = path.join(PACKAGE, (JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['mcp-inspector']!);
/** What a session needs: an owner token sees these (and engram_promote, engram_join). */
const TOOLS = ['engram_status', 'engram_query', 'engram_commit', 'engram_conflicts', 'engram_resolve'];

/** The `--format json` envelope on stdout; `schemaFindings` is there only with `--strict` and findings. */
interface Envelope {
  result?: {
    tools?: { name: string }[];
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
    resources?: { uri: string; name: string }[];
    resourceTemplates?: { uriTemplate: string; name: string }[];
    contents?: { uri: string; mimeType?: string; text?: string }[];
    prompts?: { name: string; arguments?: { name: string }[] }[];
    messages?: { role: string; content: { type: string; text?: string } }[];
  };
  schemaFindings?: { toolName: string; findings: { rule: string; severity: string; path: string }[] }[];
  error?: { code: string; message: string };
}

/**
 * What the inspector prints when a tool schema is less portable. Without `--strict` it is one line
 * on stderr ("Schema portability: 0 errors, 1 warning across 1 tool. Re-run with --strict for
 * details."); with `--strict` a `Warning: tool "<name>"` / `Error: tool "<name>"` block per finding
 * on stderr, and `schemaFindings` in the JSON envelope. A `type` array (e.g. `["string","null"]`)
 * is a warning, which leaves the exit code at 0, so the output is what the tests below check;
 * errors (a bare `true` schema) also exit 6.
 */
const SCHEMA_WARNING = /Schema portability|(Warning|Error): tool "|warn/i;

/** Runs `mcp-inspector --cli <args>` to completion, with JSON output and a home of its own. */
function inspect(home: string, args: string[]): Promise<Finished> {
  // Without `--stored-auth-only` a refused token would start an interactive OAuth login. It keeps a
  // catalog and client storage under ~/.mcp-inspector, and reads MCP_* and proxy variables: nothing
  // from the developer's shell or home leaks in or out.
  return runScript(INSPECTOR, ['--cli', ...args, '--format', 'json', '--stored-auth-only'], { PATH: process.env.PATH ?? '', HOME: home });
}

function envelope(run: Finished): Envelope {
  expect(run.code, `exit code; stderr: ${run.stderr}\nstdout: ${run.stdout.slice(0, 4000)}`).toBe(0);
  return JSON.parse(run.stdout) as Envelope;
}

describe('MCP Inspector CLI', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let home: string;
  let target: string[];

  beforeAll(async () => {
    server = await startTestServer();
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-inspector-'));
    target = [`${server.baseUrl}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${server.local!.owner_token}`];
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  // An ad-hoc URL negotiates the 2025 (handshake) era unless told otherwise; check both.
  it.each(['legacy', 'modern'])('lists the tools (%s protocol era) with no schema portability findings', async (era) => {
    const run = await inspect(home, [...target, '--protocol-era', era, '--method', 'tools/list', '--strict']);
    const out = envelope(run);
    expect(out.result?.tools?.map((t) => t.name)).toEqual(expect.arrayContaining(TOOLS));
    expect(out.schemaFindings).toBeUndefined();
    expect(run.stderr).not.toMatch(SCHEMA_WARNING);
  }, 120_000);

  it('calls engram_status', async () => {
    const out = envelope(await inspect(home, [...target, '--method', 'tools/call', '--tool-name', 'engram_status']));
    expect(out.result?.isError).toBeFalsy();
    expect(out.result?.structuredContent).toMatchObject({ status: 'ready', member: { role: 'owner' } });
  }, 120_000);

  it('commits a fact with engram_commit and finds it with engram_query', async () => {
    const content = 'The inspector CLI reaches Engram over streamable HTTP with a bearer token';
    const committed = envelope(
      await inspect(home, [
        ...target,
        '--method', 'tools/call', '--tool-name', 'engram_commit',
        '--tool-args-json', JSON.stringify({ content, scope: 'tooling/inspector', confidence: 0.9 }),
      ]),
    );
    expect(committed.result?.isError).toBeFalsy();
    const factId = committed.result?.structuredContent?.fact_id;
    expect(factId).toEqual(expect.any(String));

    // `--tool-arg key=value`, the spelling a person types.
    const found = envelope(
      await inspect(home, [...target, '--method', 'tools/call', '--tool-name', 'engram_query', '--tool-arg', 'topic=inspector CLI bearer token']),
    );
    expect(found.result?.isError).toBeFalsy();
    expect(found.result?.structuredContent?.results).toEqual(expect.arrayContaining([expect.objectContaining({ fact_id: factId, content })]));
  }, 120_000);

  it.each(['legacy', 'modern'])('lists and reads the resources (%s protocol era)', async (era) => {
    const method = (name: string, ...rest: string[]) => inspect(home, [...target, '--protocol-era', era, '--method', name, ...rest]);
    const listed = envelope(await method('resources/list'));
    expect(listed.result?.resources?.map((r) => r.uri)).toEqual(expect.arrayContaining(['engram://workspace', 'engram://conflicts', 'engram://changes']));
    const templates = envelope(await method('resources/templates/list'));
    expect(templates.result?.resourceTemplates?.map((t) => t.uriTemplate)).toEqual(['engram://conflicts/{conflict_id}', 'engram://changes/{+scope}']);

    const summary = envelope(await method('resources/read', '--uri', 'engram://workspace')).result?.contents;
    expect(summary).toEqual([expect.objectContaining({ uri: 'engram://workspace', mimeType: 'application/json' })]);
    expect(JSON.parse(summary![0]!.text!)).toMatchObject({ engram_id: expect.stringMatching(/^ENG-/), member: { role: 'owner' } });
    const conflicts = envelope(await method('resources/read', '--uri', 'engram://conflicts')).result?.contents;
    expect(JSON.parse(conflicts![0]!.text!)).toMatchObject({ total: expect.any(Number), groups: expect.any(Array) });
    // A template's URI: the recent changes of a scope.
    const changes = envelope(await method('resources/read', '--uri', 'engram://changes/tooling/inspector')).result?.contents;
    expect(JSON.parse(changes![0]!.text!)).toMatchObject({ scope: 'tooling/inspector', changes: expect.any(Array) });
  }, 120_000);

  it('lists the prompts and gets each, with arguments', async () => {
    const listed = envelope(await inspect(home, [...target, '--method', 'prompts/list']));
    expect(listed.result?.prompts?.map((p) => p.name)).toEqual(['onboard', 'review-conflicts', 'record-learnings']);
    const text = async (name: string, args: string[] = []) => {
      const got = envelope(await inspect(home, [...target, '--method', 'prompts/get', '--prompt-name', name, ...(args.length ? ['--prompt-args', ...args] : [])]));
      expect(got.result?.messages).toEqual([{ role: 'user', content: { type: 'text', text: expect.any(String) } }]);
      return got.result!.messages![0]!.content.text!;
    };
    expect(await text('onboard', ['display_name=Ana'])).toContain('Use the display name "Ana".');
    expect(await text('review-conflicts', ['scope=auth'])).toContain('engram_conflicts with scope "auth"');
    expect(await text('record-learnings')).toContain('engram_commit');
  }, 120_000);

  it('is refused without a token', async () => {
    const run = await inspect(home, [`${server.baseUrl}/mcp`, '--transport', 'http', '--method', 'tools/list']);
    expect(run.code, run.stderr).toBe(3);
    expect((JSON.parse(run.stderr) as Envelope).error?.code).toBe('auth_required');
  }, 120_000);
});

/**
 * The control for the portability check above: the same inspector, against a server whose tool
 * has a `type: ["string", "null"]` property, does report it. If an inspector upgrade renames the
 * finding or stops printing it, this fails rather than the check above passing for nothing.
 */
describe('MCP Inspector CLI: schema portability control', () => {
  let fake: http.Server;
  let url: string;
  let home: string;

  beforeAll(async () => {
    fake = http.createServer((req, res) => void answerJsonRpc(req, res));
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/mcp`;
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-inspector-control-'));
  });
  afterAll(async () => {
    await new Promise((resolve) => fake?.close(resolve));
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('reports a type-array schema as a warning', async () => {
    const strict = await inspect(home, [url, '--transport', 'http', '--method', 'tools/list', '--strict']);
    expect(envelope(strict).schemaFindings).toEqual([
      { toolName: 'nullable_note', findings: [expect.objectContaining({ rule: 'type-union', severity: 'warning', path: 'properties.note' })] },
    ]);
    expect(strict.stderr).toMatch(SCHEMA_WARNING);
    expect(strict.stderr).toContain('Warning: tool "nullable_note"');
    // Without --strict, the one-line summary.
    const plain = await inspect(home, [url, '--transport', 'http', '--method', 'tools/list']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain('Schema portability: 0 errors, 1 warning across 1 tool.');
  }, 120_000);
});

/**
 * Just enough of a 2025-11-25 streamable HTTP server for `tools/list`: plain JSON responses, no
 * session, no SSE stream (GET is 405, which the spec allows).
 */
async function answerJsonRpc(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  let body = '';
  for await (const chunk of req) body += String(chunk);
  const message = JSON.parse(body) as { id?: number | string; method: string; params?: { protocolVersion?: string } };
  if (message.id === undefined) {
    res.writeHead(202).end();
    return;
  }
  const result =
    message.method === 'initialize'
      ? { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'unportable', version: '0.0.0' } }
      : message.method === 'tools/list'
        ? { tools: [{ name: 'nullable_note', inputSchema: { type: 'object', properties: { note: { type: ['string', 'null'] } } } }] }
        : {};
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
}
