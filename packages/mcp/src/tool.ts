import type { Embedder, FactServices, MemberPrincipal } from '@engram/core';
import { EngramError } from '@engram/core';
import type { Database } from '@engram/db';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

/** Minimal logger shape (pino-compatible) so this package stays framework-free. */
export interface ToolLogger {
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** What a tool call may use. Built per request by the transport adapter. */
export interface ToolContext {
  db: Database;
  embedder: Embedder;
  /** Server secret (pseudonymous agent ids). */
  secret: string;
  principal: MemberPrincipal;
  llm: { enabled: boolean; model: string };
  /** Names of the tools this caller can use (for prompts that point at them). */
  tools: readonly string[];
  log: ToolLogger;
}

/** An Engram MCP tool: zod on input and output, a description written for the calling model. */
export interface EngramTool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** Whether this caller may see and call the tool (SPEC §3, access by credential). */
  availableTo(principal: MemberPrincipal): boolean;
  handler(args: z.output<I>, ctx: ToolContext): Promise<z.input<O>>;
}

/** The fact services of a tool call. */
export function factServices(ctx: ToolContext): FactServices {
  return {
    db: ctx.db,
    embedder: ctx.embedder,
    secret: ctx.secret,
    log: { info: () => {}, warn: (o, m) => ctx.log.warn(o, m), error: (o, m) => ctx.log.error(o, m) },
  };
}

/** Declares a tool with its types inferred from its schemas. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(tool: EngramTool<I, O>): EngramTool<I, O> {
  return tool;
}

/**
 * A domain error becomes a tool result with `isError: true` (the model can read and act on it);
 * anything else is logged and reported without internals.
 */
export function toolError(error: unknown, tool: string, log: ToolLogger): CallToolResult {
  if (error instanceof EngramError) {
    return {
      isError: true,
      content: [{ type: 'text', text: `${error.message} (code: ${error.code})` }],
    };
  }
  log.error({ err: error, tool }, 'tool failed');
  return {
    isError: true,
    content: [{ type: 'text', text: `Engram could not complete ${tool} because of an internal error. Try again shortly.` }],
  };
}

/** Registers the tools this caller may use on a per-request server. */
export function registerTools(server: McpServer, tools: readonly EngramTool[], ctx: ToolContext): void {
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { title: tool.title, ...tool.annotations },
      },
      async (args: unknown): Promise<CallToolResult> => {
        try {
          const output = await tool.handler(args as z.output<typeof tool.input>, ctx);
          const structured = tool.output.parse(output);
          return {
            structuredContent: structured,
            content: [{ type: 'text', text: JSON.stringify(structured) }],
          };
        } catch (error) {
          return toolError(error, tool.name, ctx.log);
        }
      },
    );
  }
}
