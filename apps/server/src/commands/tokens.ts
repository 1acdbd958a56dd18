/**
 * `engram token create|revoke`: operator tools with database access, for when no owner token is at
 * hand (a lost owner token, automation). Members manage their own tokens over the API. While a
 * running `engram start` holds the embedded database, both ask it (the admin API).
 */
import { parseArgs } from 'node:util';
import type { Config } from '@engram/config';
import { issueTokenForOperator, revokeTokenForOperator, type OperatorTokenBody, type OperatorTokenInput } from '@engram/core';
import { migrate } from '@engram/db';
import { openUnlessHeld, operatorClient } from './running-server.ts';

const USAGE =
  'Usage: engram token create --workspace ENG-XXXX-XXXX [--member MEMBER_ID] [--label TEXT] [--url URL]\n       engram token revoke TOKEN_ID --workspace ENG-XXXX-XXXX [--url URL]';

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
  const tokenId = positionals[0];
  if (action === 'revoke' && !tokenId) throw new Error('Usage: engram token revoke TOKEN_ID --workspace ENG-XXXX-XXXX');
  const db = await openUnlessHeld(config);
  if (!db) {
    const server = operatorClient(config, values.url);
    if (action === 'create') printToken(await server.call<OperatorTokenBody>('POST', '/api/v1/admin/tokens', input));
    else {
      const query = new URLSearchParams({ engram_id: values.workspace }).toString();
      printRevoked(await server.call<{ revoked: boolean }>('DELETE', `/api/v1/admin/tokens/${encodeURIComponent(tokenId!)}?${query}`), tokenId!, values.workspace);
    }
    return;
  }
  try {
    await migrate(db.db);
    if (action === 'create') printToken(await issueTokenForOperator(db.db, input));
    else printRevoked(await revokeTokenForOperator(db.db, values.workspace, tokenId!), tokenId!, values.workspace);
  } finally {
    await db.close();
  }
}

function printRevoked({ revoked }: { revoked: boolean }, tokenId: string, engramId: string): void {
  process.stdout.write(revoked ? `Revoked token ${tokenId}.\n` : `No active token ${tokenId} in ${engramId}.\n`);
}
