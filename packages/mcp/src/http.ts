import {
  classifyInboundRequest,
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpServer,
  type Transport,
} from '@modelcontextprotocol/server';
import { createEngramMcpServer, type McpRequestContext, type Requested } from './server.ts';

/** An HTTP request to the MCP endpoint as a framework hands it over, its JSON body already parsed. */
export interface McpHttpRequest {
  method: string;
  /** The path and query, e.g. `/mcp`. */
  url: string;
  /** Header names in lower case, as Node gives them. */
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  body: unknown;
}

/** The endpoint's answer. Every answer is JSON (or empty), small and complete, so its body is text. */
export interface McpHttpAnswer {
  status: number;
  headers: [name: string, value: string][];
  body: string | undefined;
}

// Hop-by-hop and body-framing headers describe the incoming socket, not the MCP message.
const SKIPPED_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

const header = (request: McpHttpRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return value === undefined ? undefined : typeof value === 'string' ? value : value.join(', ');
};

/** The web-standard Request the SDK's handlers read (the body is handed over already parsed). */
function toWebRequest(request: McpHttpRequest): Request {
  const headers = new Headers();
  for (const name of Object.keys(request.headers)) {
    const value = header(request, name);
    if (value !== undefined && !SKIPPED_HEADERS.has(name)) headers.set(name, value);
  }
  return new Request(new URL(request.url, 'http://engram.invalid'), { method: request.method, headers });
}

/**
 * The request, with the protocol version it names, when it is one 2025-era `tools/call` the
 * in-memory exchange answers exactly as the SDK's stateless JSON transport would (see
 * ToolCallExchange), else undefined. The SDK's transport
 * keeps everything else, and its answers to what is wrong: a Content-Type that is not JSON (415),
 * an Accept header without both media types (406), an unsupported `MCP-Protocol-Version` (400).
 * The era is the SDK's own classification, the one `isLegacyRequest` makes.
 */
