/**
 * `engram member list|rename|remove`: operator tools with database access, like `engram token`, for
 * when no owner is at hand (an owner who left, a first owner with no name, automation). Members
 * rename themselves and owners remove members over the API or in the dashboard; both ways go
 * through the same core functions (`renameMemberAs`, `endMembership`) and are audited. While a
 * running `engram start` holds the embedded database, list and remove ask it (the admin API).
 */
import { parseArgs } from 'node:util';
import type { Config } from '@engram/config';
import { AuditLog, listMembersForOperator, removeMemberForOperator, renameMemberAs, TOKEN_CACHE_TTL_MS, type MemberRemoval, type OperatorMembersBody } from '@engram/core';
import { findWorkspaceByEngramId, forWorkspace, memberRow, migrate, type Database } from '@engram/db';
import { createLogger } from '../logger.ts';
import { openUnlessHeld, operatorClient } from './running-server.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const USAGE = [
  'Usage: engram member list --workspace ENG-XXXX-XXXX [--url URL]',
  '       engram member rename --workspace ENG-XXXX-XXXX --member MEMBER_ID --name "New Name"',
  '       engram member remove --workspace ENG-XXXX-XXXX --member MEMBER_ID [--url URL]',
].join('\n');
/** Renaming has no operator route (yet): the member, or an owner, renames over the API or in the dashboard. */
const HELD_FOR_RENAME =
  'The embedded database is open in a running engram start: rename the member in the dashboard (Members) as the member or an owner, ' +
  'or stop the server and run this again.';

/** One line per member: id, role, live tokens (or when they were removed), display name. */
function printMembers(body: OperatorMembersBody): void {
  const lines = body.members.map((m) =>
    [m.id, m.role.padEnd(6), (m.removed_at ? `removed ${m.removed_at}` : `${m.active_tokens} active token(s)`).padEnd(34), m.display_name ?? '(unnamed)'].join('  '),
  );
  process.stdout.write(`Members of ${body.engram_id} "${body.name}":\n${lines.join('\n')}\n`);
}

export async function memberCommand(config: Config, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { workspace: { type: 'string' }, member: { type: 'string' }, name: { type: 'string' }, url: { type: 'string' } },
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
  const engramId = values.workspace;
  const db = await openUnlessHeld(config);
  if (!db) {
    if (action === 'rename') throw new Error(HELD_FOR_RENAME);
    const server = operatorClient(config, values.url);
    const query = new URLSearchParams({ engram_id: engramId }).toString();
    if (action === 'list') printMembers(await server.call<OperatorMembersBody>('GET', `/api/v1/admin/members?${query}`));
    else printRemoval(await server.call<MemberRemoval>('DELETE', `/api/v1/admin/members/${encodeURIComponent(memberId!)}?${query}`), engramId);
    return;
  }
  try {
    await migrate(db.db);
    if (action === 'list') {
      printMembers(await listMembersForOperator(db.db, engramId));
      return;
    }
    const started = performance.now();
    if (action === 'rename') {
      await renameAsOperator(config, db.db, engramId, memberId!, values.name!, started);
      return;
    }
    const removed = await removeMemberForOperator(db.db, engramId, memberId!);
    const audit = new AuditLog(db.db, createLogger(config));
    audit.record({
      workspaceId: removed.workspace_id,
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
    printRemoval(removed, engramId);
  } finally {
    await db.close();
  }
}

function printRemoval(removed: MemberRemoval, engramId: string): void {
  const who = `${removed.role} ${removed.display_name ?? removed.member_id}`;
  process.stdout.write(
    removed.removed_now
      ? `Removed ${who} from ${engramId}: ${removed.tokens_revoked} token(s) revoked, ${removed.sessions_ended} dashboard session(s) ended; their facts are kept.\n` +
          `Running servers stop accepting those tokens within ${TOKEN_CACHE_TTL_MS / 1000} s.\n`
      : `${who} was already removed from ${engramId} (at ${removed.removed_at}); ${removed.tokens_revoked ? `revoked ${removed.tokens_revoked} token(s) still live` : 'nothing changed'}.\n`,
  );
}

async function renameAsOperator(config: Config, db: Database, engramId: string, memberId: string, name: string, started: number): Promise<void> {
  const workspace = await findWorkspaceByEngramId(db, engramId);
  if (!workspace) throw new Error(`No workspace ${engramId} on this database.`);
  const exists = UUID.test(memberId) ? await memberRow(forWorkspace(db, workspace.id), memberId) : undefined;
  if (!exists) throw new Error(`No member ${memberId} in ${engramId}. List them with: engram member list --workspace ${engramId}`);
  const audit = new AuditLog(db, createLogger(config));
  try {
    const renamed = await renameMemberAs(db, workspace.id, exists.id, name);
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
      `Renamed ${renamed.role} ${renamed.previous_display_name ? `"${renamed.previous_display_name}"` : renamed.member_id} to "${renamed.display_name}" in ${engramId}.\n` +
        `Running servers show the new name beside their facts at once (engram_status within ${TOKEN_CACHE_TTL_MS / 1000} s).\n`,
    );
  } finally {
    await audit.close();
  }
}
