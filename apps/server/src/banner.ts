import type { Config } from '@engram/config';
import type { LocalWorkspace } from './local-state.ts';

/**
 * The start-up banner: where to connect and with what. Written to stdout for the operator, not
 * through the logger (it carries the embedded owner token, which must never reach a log).
 */
export function startupBanner(options: {
  config: Config;
  baseUrl: string;
  local: LocalWorkspace | undefined;
  readyMs: number;
}): string {
  const { config, baseUrl, local } = options;
  const mcpUrl = `${baseUrl}/mcp`;
  const database =
    config.database.kind === 'pglite' ? `embedded (PGlite) in ${config.database.dataDir}` : 'PostgreSQL (DATABASE_URL)';
  const lines = [
    '',
    `  Engram is ready (${Math.round(options.readyMs)} ms)`,
    '',
    `  MCP URL        ${mcpUrl}`,
    `  Dashboard URL  ${baseUrl}/`,
  ];
  if (local) {
    lines.push(`  Owner token    ${local.owner_token}`, `  Workspace      ${local.engram_id}${local.created ? ' (created now)' : ''}`);
    if (local.owner) {
      lines.push(`  Owner name     ${local.owner.name}`);
      // No account name to take (an empty $USER, root in a container): say how to become someone.
      if (local.owner.defaulted) lines.push(`                 (rename yourself on the dashboard's Members page, or: ${renameCommand(local.engram_id, local.owner.memberId)})`);
    }
    if (local.invite) {
      const days = Math.round((local.invite.expiresAt.getTime() - Date.now()) / 86_400_000);
      lines.push(`  Invite key     ${local.invite.key}`, `                 (for teammates: ${local.invite.uses} uses, ${days} days; shown once, more on the Members page)`);
    }
  }
  lines.push(
    `  Database       ${database}`,
    `  Detective      ${config.openai.apiKey ? `narrative pass on (${config.openai.detectiveModel})` : 'narrative pass off (no OPENAI_API_KEY); deterministic checks on'}`,
    '',
  );
  if (local) {
    lines.push(
      '  Connect Claude Code:',
      `    claude mcp add --transport http engram ${mcpUrl} --header "Authorization: Bearer ${local.owner_token}"`,
      '',
    );
  } else {
    lines.push(
      '  Create a workspace: POST /api/v1/admin/workspaces with ENGRAM_ADMIN_TOKEN, or `engram workspace create`.',
      '',
    );
  }
  return lines.join('\n');
}

/** The operator command that renames a member (`engram member rename`). */
export const renameCommand = (engramId: string, memberId: string) =>
  `engram member rename --workspace ${engramId} --member ${memberId} --name "Your Name"`;