function singleToolCall(request: McpHttpRequest): { call: JSONRPCRequest; version: string | undefined } | undefined {
  const body = request.body as { method?: unknown } | null | undefined;
  if (request.method !== 'POST' || typeof body !== 'object' || body === null || Array.isArray(body) || body.method !== 'tools/call') return undefined;
  const accept = header(request, 'accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(header(request, 'content-type') ?? null)) return undefined;
  const route = classifyInboundRequest({
    httpMethod: request.method,
    protocolVersionHeader: header(request, 'mcp-protocol-version'),
    mcpMethodHeader: header(request, 'mcp-method'),
    mcpNameHeader: header(request, 'mcp-name'),
    body,
  });
  return route.kind === 'legacy' && route.reason === 'no-claim' ? { call: body as JSONRPCRequest, version: route.requestedVersion } : undefined;
}

/**
 * One JSON-RPC request's whole exchange with a per-request server, in memory: the SDK's own
 * `Transport` contract, without the web Request and Response (and the JSON-RPC message checks done
 * twice) that its HTTP transport wraps around the same exchange. Like that transport in JSON mode,
 * it answers with the request's response alone: messages the server sends meanwhile (progress,
 * logging) are dropped, as no stream is open to carry them. It exists for the server's CPU per
 * call (docs/performance/2026-12-02-constants.md).
 */
class ToolCallExchange implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** The protocol versions the server accepts (it says so when it connects). */
  supportedVersions: readonly string[] = [];
  readonly response: Promise<JSONRPCMessage>;
  readonly #id: JSONRPCRequest['id'];
  #respond!: (message: JSONRPCMessage) => void;

  constructor(request: JSONRPCRequest) {
    this.#id = request.id;
    this.response = new Promise((resolve) => (this.#respond = resolve));
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (('result' in message || 'error' in message) && message.id === this.#id) this.#respond(message);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.supportedVersions = versions;
  }
}

/** What one MCP request is served with: its caller's context and what it asks for by name. */
interface Exchange<C> {
  context: C;
  requested: Requested;
}

/** Builds the server that answers one request, for its caller. */
export type McpServerFactory<C> = (context: C, requested: Requested) => McpServer;

/**
 * The tools a JSON-RPC message (or batch) calls, the resources it reads and the prompts it gets,
 * to explain the ones its caller cannot use.
 */
function requestedBy(body: unknown): Requested {
  const tools = new Set<string>();
  const resources = new Set<string>();
  const prompts = new Set<string>();
  let onlyToolCalls = true;
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) {
      onlyToolCalls = false;
      continue;
    }
    const { method, params, id } = message as { method?: unknown; params?: { name?: unknown; uri?: unknown }; id?: unknown };
    if (method === 'tools/call' && typeof params?.name === 'string') tools.add(params.name);
    else if (id !== undefined || typeof method !== 'string' || !method.startsWith('notifications/')) onlyToolCalls = false;
    if (method === 'prompts/get' && typeof params?.name === 'string') prompts.add(params.name);
    if (method === 'resources/read' && typeof params?.uri === 'string') resources.add(params.uri);
  }
  return { tools, resources, prompts, onlyToolCalls: onlyToolCalls && tools.size > 0 };
}

/**
 * The MCP endpoint (an HTTP request with its parsed body in, an answer out), stateless across instances:
 *
 * - MCP 2026-07-28 requests (per-request metadata, `server/discover`, no handshake) go to the
 *   SDK's `createMcpHandler`, answered as JSON (its `auto` mode: Engram's tools send no
 *   notifications before their result, so nothing upgrades to a stream).
 * - 2025-era requests (`initialize`, then calls with `MCP-Protocol-Version` 2025-11-25 or
 *   2025-06-18) are answered by a fresh server over the stateless Streamable HTTP transport,
 *   also as JSON, as before; a single `tools/call`, what agents send almost always, by the same
 *   server in memory (ToolCallExchange), with the same answer.
 *
 * Either way a fresh server is built per request for its caller, so any instance behind a load
 * balancer can answer any request. Framework adapters only translate to and from this.
 */
export class McpEndpoint<C = McpRequestContext> {
  // The request → its exchange, for the SDK's factory (which receives the request it serves).
  readonly #exchanges = new WeakMap<Request, Exchange<C>>();
  readonly #modern = createMcpHandler((ctx) => this.#serverFor(ctx.requestInfo), { legacy: 'reject' });
  readonly #inMemory: boolean;
  readonly #createServer: McpServerFactory<C>;
  #inMemoryAnswers = 0;

  /**
   * `inMemoryToolCalls: false` serves every request through the SDK's HTTP handlers (to compare
   * the two). `createServer` builds each request's server: Engram's by default; the benchmarks
   * give it a bare one, to measure this exchange with nothing of Engram's behind it.
   */
  constructor(options: { inMemoryToolCalls?: boolean; createServer?: McpServerFactory<C> } = {}) {
    this.#inMemory = options.inMemoryToolCalls ?? true;
    this.#createServer = options.createServer ?? (createEngramMcpServer as unknown as McpServerFactory<C>);
  }

  #serverFor(request: Request | undefined) {
    const exchange = request ? this.#exchanges.get(request) : undefined;
    if (!exchange) throw new Error('MCP request served without its context');
    return this.#createServer(exchange.context, exchange.requested);
  }

  /** Answers one MCP request. */
  async handle(request: McpHttpRequest, context: C): Promise<McpHttpAnswer> {
    const exchange = { context, requested: requestedBy(request.body) };
    const single = this.#inMemory ? singleToolCall(request) : undefined;
    if (single) {
      const answer = await this.#answerInMemory(single.call, exchange, single.version);
      if (answer) return answer;
    }
    const response = await this.#answerOverSdk(toWebRequest(request), exchange, request.body);
    return { status: response.status, headers: [...response.headers], body: response.body ? await response.text() : undefined };
  }

  /** A single 2025-era tool call (see ToolCallExchange); undefined when the server does not accept the request's protocol version. */
  async #answerInMemory(call: JSONRPCRequest, exchange: Exchange<C>, version: string | undefined): Promise<McpHttpAnswer | undefined> {
    const server = this.#createServer(exchange.context, exchange.requested);
    const transport = new ToolCallExchange(call);
    await server.connect(transport);
    // The SDK's transport answers an unsupported version with a 400 of its own; that stays its answer.
    if (version !== undefined && !transport.supportedVersions.includes(version)) return undefined;
    transport.onmessage?.(call, {});
    this.#inMemoryAnswers++;
    return { status: 200, headers: [['content-type', 'application/json']], body: JSON.stringify(await transport.response) };
  }

  async #answerOverSdk(request: Request, exchange: Exchange<C>, parsedBody: unknown): Promise<Response> {
    if (await isLegacyRequest(request, parsedBody)) {
      const server = this.#createServer(exchange.context, exchange.requested);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      // In JSON mode the response holds every answer, so nothing is left running: the server and
      // its transport are dropped, not closed (closing builds a "connection closed" error to
      // reject pending calls, and there are none).
      return transport.handleRequest(request, { parsedBody });
    }
    this.#exchanges.set(request, exchange);
    return this.#modern.fetch(request, { parsedBody });
  }

  /** Requests answered in memory so far (for tests and diagnostics). */
  get inMemoryAnswers(): number {
    return this.#inMemoryAnswers;
  }

  /** Aborts in-flight 2026-07-28 exchanges (on shutdown). */
  close(): Promise<void> {
    return this.#modern.close();
  }
}
