/**
 * Embedded mode's state in the data directory: the generated server secret and the default
 * workspace's owner token, so `npm start` works on a fresh clone and prints the same token after a
 * restart. Both files are written with mode 0600.
 */
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '@engram/config';
import { authenticateToken, DEFAULT_INVITE, EngramError, issueToken, provisionWorkspace } from '@engram/core';
import { countWorkspaces, findOldestWorkspace, forWorkspace, oldestLiveOwner, type Database } from '@engram/db';
import { LOCAL_WORKSPACE_FILE, readRecordedWorkspace, type RecordedWorkspace } from './local-server.ts';

const SECRET_FILE = 'secret';

function writePrivate(file: string, contents: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, contents, { mode: 0o600 });
}

/**
 * The server secret: `ENGRAM_SECRET`, or in embedded mode one generated once into the data
 * directory. (Configuration refuses Postgres without ENGRAM_SECRET, so this never invents a secret
 * for a shared deployment.)
 */
export function resolveSecret(config: Config): string {
  if (config.secret) return config.secret;
  if (config.database.kind !== 'pglite') {
    throw new Error('ENGRAM_SECRET is required with DATABASE_URL');
  }
  const file = path.join(config.dataDir, SECRET_FILE);
  if (fs.existsSync(file)) {
    const stored = fs.readFileSync(file, 'utf8').trim();
    if (stored.length >= 32) return stored;
  }
  const secret = randomBytes(48).toString('base64url');
  writePrivate(file, `${secret}\n`);
  return secret;
}

/**
 * Embedded mode's operator credential for the admin API, derived from the server secret: the
 * operator commands (`engram member list`, `token create`, `workspace create`) send it to the
 * running `engram start` that holds the embedded database, so they work without stopping it. Whoever
 * can read the secret can already open the data directory (and seal invite keys), so it grants
 * nothing new; nothing stores it, and ENGRAM_ADMIN_TOKEN stays the credential of a hosted
 * deployment.
 */
export function localOperatorToken(secret: string): string {
  return `ego_${createHmac('sha256', secret).update('engram local operator token').digest('base64url')}`;
}

/**
 * The embedded default workspace. When this start created it, also the invite key it was created
 * with (shown once, in the banner, so teammates can join; it is not stored in the data directory).
 */
export type LocalWorkspace = RecordedWorkspace & {
  created: boolean;
  invite?: { key: string; expiresAt: Date; uses: number };
  /** The owner this start created, and whether their name is the stand-in (no account name to take). */
  owner?: { memberId: string; name: string; defaulted: boolean };
};

/** Who the owner of a new embedded workspace is: `--owner-name`, else the account starting it. */
export function defaultOwnerName(): string | undefined {
  try {
    const name = os.userInfo().username.trim();
    return name && name !== 'root' ? name.slice(0, 100) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The embedded default workspace: the one recorded in the data directory if its token still works;
 * otherwise the first run creates one, and a data directory that lost its token file gets a new
 * owner token for its oldest workspace.
 */
export async function ensureLocalWorkspace(
  db: Database,
  secret: string,
  dataDir: string,
  options: { ownerName?: string } = {},
): Promise<LocalWorkspace> {
  const file = path.join(dataDir, LOCAL_WORKSPACE_FILE);
  const recorded = readRecordedWorkspace(file);
  if (recorded) {
    try {
      await authenticateToken(db, recorded.owner_token);
      return { ...recorded, created: false };
    } catch (error) {
      if (!(error instanceof EngramError)) throw error;
    }
  }

  let local: RecordedWorkspace;
  let invite: LocalWorkspace['invite'];
  let owner: LocalWorkspace['owner'];
  if ((await countWorkspaces(db)) === 0) {
    const ownerName = options.ownerName ?? defaultOwnerName();
    const provisioned = await provisionWorkspace(db, secret, { name: 'Local workspace', ...(ownerName ? { owner_display_name: ownerName } : {}) });
    local = { workspace_id: provisioned.workspaceId, engram_id: provisioned.engramId, owner_token: provisioned.ownerToken };
    invite = { key: provisioned.inviteKey, expiresAt: provisioned.inviteExpiresAt, uses: DEFAULT_INVITE.maxUses };
    owner = { memberId: provisioned.ownerMemberId, name: provisioned.ownerName, defaulted: !ownerName };
  } else {
    const workspace = await findOldestWorkspace(db);
    if (!workspace) throw new Error('no live workspace found');
    const tenant = forWorkspace(db, workspace.id);
    const owner = await oldestLiveOwner(tenant);
    if (!owner) throw new Error(`workspace ${workspace.engramId} has no owner`);
    const { token } = await issueToken(tenant, owner.id, 'local owner token');
    local = { workspace_id: workspace.id, engram_id: workspace.engramId, owner_token: token };
  }
  writePrivate(file, `${JSON.stringify(local, null, 2)}\n`);
  return { ...local, created: invite !== undefined, ...(invite ? { invite } : {}), ...(owner ? { owner } : {}) };
}
