import { ENGRAM_VERSION } from '@engram/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { registerTools, type EngramTool, type ToolContext } from './tool.ts';
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
// was most of the MCP overhead. One shared validator compiles each schema once.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** Per-request context, minus the tool list (derived from the principal here). */
export type McpRequestContext = Omit<ToolContext, 'tools'>;

/**
 * Builds the MCP server for one caller: only the tools their credential allows (SPEC §3) are
 * listed or callable. Stateless: a server lives for one HTTP request.
 */
export function createEngramMcpServer(context: McpRequestContext): McpServer {
  const tools = ALL_TOOLS.filter((t) => t.availableTo(context.principal, { openSignup: context.openSignup }));
  const names = tools.map((t) => t.name);
  const server = new McpServer(
    { name: 'engram', title: 'Engram', version: ENGRAM_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: serverInstructions(names), jsonSchemaValidator },
  );
  registerTools(server, tools, { ...context, tools: names });
  return server;
}
