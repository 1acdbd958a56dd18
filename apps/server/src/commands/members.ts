/**
 * `engram member list|rename|remove`: operator tools with database access, like `engram token`, for
 * when no owner is at hand (an owner who left, a first owner with no name, automation). Members
 * rename themselves and owners remove members over the API or in the dashboard; both ways go
 * through the same core functions (`renameMemberAs`, `endMembership`) and are audited.
 */
import { parseArgs } from 'node:util';
import type { Config } from '@engram/config';
import { AuditLog, endMembership, renameMemberAs, TOKEN_CACHE_TTL_MS } from '@engram/core';
import { createDb, findWorkspaceByEngramId, forWorkspace, listMemberRows, memberRow, migrate } from '@engram/db';
import { createLogger } from '../logger.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const USAGE = [
  'Usage: engram member list --workspace ENG-XXXX-XXXX',
  '       engram member rename --workspace ENG-XXXX-XXXX --member MEMBER_ID --name "New Name"',
  '       engram member remove --workspace ENG-XXXX-XXXX --member MEMBER_ID',
].join('\n');

export async function memberCommand(config: Config, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { workspace: { type: 'string' }, member: { type: 'string' }, name: { type: 'string' } },
  });
  // `engram member remove ID` reads like `engram token revoke ID`; both spellings work.
  const memberId = values.member ?? positionals[0];
  if (
    !values.workspace ||
    (action !== 'list' && action !== 'remove' && action !== 'rename') ||
    (action !== 'list' && !memberId) ||
    (action === 'rename' && values.name === undefined)
  ) {
    throw new Error(USAGE);
  }
  const db = await createDb(config.database, { limits: config.databaseLimits });
  try {
    await migrate(db.db);
    const workspace = await findWorkspaceByEngramId(db.db, values.workspace);
    if (!workspace) throw new Error(`No workspace ${values.workspace} on this database.`);
    const tenant = forWorkspace(db.db, workspace.id);

    if (action === 'list') {
      const rows = await listMemberRows(tenant);
      const lines = rows.map((m) =>
        [
          m.id,
          m.role.padEnd(6),
          (m.removedAt ? `removed ${m.removedAt.toISOString()}` : `${m.activeTokens} active token(s)`).padEnd(34),
          m.displayName ?? '(unnamed)',
        ].join('  '),
      );
      process.stdout.write(`Members of ${workspace.engramId} "${workspace.name}":\n${lines.join('\n')}\n`);
      return;
    }

    const exists = UUID.test(memberId!) ? await memberRow(tenant, memberId!) : undefined;
    if (!exists) throw new Error(`No member ${memberId} in ${values.workspace}. List them with: engram member list --workspace ${values.workspace}`);
    const started = performance.now();
    if (action === 'rename') {
      const audit = new AuditLog(db.db, createLogger(config));
      try {
        const renamed = await renameMemberAs(db.db, workspace.id, exists.id, values.name!);
        audit.record({
          workspaceId: workspace.id,
          memberId: null,
          tokenId: null,
          actor: 'operator',
          action: 'engram member rename',
          summary: { member_id: renamed.member_id, display_name: { length: renamed.display_name.length } },
          outcome: 'ok',
          errorCode: null,
          durationMs: performance.now() - started,
        });
        process.stdout.write(
          `Renamed ${renamed.role} ${renamed.previous_display_name ? `"${renamed.previous_display_name}"` : renamed.member_id} to "${renamed.display_name}" in ${values.workspace}.\n` +
            `Running servers show the new name beside their facts at once (engram_status within ${TOKEN_CACHE_TTL_MS / 1000} s).\n`,
        );
      } finally {
        await audit.close();
      }
      return;
    }
    const removed = await endMembership(db.db, workspace.id, exists.id);
    const audit = new AuditLog(db.db, createLogger(config));
    audit.record({
      workspaceId: workspace.id,
      memberId: null,
      tokenId: null,
      actor: 'operator',
      action: 'engram member remove',
      summary: { member_id: removed.member_id, role: removed.role, tokens_revoked: removed.tokens_revoked, sessions_ended: removed.sessions_ended },
      outcome: 'ok',
      errorCode: null,
      durationMs: performance.now() - started,
    });
    await audit.close();
    const who = `${removed.role} ${removed.display_name ?? removed.member_id}`;
    process.stdout.write(
      removed.removed_now
        ? `Removed ${who} from ${values.workspace}: ${removed.tokens_revoked} token(s) revoked, ${removed.sessions_ended} dashboard session(s) ended; their facts are kept.\n` +
            `Running servers stop accepting those tokens within ${TOKEN_CACHE_TTL_MS / 1000} s.\n`
        : `${who} was already removed from ${values.workspace} (at ${removed.removed_at}); ${removed.tokens_revoked ? `revoked ${removed.tokens_revoked} token(s) still live` : 'nothing changed'}.\n`,
    );
  } finally {
    await db.close();
  }
}
