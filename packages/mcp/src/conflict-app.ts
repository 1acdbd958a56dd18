import type { MemberPrincipal } from '@engram/core';
import { registerAppResource, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import type { ToolContext } from './tool.ts';

/** The MCP App for the conflict queue (SPEC §2): engram_conflicts points hosts that render Apps here. */
export const CONFLICT_APP_URI = 'ui://engram/conflicts';

/**
 * What engram_conflicts carries in its tool metadata: the App's resource, in the current key
 * (`ui.resourceUri`) and the deprecated flat one hosts still check. No `openai/outputTemplate`:
 * that key means ChatGPT's older Apps runtime (`text/html+skybridge`, `window.openai`), which this
 * App does not speak; ChatGPT renders MCP Apps from `ui.resourceUri`.
 */
export const CONFLICT_APP_TOOL_META = { ui: { resourceUri: CONFLICT_APP_URI }, [RESOURCE_URI_META_KEY]: CONFLICT_APP_URI };

/** Served when the App was not built: still a valid App page, saying how to build it. */
export const CONFLICT_APP_NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><title>Engram conflicts</title></head>
<body><main><h1>The Engram conflict app is not built</h1>
<p>This server was started without the App's build (apps/conflict-app/dist/conflict-app.html). Run <code>npm run build:app</code> and restart it.
Until then, engram_conflicts answers in text, and conflicts can be settled with engram_resolve or in the Engram dashboard.</p></main></body></html>`;

/**
 * Registers the App's resource for a member: the built HTML (read once by the server at startup,
 * passed in `ctx.conflictAppHtml`), declaring that it loads nothing from anywhere (empty CSP
 * domain lists) and wants no border of the host's.
 */
export function registerConflictApp(server: McpServer, _member: MemberPrincipal, ctx: ToolContext): void {
  const html = ctx.conflictAppHtml ?? CONFLICT_APP_NOT_BUILT;
  const meta = { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [] }, prefersBorder: true } };
  registerAppResource(
    server,
    'conflicts-app',
    CONFLICT_APP_URI,
    {
      title: 'Conflict queue (MCP App)',
      description:
        'The interactive conflict queue that engram_conflicts shows in hosts that render MCP Apps: each open conflict side by side with its facts and belief timeline, settled with Keep / Merge / Dismiss through engram_resolve.',
      mimeType: RESOURCE_MIME_TYPE,
      _meta: meta,
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: RESOURCE_MIME_TYPE, text: html, _meta: meta }] }),
  );
}
