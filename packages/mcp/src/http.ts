import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createEngramMcpServer, type McpRequestContext } from './server.ts';

/**
 * Answers one MCP Streamable HTTP request (web-standard Request in, Response out), statelessly:
 * no session, JSON responses, a fresh server per request, so any instance behind a load balancer
 * can answer any request. Framework adapters only translate to and from this.
 */
export async function handleMcpRequest(
  request: Request,
  context: McpRequestContext,
  parsedBody?: unknown,
): Promise<Response> {
  const server = createEngramMcpServer(context);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await server.close();
  }
}
