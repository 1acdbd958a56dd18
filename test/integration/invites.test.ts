/** Invite keys and joining over REST, on each engine: lifecycle, races, forgeries. */
import { hkdfSync } from 'node:crypto';
import { provisionWorkspace, sealInviteKey } from '@engram/core';
import { forWorkspace, invites, members } from '@engram/db';
import { eq } from 'drizzle-orm';
import { EncryptJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { appSuite, TEST_ADMIN_TOKEN, TEST_SECRET } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const HOST = 'localhost:8080';

describe.each(testDatabases())('invites on $name', (engine) => {
  const suite = appSuite(engine);

  async function workspace() {
    const created = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'Invites' });
    const owner = { host: HOST, authorization: `Bearer ${created.ownerToken}` };
    const createInvite = async (body: Record<string, unknown> = {}, rotate = false) => {
      const res = await suite.app.inject({ method: 'POST', url: `/api/v1/invites${rotate ? '/rotate' : ''}`, headers: owner, payload: body });
      expect(res.statusCode).toBe(201);
      return res.json<{ invite_id: string; invite_key: string; role: string; uses_remaining: number; revoked_invites: number; join_instructions: string }>();
    };
    return { ...created, owner, createInvite, tenant: forWorkspace(suite.handle.db, created.workspaceId) };
  }

  const join = (inviteKey: string, displayName?: string) =>
    suite.app.inject({ method: 'POST', url: '/api/v1/join', headers: { host: HOST }, payload: { invite_key: inviteKey, display_name: displayName } });

  it('creates, lists, redeems and revokes invites', async () => {
    const ws = await workspace();
    const invite = await ws.createInvite({ role: 'reader', max_uses: 2, expires_in_days: 3 });
    expect(invite).toMatchObject({ role: 'reader', uses_remaining: 2 });
    expect(invite.invite_key).toMatch(/^ek_/);
    expect(invite.join_instructions).toContain(invite.invite_key);

    const joined = await join(invite.invite_key, 'Linus');
    expect(joined.statusCode).toBe(201);
    const body = joined.json<{ token: string; role: string; member_id: string; workspace_id: string; client_setup: string }>();
    expect(body).toMatchObject({ role: 'reader', workspace_id: ws.workspaceId });
    expect(body.client_setup).toContain(`Bearer ${body.token}`);
    const [member] = await ws.tenant.select(members, eq(members.id, body.member_id));
    expect(member).toMatchObject({ role: 'reader', displayName: 'Linus' });

    // The new token works; readers cannot import.
    const asReader = await suite.app.inject({ method: 'POST', url: '/api/v1/facts/import', headers: { host: HOST, authorization: `Bearer ${body.token}` }, payload: { facts: [{ content: 'x', scope: 'a', agent_id: 'a', committed_at: new Date().toISOString() }] } });
    expect(asReader.statusCode).toBe(403);

    const listed = await suite.app.inject({ url: '/api/v1/invites', headers: ws.owner });
    const rows = listed.json<{ invites: { invite_id: string; uses_remaining: number; status: string }[] }>().invites;
    expect(rows.find((r) => r.invite_id === invite.invite_id)).toMatchObject({ uses_remaining: 1, status: 'active' });
    expect(JSON.stringify(rows)).not.toContain(invite.invite_key);

    const revoked = await suite.app.inject({ method: 'DELETE', url: `/api/v1/invites/${invite.invite_id}`, headers: ws.owner });
    expect(revoked.json()).toMatchObject({ status: 'revoked' });
    const again = await suite.app.inject({ method: 'DELETE', url: `/api/v1/invites/${invite.invite_id}`, headers: ws.owner });
    expect(again.json<{ revoked_at: string }>().revoked_at).toBe(revoked.json<{ revoked_at: string }>().revoked_at);
    const afterRevoke = await join(invite.invite_key);
    expect(afterRevoke.statusCode).toBe(410);
    expect(afterRevoke.json().error).toMatchObject({ code: 'invite_revoked', message: expect.stringMatching(/revoked/) });
  });

  it('lets exactly one of many concurrent redemptions take a one-use key', async () => {
    const ws = await workspace();
    const invite = await ws.createInvite({ max_uses: 1 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => join(invite.invite_key, `racer ${i}`)));
    const ok = results.filter((r) => r.statusCode === 201);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode !== 201)) {
      expect(r.statusCode).toBe(410);
      expect(r.json().error.code).toBe('invite_used_up');
    }
    const [row] = await ws.tenant.select(invites, eq(invites.id, invite.invite_id));
    expect(row?.usesRemaining).toBe(0);
    expect((await ws.tenant.select(members)).filter((m) => m.role === 'member')).toHaveLength(1);
  });

  it('rotating revokes every earlier invite', async () => {
    const ws = await workspace();
    const first = await ws.createInvite();
    const rotated = await ws.createInvite({}, true);
    expect(rotated.revoked_invites).toBeGreaterThanOrEqual(2); // the provisioning invite and `first`
    expect((await join(first.invite_key)).json().error.code).toBe('invite_revoked');
    expect((await join(ws.inviteKey)).json().error.code).toBe('invite_revoked');
    expect((await join(rotated.invite_key)).statusCode).toBe(201);
  });

  it('rejects expired, used-up, tampered, foreign and orphaned keys, each with its own message', async () => {
    const ws = await workspace();
    const expired = await ws.createInvite();
    await ws.tenant.update(invites, { expiresAt: new Date(Date.now() - 1000) }, eq(invites.id, expired.invite_id));
    const expiredRes = await join(expired.invite_key);
    expect(expiredRes.statusCode).toBe(410);
    expect(expiredRes.json().error).toMatchObject({ code: 'invite_expired', message: expect.stringMatching(/expired/) });

    const usedUp = await ws.createInvite({ max_uses: 1 });
    await join(usedUp.invite_key);
    expect((await join(usedUp.invite_key)).json().error).toMatchObject({ code: 'invite_used_up', message: expect.stringMatching(/used as many times/) });

    const valid = await ws.createInvite();
    // A payload edit: flip one bit of the ciphertext.
    const sealed = Buffer.from(valid.invite_key.slice(3), 'base64url');
    sealed[20] = sealed[20]! ^ 0x10;
    const edited = `ek_${sealed.toString('base64url')}`;
    const editedRes = await join(edited);
    expect(editedRes.statusCode).toBe(400);
    expect(editedRes.json().error).toMatchObject({ code: 'invite_invalid', message: expect.stringMatching(/altered|another Engram server/) });

    // The same claims sealed with another server's secret.
    const foreign = await sealInviteKey('some-other-server-secret-0123456789abcdef', {
      workspace_id: ws.workspaceId,
      invite_id: valid.invite_id,
      role: 'member',
      exp: Math.floor(Date.now() / 1000) + 3600,
    });
    expect((await join(foreign)).json().error.code).toBe('invite_invalid');

    // Sealed with the right secret but naming an invite that does not exist (or a promoted role).
    const key = new Uint8Array(hkdfSync('sha256', TEST_SECRET, 'engram', 'engram invite key v1', 32));
    const forged = await new EncryptJWT({ workspace_id: ws.workspaceId, invite_id: valid.invite_id, role: 'owner' })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
      .setExpirationTime('1h')
      .encrypt(key);
    expect((await join(`ek_${forged}`)).json().error.code).toBe('invite_invalid');

    expect((await join('not-a-key')).json().error).toMatchObject({ code: 'invite_invalid', message: expect.stringMatching(/start with `ek_`/) });

    // The workspace is deleted: its keys stop working.
    const deleted = await suite.app.inject({
      method: 'DELETE',
      url: `/api/v1/admin/workspaces/${ws.workspaceId}`,
      headers: { host: HOST, authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(deleted.json()).toEqual({ workspace_id: ws.workspaceId, deleted: true });
    const orphan = await join(valid.invite_key);
    expect(orphan.statusCode).toBe(410);
    expect(orphan.json().error).toMatchObject({ code: 'invite_workspace_deleted', message: expect.stringMatching(/deleted/) });
    expect((await suite.app.inject({ url: '/api/v1/workspace', headers: ws.owner })).statusCode).toBe(401);
  });

  it('only lets owners manage invites', async () => {
    const ws = await workspace();
    const joined = (await join(ws.inviteKey, 'M')).json<{ token: string }>();
    const asMember = { host: HOST, authorization: `Bearer ${joined.token}` };
    for (const res of [
      await suite.app.inject({ method: 'POST', url: '/api/v1/invites', headers: asMember, payload: {} }),
      await suite.app.inject({ url: '/api/v1/invites', headers: asMember }),
      await suite.app.inject({ method: 'POST', url: '/api/v1/invites/rotate', headers: asMember, payload: {} }),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().error.message).toMatch(/Only workspace owners/);
    }
  });

  it('validates invite options', async () => {
    const ws = await workspace();
    const res = await suite.app.inject({ method: 'POST', url: '/api/v1/invites', headers: ws.owner, payload: { role: 'owner', max_uses: 0 } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/role: must be "member" or "reader"/);
    expect(res.json().error.message).toMatch(/max_uses: must be at least 1/);
  });
});
