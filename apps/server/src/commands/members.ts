/**
 * `engram member list|remove`: operator tools with database access, like `engram token`, for when
 * no owner is at hand (an owner who left, automation). Owners remove members over the API or in the
 * dashboard; both ways end the membership the same way (`endMembership`) and are audited.
 */
import { parseArgs } from 'node:util';
import type { Config } from '@engram/config';
import { AuditLog, endMembership, listMembersForOperator, TOKEN_CACHE_TTL_MS, type OperatorMembersBody } from '@engram/core';
import { findWorkspaceByEngramId, forWorkspace, memberRow, migrate } from '@engram/db';
import { createLogger } from '../logger.ts';
import { openUnlessHeld, operatorClient } from './running-server.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const USAGE =
  'Usage: engram member list --workspace ENG-XXXX-XXXX [--url URL]\n       engram member remove --workspace ENG-XXXX-XXXX --member MEMBER_ID';
/** Removal has no operator route: an owner removes members over the API or in the dashboard. */
const HELD_FOR_REMOVE =
  'The embedded database is open in a running engram start. Remove the member as an owner in the dashboard (Members) ' +
  'or with DELETE /api/v1/members/MEMBER_ID, or stop the server and run this again.';

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
  const db = await openUnlessHeld(config);
  if (!db) {
    if (action === 'remove') throw new Error(HELD_FOR_REMOVE);
    const query = new URLSearchParams({ engram_id: values.workspace });
    printMembers(await operatorClient(config, values.url).call<OperatorMembersBody>('GET', `/api/v1/admin/members?${query.toString()}`));
    return;
  }
  try {
    await migrate(db.db);
    if (action === 'list') {
      printMembers(await listMembersForOperator(db.db, values.workspace));
      return;
    }
    const workspace = await findWorkspaceByEngramId(db.db, values.workspace);
    if (!workspace) throw new Error(`No workspace ${values.workspace} on this database.`);
    const tenant = forWorkspace(db.db, workspace.id);

    const exists = UUID.test(memberId!) ? await memberRow(tenant, memberId!) : undefined;
    if (!exists) throw new Error(`No member ${memberId} in ${values.workspace}. List them with: engram member list --workspace ${values.workspace}`);
    const started = performance.now();
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
