import {
  callerErrorOf,
  EngramError,
  InvalidInputError,
  nextTurn,
  unstorableTextProblems,
  type AnonymousLimits,
  type RateLimiter,
  summarizeArguments,
  type AuditEntry,
  type Embedder,
  type FactServices,
  type MemberPrincipal,
  type Principal,
} from '@engram/core';
import { auditIdentity } from '@engram/core';
import { asOneCaller, databaseFault, healthOf, neverApplied, withinDeadline, type Database } from '@engram/db';
import type { CallToolResult, McpServer, ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { parsedOutput, portable } from './portable-schema.ts';

/** Minimal logger shape (pino-compatible) so this package stays framework-free. */
export interface ToolLogger {
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** What a tool call may use. Built per request by the transport adapter. */
export interface ToolContext {
  db: Database;
  embedder: Embedder;
  /** Server secret (invite keys, pseudonymous agent ids). */
  secret: string;
  principal: Principal;
  llm: { enabled: boolean; model: string };
  /** Whether callers without a token may create workspaces (`engram_init`). */
  openSignup: boolean;
  /** Limits for callers without a member token. */
  anonymousLimits?: AnonymousLimits;
  /** Shared rate limits. */
  limits?: RateLimiter;
  /** The MCP URL clients use, for the configuration texts of init and join. */
  mcpUrl: string;
  /** Names of the tools this caller can use (for prompts that point at them). */
  tools: readonly string[];
  log: ToolLogger;
  /** Most milliseconds a tool call may take before it answers with a retryable error (default: none). */
  deadlineMs?: number;
  /** Records a finished tool call in the audit log. */
  audit?: (entry: AuditEntry) => void;
  /** The built conflict queue App (HTML), read by the server at startup; unset when it was not built. */
  conflictAppHtml?: string;
}

/** Who may see and call a tool (SPEC §3, access by credential). */
export type ToolAccess = (principal: Principal, options: { openSignup: boolean }) => boolean;

/** An Engram MCP tool: zod on input and output, a description written for the calling model. */
export interface EngramTool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  availableTo: ToolAccess;
  /** Tool metadata for `tools/list`, e.g. the MCP App (`ui.resourceUri`) that shows its result. */
  meta?: Record<string, unknown>;
  handler(args: z.output<I>, ctx: ToolContext): Promise<z.input<O>>;
}

/** Tools for members; `write` tools not for readers. */
export const forMembers =
  (options: { write: boolean }): ToolAccess =>
  (principal) =>
    principal.kind === 'member' && (!options.write || principal.role !== 'reader');

/** The member behind a tool call (tools listed only to members can rely on it). */
export function memberOf(ctx: ToolContext): MemberPrincipal {
  if (ctx.principal.kind !== 'member') {
    throw new EngramError('unauthorized', 'This tool needs a member token: call engram_status to see how to get one.');
  }
  return ctx.principal;
}

/** The fact services of a tool call. */
export function factServices(ctx: ToolContext): FactServices {
  return {
    db: ctx.db,
    embedder: ctx.embedder,
    secret: ctx.secret,
    log: { info: () => {}, warn: (o, m) => ctx.log.warn(o, m), error: (o, m) => ctx.log.error(o, m) },
    limits: ctx.limits,
  };
}

/** Declares a tool with its types inferred from its schemas. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(tool: EngramTool<I, O>): EngramTool<I, O> {
  return tool;
}

/**
 * A domain error becomes a tool result with `isError: true` (the model can read and act on it,
 * including `retry_after_seconds`); anything else is logged and reported without internals.
 */
export function toolError(thrown: unknown, tool: string, log: ToolLogger): CallToolResult {
  const error = callerErrorOf(thrown) ?? thrown;
  if (error instanceof EngramError) {
    // No structuredContent on errors: clients validate it against the tool's output schema.
    const retry = error.details?.retry_after_seconds;
    const tail = typeof retry === 'number' ? `; retry_after_seconds: ${retry}` : '';
    return { isError: true, content: [{ type: 'text', text: `${error.message} (code: ${error.code}${tail})` }] };
  }
  log.error({ err: error, tool }, 'tool failed');
  return {
    isError: true,
    content: [{ type: 'text', text: `Engram could not complete ${tool} because of an internal error. Try again shortly.` }],
  };
}

/**
 * What a write tool's caller is told when the database failed it: whether it was done. A failure
 * the database reported (a statement refused, rolled back) or one before any statement reached it
 * (no connection) did nothing, and the caller may simply try again. A call still running when its
 * deadline passed, or whose connection broke mid-statement, may have been done: the answer says so,
 * and says how to retry without doing it twice. Anything else is left as it is.
 */
export function writeOutcome(error: unknown, tool: Pick<EngramTool, 'name' | 'input'>, state: 'failed' | 'still_running' | 'never_began'): unknown {
  const caller = callerErrorOf(error);
  if (!caller || caller.code !== 'unavailable') return error;
  const stillRunning = state === 'still_running';
  const done = state === 'never_began' || (state === 'failed' && databaseFault(error) && neverApplied(error)) ? 'no' : 'unknown';
  const retry = caller.details?.retry_after_seconds;
  if (done === 'no') {
    const before = state === 'never_began' ? ' It had not begun.' : '';
    return new EngramError('unavailable', `${caller.message}${before} Nothing was done: call ${tool.name} again.`, { ...caller.details, done: 'no' });
  }
  const keyed = 'idempotency_key' in tool.input.shape;
  const how = keyed
    ? `Retrying is safe: call ${tool.name} again with the same arguments and the same idempotency_key (add one now if the first call had none: an identical fact is then answered as a duplicate, never stored twice), and you get what the first call did.`
    : `Check whether it took effect before calling ${tool.name} again.`;
  const why = stillRunning ? `${tool.name} got no answer within its deadline` : `${tool.name} lost its database connection before the answer came`;
  return new EngramError(
    'unavailable',
    `${caller.message.replace(/\s*Try again in \d+ s\.$/, '')} ${why}, so it may or may not have been done (outcome: unknown). ${how}`,
    { ...caller.details, done: 'unknown', ...(typeof retry === 'number' ? { retry_after_seconds: retry } : {}) },
  );
}

/**
 * Registers tools this caller may not use, for a request that calls them: each call is answered
 * with `refusal(tool)` (why, and what to do instead) as a tool error, and audited as denied.
 */
export function registerRefusals(
  server: McpServer,
  tools: readonly EngramTool[],
  refusal: (tool: EngramTool) => EngramError,
  ctx: Pick<ToolContext, 'principal' | 'log' | 'audit'>,
): void {
  for (const tool of tools) {
    const config = { title: tool.title, description: tool.description, annotations: { title: tool.title, ...tool.annotations } };
    server.registerTool(tool.name, config, async (): Promise<CallToolResult> => {
      const error = refusal(tool);
      ctx.audit?.({ ...auditIdentity(ctx.principal), action: tool.name, summary: {}, outcome: 'denied', errorCode: error.code, durationMs: 0 });
      return toolError(error, tool.name, ctx.log);
    });
  }
}

/** Registers the tools this caller may use on a per-request server, each call audited. */
export function registerTools(server: McpServer, tools: readonly EngramTool[], ctx: ToolContext): void {
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: portable(tool.input),
        outputSchema: portable(tool.output, { identified: true }),
        annotations: { title: tool.title, ...tool.annotations },
        ...(tool.meta ? { _meta: tool.meta } : {}),
      },
      async (args: unknown): Promise<CallToolResult> => {
        const started = performance.now();
        let result: CallToolResult;
        let errorCode: string | null = null;
        try {
          const unstorable = unstorableTextProblems(args);
          if (unstorable.length > 0) throw new InvalidInputError(unstorable);
          // The tool's work and its answer each take a turn of the event loop once it is busy
          // (turns.ts); a wait for the first counts against the call's deadline.
          const progress = { started: false, abandoned: false, settled: false };
          const work = (async () => {
            const turn = nextTurn();
            if (turn) await turn;
            // Past its deadline before it began: it never begins, so its answer can say so.
            if (progress.abandoned) throw new Error('abandoned before it began');
            progress.started = true;
            // One caller: on the embedded database its statements take their place in line by when the call arrived.
            return asOneCaller(() => tool.handler(args as z.output<typeof tool.input>, ctx));
          })().finally(() => (progress.settled = true));
          let output: z.input<typeof tool.output>;
          try {
            output = ctx.deadlineMs ? await withinDeadline(work, ctx.deadlineMs, tool.name) : await work;
          } catch (error) {
            progress.abandoned = !progress.settled;
            if (progress.abandoned) work.catch(() => {});
            const state = !progress.abandoned ? 'failed' : progress.started ? 'still_running' : 'never_began';
            throw tool.annotations.readOnlyHint ? error : writeOutcome(error, tool, state);
          }
          const turn = nextTurn();
          if (turn) await turn;
          const structured = parsedOutput(tool.output, output);
          result = { structuredContent: structured, content: [{ type: 'text', text: JSON.stringify(structured) }] };
        } catch (error) {
          // A database fault is logged once per outage by the health tracker, not once per call.
          healthOf(ctx.db)?.report(error);
          errorCode = callerErrorOf(error)?.code ?? 'internal';
          result = toolError(error, tool.name, ctx.log);
        }
        ctx.audit?.({
          ...auditIdentity(ctx.principal),
          action: tool.name,
          summary: summarizeArguments(args) as Record<string, unknown>,
          outcome: errorCode === null ? 'ok' : errorCode === 'forbidden' || errorCode === 'rate_limited' ? 'denied' : 'error',
          errorCode,
          durationMs: performance.now() - started,
        });
        return result;
      },
    );
  }
}
