import { ENGRAM_VERSION, EngramError, type Principal } from '@engram/core';
import { McpServer } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { registerRefusals, registerTools, type EngramTool, type ToolContext } from './tool.ts';
import { conflictsTool } from './tools/conflicts.ts';
import { commitTool, promoteTool, queryTool } from './tools/facts.ts';
import { initTool, joinTool } from './tools/onboarding.ts';
import { resolveTool } from './tools/resolve.ts';
import { statusTool } from './tools/status.ts';

/** Every Engram tool, in the order clients list them. */
export const ALL_TOOLS: readonly EngramTool[] = [
  statusTool,
  queryTool,
  commitTool,
  promoteTool,
  conflictsTool,
  resolveTool,
  joinTool,
  initTool,
];

/** The server `instructions`: the behavioural contract the connecting agent reads once. */
export function serverInstructions(tools: readonly string[]): string {
  const lines = [
    'Engram is this team\'s shared memory about the codebase: facts that agents verified, with the',
    'places where those facts disagree flagged for humans to settle.',
    '',
    'At the start of every session call engram_status first. Every Engram result may carry a',
    '`next_prompt`: tell the user what it says and follow it; it is how Engram walks a user through setup.',
  ];
  if (tools.includes('engram_join') && !tools.includes('engram_query')) {
    lines.push('This connection has no member token yet: engram_status explains how to join a workspace.');
  }
  if (tools.includes('engram_query')) {
    lines.push('Once status is "ready", call engram_query before working on an area of the codebase.');
  }
  if (tools.includes('engram_commit')) {
    lines.push('Commit what you verified with engram_commit: specific, with values and names, never secrets.');
  }
  return lines.join('\n');
}

// The SDK builds a fresh Ajv instance per server unless given one; with a server per request that
// is a large share of the MCP overhead. One shared validator serves every server.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** Per-request context, minus the tool list (derived from the principal here). */
export type McpRequestContext = Omit<ToolContext, 'tools'>;

/** Why this caller cannot call `tool`, and what to do instead. */
export function refusalFor(tool: EngramTool, principal: Principal): EngramError {
  switch (principal.kind) {
    case 'invite':
      return new EngramError(
        'unauthorized',
        `${tool.name} needs a member token, and this connection presents an invite key. Join first: call engram_join with a display name; it returns your member token, then use that token as the bearer.`,
      );
    case 'anonymous':
      return new EngramError(
        'unauthorized',
        `${tool.name} needs a member token. Call engram_status to see how to get one (join a workspace with an invite key, or create one).`,
      );
    case 'member':
      return principal.role === 'reader'
        ? new EngramError('forbidden', `${tool.name} changes the workspace, and your member role is "reader", which can only read. Ask a workspace owner for a token with the member role.`)
        : new EngramError('forbidden', `${tool.name} is for callers without a workspace; this token already belongs to one.`);
  }
}

/**
 * Builds the MCP server for one caller: only the tools their credential allows (SPEC §3) are
 * listed or callable. A call of another Engram tool (named in `calls`, the tools this request
 * calls) is answered with why it is refused and what to do, not "not found". Stateless: a server
 * lives for one HTTP request.
 */
export function createEngramMcpServer(context: McpRequestContext, calls: ReadonlySet<string> = new Set()): McpServer {
  const available = (t: EngramTool) => t.availableTo(context.principal, { openSignup: context.openSignup });
  const tools = ALL_TOOLS.filter(available);
  const names = tools.map((t) => t.name);
  const server = new McpServer(
    { name: 'engram', title: 'Engram', version: ENGRAM_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: serverInstructions(names), jsonSchemaValidator },
  );
  registerTools(server, tools, { ...context, tools: names });
  const refused = ALL_TOOLS.filter((t) => calls.has(t.name) && !available(t));
  registerRefusals(server, refused, (tool) => refusalFor(tool, context.principal), context);
  return server;
}
