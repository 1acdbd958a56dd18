import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { createEngramMcpServer, type McpRequestContext, type Requested } from './server.ts';

/** What one MCP request is served with: its caller's context and what it asks for by name. */
interface Exchange {
  context: McpRequestContext;
  requested: Requested;
}

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
 * The MCP endpoint (web-standard Request in, Response out), stateless across instances:
 *
 * - MCP 2026-07-28 requests (per-request metadata, `server/discover`, no handshake) go to the
 *   SDK's `createMcpHandler`, answered as JSON (its `auto` mode: Engram's tools send no
 *   notifications before their result, so nothing upgrades to a stream).
 * - 2025-era requests (`initialize`, then calls with `MCP-Protocol-Version` 2025-11-25 or
 *   2025-06-18) are answered by a fresh server over the stateless Streamable HTTP transport,
 *   also as JSON, as before.
 *
 * Either way a fresh server is built per request for its caller, so any instance behind a load
 * balancer can answer any request. Framework adapters only translate to and from this.
 */
export class McpEndpoint {
  // The request → its exchange, for the SDK's factory (which receives the request it serves).
  readonly #exchanges = new WeakMap<Request, Exchange>();
  readonly #modern = createMcpHandler((ctx) => this.#serverFor(ctx.requestInfo), { legacy: 'reject' });

  #serverFor(request: Request | undefined) {
    const exchange = request ? this.#exchanges.get(request) : undefined;
    if (!exchange) throw new Error('MCP request served without its context');
    return createEngramMcpServer(exchange.context, exchange.requested);
  }

  /** Answers one MCP request; `parsedBody` is the JSON body the framework already parsed. */
  async handle(request: Request, context: McpRequestContext, parsedBody?: unknown): Promise<Response> {
    const exchange = { context, requested: requestedBy(parsedBody) };
    if (await isLegacyRequest(request, parsedBody)) {
      const server = createEngramMcpServer(exchange.context, exchange.requested);
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

  /** Aborts in-flight 2026-07-28 exchanges (on shutdown). */
  close(): Promise<void> {
    return this.#modern.close();
  }
}
