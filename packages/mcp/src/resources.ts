import {
  ConflictsInput,
  describeWorkspace,
  getStatus,
  InvalidInputError,
  listConflicts,
  readConflict,
  readTimeline,
  Scope,
  TimelineQuery,
  type MemberPrincipal,
} from '@engram/core';
import { ResourceTemplate, UriTemplate, type McpServer, type ReadResourceResult, type Resource, type Variables } from '@modelcontextprotocol/server';
import { parseArgument, protocolErrorFor } from './errors.ts';
import type { ToolContext } from './tool.ts';

/** How many commits the recent-changes resources show. */
export const RECENT_CHANGES = 50;

const MIME_TYPE = 'application/json';

/** No Engram URI is longer (a scope is at most 200 characters, percent-encoded at most 1,800). */
const MAX_URI_LENGTH = 2048;

/**
 * An Engram resource (SPEC §2): a fixed URI or a URI template, read as JSON for a member. The
 * reads go through the same core functions as the tools and the REST API, so scope read
 * permissions apply exactly as they do there.
 */
export interface EngramResource {
  /** The resource's name, or the template's. */
  name: string;
  /** A URI, or an RFC 6570 URI template when `template` is set. */
  uri: string;
  template: boolean;
  title: string;
  description: string;
  read: (member: MemberPrincipal, ctx: ToolContext, variables: Record<string, string>) => Promise<unknown>;
  /** For a template: the resources it currently stands for, listed by `resources/list`. */
  list?: (member: MemberPrincipal, ctx: ToolContext) => Promise<Omit<Resource, 'mimeType'>[]>;
}

/** A template variable as the caller meant it (the SDK hands them over still percent-encoded). */
function decoded(variables: Record<string, string>, name: string): string {
  try {
    return decodeURIComponent(variables[name] ?? '');
  } catch {
    throw new InvalidInputError([{ field: name, message: 'is not valid percent-encoded UTF-8' }]);
  }
}

/** The most recent commits (durable facts) in a scope or the whole workspace, newest first. */
async function recentChanges(member: MemberPrincipal, ctx: ToolContext, scope?: string) {
  const timeline = await readTimeline(ctx.db, member, TimelineQuery.parse({ scope, limit: RECENT_CHANGES }));
  return {
    scope: scope ?? null,
    changes: timeline.facts.sort((a, b) => b.valid_from.localeCompare(a.valid_from) || b.id.localeCompare(a.id)),
    truncated: timeline.truncated,
  };
}

const CHANGES_DESCRIPTION = [
  `The ${RECENT_CHANGES} most recent commits to the team's memory, newest first (durable facts; scratch notes are left out).`,
  'Each is still current (valid_until null) or says when and why it stopped being: superseded by a later',
  'version of its lineage, deleted, expired, settled by the detector, or closed by a conflict resolution.',
].join(' ');

/** Every resource a member can read, in the order `resources/list` shows them. */
export const RESOURCES: readonly EngramResource[] = [
  {
    name: 'workspace',
    uri: 'engram://workspace',
    template: false,
    title: 'Workspace summary',
    description:
      'The Engram workspace this token belongs to: its name and id, your member role, how many current facts and open conflicts the team memory holds, the workspace settings (privacy, rate limits) and whether the narrative detective runs.',
    read: async (member, ctx) => {
      const [status, workspace] = await Promise.all([getStatus(ctx.db, member, { llm: ctx.llm, tools: ctx.tools }), describeWorkspace(ctx.db, member)]);
      return {
        engram_id: workspace.engram_id,
        workspace: { id: workspace.workspace_id, name: workspace.name, created_at: workspace.created_at, members: workspace.members, settings: workspace.settings },
        member: status.member,
        memory: status.memory,
        detective: status.detective,
      };
    },
  },
  {
    name: 'conflicts',
    uri: 'engram://conflicts',
    template: false,
    title: 'Open conflicts',
    description:
      'Where the team memory disagrees: the open conflicts you can see, grouped by scope, most severe first, each with the question that settles it, every fact involved and how it was detected (what engram_conflicts returns).',
    read: (member, ctx) => listConflicts(ctx.db, member, ConflictsInput.parse({})),
  },
  {
    name: 'conflict',
    uri: 'engram://conflicts/{conflict_id}',
    template: true,
    title: 'Conflict',
    description:
      'One conflict, open or settled: its question, kind, severity, every fact involved, how it was detected, and how it was settled if it was. conflict_id comes from engram_conflicts or engram://conflicts.',
    read: (member, ctx, variables) => readConflict(ctx.db, member, decoded(variables, 'conflict_id')),
    list: async (member, ctx) => {
      const open = await listConflicts(ctx.db, member, ConflictsInput.parse({}));
      return open.groups.flatMap((group) =>
        group.conflicts.map((c) => ({
          uri: `engram://conflicts/${c.conflict_id}`,
          name: `conflict-${c.conflict_id}`,
          title: c.question,
          description: `Open ${c.kind.replaceAll('_', ' ')} conflict (${c.severity} severity) in ${group.scope}.`,
        })),
      );
    },
  },
  {
    name: 'changes',
    uri: 'engram://changes',
    template: false,
    title: 'Recent changes',
    description: `${CHANGES_DESCRIPTION} Scopes you may not read are left out.`,
    read: (member, ctx) => recentChanges(member, ctx),
  },
  {
    name: 'scope-changes',
    uri: 'engram://changes/{+scope}',
    template: true,
    title: 'Recent changes in a scope',
    description: `${CHANGES_DESCRIPTION} Only the scope and the scopes below it ("payments" includes "payments/webhooks"), e.g. engram://changes/payments/webhooks.`,
    read: (member, ctx, variables) => recentChanges(member, ctx, parseArgument(Scope, decoded(variables, 'scope'), 'scope')),
  },
];

