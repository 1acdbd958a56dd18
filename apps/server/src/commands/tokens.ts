/**
 * `engram token create|revoke`: operator tools with database access, for when no owner token is at
 * hand (a lost owner token, automation). Members manage their own tokens over the API.
 */
import { parseArgs } from 'node:util';
import type { Config } from '@engram/config';
import { issueToken } from '@engram/core';
import { createDb, findWorkspaceByEngramId, forWorkspace, liveMemberRow, markTokenRevoked, migrate, oldestLiveOwner } from '@engram/db';

export async function tokenCommand(config: Config, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { workspace: { type: 'string' }, member: { type: 'string' }, label: { type: 'string' } },
  });
  if (!values.workspace || (action !== 'create' && action !== 'revoke')) {
    throw new Error(
      'Usage: engram token create --workspace ENG-XXXX-XXXX [--member MEMBER_ID] [--label TEXT]\n       engram token revoke TOKEN_ID --workspace ENG-XXXX-XXXX',
    );
  }
  const db = await createDb(config.database, { limits: config.databaseLimits });
  try {
    await migrate(db.db);
    const workspace = await findWorkspaceByEngramId(db.db, values.workspace);
    if (!workspace) throw new Error(`No workspace ${values.workspace} on this database.`);
    const tenant = forWorkspace(db.db, workspace.id);
    if (action === 'create') {
      const member = values.member ? await liveMemberRow(tenant, values.member) : await oldestLiveOwner(tenant);
      if (!member) throw new Error(values.member ? `No member ${values.member} in ${values.workspace}.` : `${values.workspace} has no owner.`);
      const { token, tokenId } = await issueToken(tenant, member.id, values.label ?? 'created with engram token create');
      process.stdout.write(`Token ${tokenId} for ${member.role} ${member.displayName ?? member.id} (shown only now):\n${token}\n`);
      return;
    }
    const tokenId = positionals[0];
    if (!tokenId) throw new Error('Usage: engram token revoke TOKEN_ID --workspace ENG-XXXX-XXXX');
    const revoked = await markTokenRevoked(tenant, tokenId);
    process.stdout.write(revoked ? `Revoked token ${tokenId}.\n` : `No active token ${tokenId} in ${values.workspace}.\n`);
  } finally {
    await db.close();
  }
}
