/**
 * `engram member list|remove`: operator tools with database access, like `engram token`, for when
 * no owner is at hand (an owner who left, automation). Owners remove members over the API or in the
 * dashboard; both ways end the membership the same way (`endMembership`) and are audited. While a
 * running `engram start` holds the embedded database, both commands ask it (the admin API).
 */
import { parseArgs } from 'node:util';
import type { Config } from '@engram/config';
import { AuditLog, listMembersForOperator, removeMemberForOperator, TOKEN_CACHE_TTL_MS, type MemberRemoval, type OperatorMembersBody } from '@engram/core';
import { migrate } from '@engram/db';
import { createLogger } from '../logger.ts';
import { openUnlessHeld, operatorClient } from './running-server.ts';

const USAGE =
  'Usage: engram member list --workspace ENG-XXXX-XXXX [--url URL]\n       engram member remove --workspace ENG-XXXX-XXXX --member MEMBER_ID [--url URL]';

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
    options: { workspace: { type: 'string' }, member: { type: 'string' }, url: { type: 'string' } },
  });
  // `engram member remove ID` reads like `engram token revoke ID`; both spellings work.
  const memberId = values.member ?? positionals[0];
  if (!values.workspace || (action !== 'list' && action !== 'remove') || (action === 'remove' && !memberId)) throw new Error(USAGE);
  const engramId = values.workspace;
  const db = await openUnlessHeld(config);
  if (!db) {
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