const templates = new Map(RESOURCES.filter((r) => r.template).map((r) => [r, new UriTemplate(r.uri)]));

/** Template variables as strings (no Engram template has a list-valued variable). */
const flat = (variables: Variables): Record<string, string> =>
  Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : value]));

/** The Engram resource or template a URI names, if any. */
export function engramResourceAt(uri: string): EngramResource | undefined {
  if (uri.length > MAX_URI_LENGTH) return undefined;
  return RESOURCES.find((r) => (r.template ? templates.get(r)!.match(uri) !== null : r.uri === uri));
}

/** Runs a read, mapping failures to the JSON-RPC error a client can act on. */
async function answer(uri: URL, ctx: ToolContext, read: () => Promise<unknown>): Promise<ReadResourceResult> {
  try {
    const value = await read();
    return { contents: [{ uri: uri.href, mimeType: MIME_TYPE, text: JSON.stringify(value, null, 2) }] };
  } catch (error) {
    throw protocolErrorFor(error, { uri: uri.href }, ctx.log);
  }
}

/** Registers every resource and template for a member. */
export function registerResources(server: McpServer, member: MemberPrincipal, ctx: ToolContext): void {
  for (const resource of RESOURCES) {
    const metadata = { title: resource.title, description: resource.description, mimeType: MIME_TYPE };
    if (!resource.template) {
      server.registerResource(resource.name, resource.uri, metadata, (uri) => answer(uri, ctx, () => resource.read(member, ctx, {})));
      continue;
    }
    const list = resource.list;
    const template = new ResourceTemplate(resource.uri, {
      list: list
        ? async () => {
            try {
              return { resources: await list(member, ctx) };
            } catch (error) {
              throw protocolErrorFor(error, { uri: resource.uri }, ctx.log);
            }
          }
        : undefined,
    });
    server.registerResource(resource.name, template, metadata, (uri, variables) =>
      answer(uri, ctx, () => resource.read(member, ctx, flat(variables))),
    );
  }
}

/** The requested URIs that name Engram resources, as the SDK looks them up (parsed). */
export function engramResourceUris(requested: Iterable<string>): string[] {
  const uris = new Set<string>();
  for (const uri of requested) {
    const parsed = URL.canParse(uri) ? new URL(uri).href : undefined;
    if (parsed && engramResourceAt(parsed)) uris.add(parsed);
  }
  return [...uris];
}

/**
 * For a caller who is not a member and whose request reads Engram resources (`uris`, from
 * {@link engramResourceUris}): each read is answered with `refusal` (why, and what to do instead)
 * rather than "not found". Nothing is listed to them.
 */
export function registerResourceRefusals(server: McpServer, uris: readonly string[], refusal: (uri: string) => Error, ctx: ToolContext): void {
  for (const uri of uris) {
    server.registerResource(engramResourceAt(uri)!.name, uri, { mimeType: MIME_TYPE }, (url) => answer(url, ctx, () => Promise.reject(refusal(url.href))));
  }
}
