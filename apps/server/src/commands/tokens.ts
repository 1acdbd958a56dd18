/**
 * `engram token create|revoke`: operator tools with database access, for when no owner token is at
 * hand (a lost owner token, automation). Members manage their own tokens over the API. While a
 * running `engram start` holds the embedded database, `create` asks it (the admin API).
 */
import { parseArgs } from 'node:util';
import type { Config } from '@engram/config';
import { issueTokenForOperator, type OperatorTokenBody, type OperatorTokenInput } from '@engram/core';
import { findWorkspaceByEngramId, forWorkspace, markTokenRevoked, migrate } from '@engram/db';
import { openUnlessHeld, operatorClient } from './running-server.ts';

const USAGE =
  'Usage: engram token create --workspace ENG-XXXX-XXXX [--member MEMBER_ID] [--label TEXT] [--url URL]\n       engram token revoke TOKEN_ID --workspace ENG-XXXX-XXXX';

function printToken(issued: OperatorTokenBody): void {
  process.stdout.write(`Token ${issued.token_id} for ${issued.member.role} ${issued.member.display_name ?? issued.member.id} (shown only now):\n${issued.token}\n`);
}

export async function tokenCommand(config: Config, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { workspace: { type: 'string' }, member: { type: 'string' }, label: { type: 'string' }, url: { type: 'string' } },
  });
  if (!values.workspace || (action !== 'create' && action !== 'revoke')) throw new Error(USAGE);
  const input: OperatorTokenInput = {
    engram_id: values.workspace,
    ...(values.member ? { member_id: values.member } : {}),
    ...(values.label ? { label: values.label } : {}),
  };
  const db = await openUnlessHeld(config);
  if (!db) {
    if (action === 'revoke') {
      throw new Error('The embedded database is open in a running engram start: revoke the token with DELETE /api/v1/tokens/TOKEN_ID as an owner, or stop the server and run this again.');
    }
    printToken(await operatorClient(config, values.url).call<OperatorTokenBody>('POST', '/api/v1/admin/tokens', input));
    return;
  }
  try {
    await migrate(db.db);
    if (action === 'create') {
      printToken(await issueTokenForOperator(db.db, input));
      return;
    }
    const workspace = await findWorkspaceByEngramId(db.db, values.workspace);
    if (!workspace) throw new Error(`No workspace ${values.workspace} on this database.`);
    const tokenId = positionals[0];
    if (!tokenId) throw new Error('Usage: engram token revoke TOKEN_ID --workspace ENG-XXXX-XXXX');
    const revoked = await markTokenRevoked(forWorkspace(db.db, workspace.id), tokenId);
    process.stdout.write(revoked ? `Revoked token ${tokenId}.\n` : `No active token ${tokenId} in ${values.workspace}.\n`);
  } finally {
    await db.close();
  }
}
