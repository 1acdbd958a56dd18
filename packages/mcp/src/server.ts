import { ENGRAM_VERSION, EngramError, type Principal } from '@engram/core';
import { McpServer } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { registerConflictApp } from './conflict-app.ts';
import { ALL_PROMPTS, registerPromptRefusals, registerPrompts, type EngramPrompt } from './prompts.ts';
import { engramResourceUris, registerResourceRefusals, registerResources } from './resources.ts';
import { registerRefusals, registerTools, type EngramTool, type ToolContext } from './tool.ts';
import { conflictsTool } from './tools/conflicts.ts';
import { commitTool, promoteTool, queryTool } from './tools/facts.ts';
import { initTool, joinTool } from './tools/onboarding.ts';
import { resolveTool } from './tools/resolve.ts';
import { statusTool } from './tools/status.ts';
import { verifyTool } from './tools/verify.ts';

/** Every Engram tool, in the order clients list them. */
export const ALL_TOOLS: readonly EngramTool[] = [
  statusTool,
  queryTool,
  commitTool,
  promoteTool,
  verifyTool,
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
    lines.push('Cite the file and lines you verified (citations); before relying on a fact that cites code, re-read those lines.');
  }
  if (tools.includes('engram_verify')) {
    lines.push('Say what the re-read found with engram_verify: still_true, outdated or unsure.');
  }
  return lines.join('\n');
}

// The SDK builds a fresh Ajv instance per server unless given one; with a server per request that
// is a large share of the MCP overhead. One shared validator serves every server.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** Per-request context, minus the tool list (derived from the principal here). */
export type McpRequestContext = Omit<ToolContext, 'tools'>;

/** Why this caller cannot use `feature` (a tool, a prompt, or a resource by URI), and what to do instead. */
export function refusalFor(feature: { name: string }, principal: Principal): EngramError {
  switch (principal.kind) {
    case 'invite':
      return new EngramError(
        'unauthorized',
        `${feature.name} needs a member token, and this connection presents an invite key. Join first: call engram_join with a display name; it returns your member token, then use that token as the bearer.`,
      );
    case 'anonymous':
      return new EngramError(
        'unauthorized',
        `${feature.name} needs a member token. Call engram_status to see how to get one (join a workspace with an invite key, or create one).`,
      );
    case 'member':
      return principal.role === 'reader'
        ? new EngramError('forbidden', `${feature.name} changes the workspace, and your member role is "reader", which can only read. Ask a workspace owner for a token with the member role.`)
        : new EngramError('forbidden', `${feature.name} is for callers without a workspace; this token already belongs to one.`);
  }
}

/** What one request asks for by name: the tools it calls, the resources it reads, the prompts it gets. */
export interface Requested {
  tools: ReadonlySet<string>;
  resources: ReadonlySet<string>;
  prompts: ReadonlySet<string>;
  /**
   * True when the request only calls tools (and sends notifications): its server needs those tools
   * and nothing else. Listing, reading and the handshake get every feature.
   */
  onlyToolCalls?: boolean;
}

const NOTHING: Requested = { tools: new Set(), resources: new Set(), prompts: new Set() };

/**
 * Builds the MCP server for one caller: only the tools and prompts their credential allows (SPEC
 * §3) are listed or usable, and the resources only for a member. Using another Engram tool, prompt
 * or resource (named in `requested`) is answered with why it is refused and what to do, not "not
 * found". Stateless: a server lives for one HTTP request.
 */
export function createEngramMcpServer(context: McpRequestContext, requested: Requested = NOTHING): McpServer {
  const { principal } = context;
  const options = { openSignup: context.openSignup };
  const available = (t: EngramTool | EngramPrompt) => t.availableTo(principal, options);
  const tools = ALL_TOOLS.filter(available);
  const names = tools.map((t) => t.name);
  const ctx: ToolContext = { ...context, tools: names };
  const member = principal.kind === 'member' ? principal : undefined;
  const refusedReads = member ? [] : engramResourceUris(requested.resources);
  // Nothing changes a caller's lists within a request: one server per request.
  const capabilities = {
    tools: { listChanged: false },
    prompts: { listChanged: false },
    ...(member || refusedReads.length > 0 ? { resources: { listChanged: false } } : {}),
  };
  const server = new McpServer(
    { name: 'engram', title: 'Engram', version: ENGRAM_VERSION },
    { capabilities, instructions: serverInstructions(names), jsonSchemaValidator },
  );
  const refusal = (feature: { name: string }) => refusalFor(feature, principal);
  const refused = ALL_TOOLS.filter((t) => requested.tools.has(t.name) && !available(t));
  // A request that only calls tools is answered by those tools alone: registering the rest (their
  // schemas, the prompts, the resources) is most of the cost of building a server. (The declared
  // capabilities install the tool handlers, so another name is still answered "not found".)
  if (requested.onlyToolCalls) {
    registerTools(server, tools.filter((t) => requested.tools.has(t.name)), ctx);
    registerRefusals(server, refused, refusal, context);
    return server;
  }
  registerTools(server, tools, ctx);
  registerRefusals(server, refused, refusal, context);
  registerPrompts(server, ALL_PROMPTS.filter(available), ctx);
  registerPromptRefusals(server, ALL_PROMPTS.filter((p) => requested.prompts.has(p.name) && !available(p)), refusal, ctx);
  if (member) {
    registerResources(server, member, ctx);
    registerConflictApp(server, member, ctx);
  }
  else registerResourceRefusals(server, refusedReads, (uri) => refusal({ name: uri }), ctx);
  return server;
}
