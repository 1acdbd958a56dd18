import {
  authenticateToken,
  EngramError,
  getStatus,
  hashToken,
  openInviteKey,
  provisionWorkspace,
} from '@engram/core';
import { facts, forWorkspace, invites, members, tokens } from '@engram/db';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { databaseSuite, testDatabases } from '../support/databases.ts';

describe.each(testDatabases())('workspaces and tokens on $name', (engine) => {
  const suite = databaseSuite(engine);

  it('provisions a workspace with an owner, a hashed token and a sealed invite', async () => {
    const created = await provisionWorkspace(suite.handle.db, TEST_SECRET, {
      name: 'Payments team',
      owner_display_name: 'Ada',
      anonymous_mode: true,
      invite: { role: 'reader', max_uses: 3, expires_in_days: 2 },
    });
    expect(created.engramId).toMatch(/^ENG-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    const tenant = forWorkspace(suite.handle.db, created.workspaceId);

    const [owner] = await tenant.select(members);
    expect(owner).toMatchObject({ id: created.ownerMemberId, role: 'owner', displayName: 'Ada' });

    const stored = await tenant.select(tokens);
    expect(stored).toHaveLength(1);
    expect(stored[0]?.tokenHash).toBe(hashToken(created.ownerToken));
    expect(JSON.stringify(stored)).not.toContain(created.ownerToken);

    const [invite] = await tenant.select(invites);
    expect(invite).toMatchObject({ id: created.inviteId, role: 'reader', usesRemaining: 3, revokedAt: null });
    const opened = await openInviteKey(TEST_SECRET, created.inviteKey);
    expect(opened).toMatchObject({ workspace_id: created.workspaceId, invite_id: created.inviteId, role: 'reader' });
    expect(opened.exp * 1000).toBe(invite?.expiresAt.getTime());
    expect(invite!.expiresAt.getTime() - Date.now()).toBeGreaterThan(2 * 86_400_000 - 60_000);
  });

  it('authenticates the owner token and records its use', async () => {
    const created = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'Auth' });
    const principal = await authenticateToken(suite.handle.db, created.ownerToken);
    expect(principal).toMatchObject({
      kind: 'member',
      workspaceId: created.workspaceId,
      engramId: created.engramId,
      memberId: created.ownerMemberId,
      role: 'owner',
      settings: { anonymous_mode: false, anon_agents: false },
    });
    const [token] = await forWorkspace(suite.handle.db, created.workspaceId).select(tokens);
    expect(token?.lastUsedAt).toBeInstanceOf(Date);
  });

  it('rejects unknown, malformed and revoked tokens alike', async () => {
    const created = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const codeOf = (token: string) =>
      authenticateToken(suite.handle.db, token).then(
        () => 'accepted',
        (e: unknown) => (e instanceof EngramError ? e.code : 'crashed'),
      );
    expect(await codeOf('egm_' + 'A'.repeat(43))).toBe('invalid_token');
    expect(await codeOf('not-a-token')).toBe('invalid_token');
    await forWorkspace(suite.handle.db, created.workspaceId).update(tokens, { revokedAt: new Date() });
    expect(await codeOf(created.ownerToken)).toBe('invalid_token');
  });

  it('reports status from the workspace as it is', async () => {
    const created = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'Status' });
    const principal = await authenticateToken(suite.handle.db, created.ownerToken);
    const tenant = forWorkspace(suite.handle.db, created.workspaceId);
    const base = { lineageId: crypto.randomUUID(), scope: 'auth', confidence: 1, agentId: 'a' };
    await tenant.insert(facts, [
      { ...base, content: 'current one', contentHash: 'h1' },
      { ...base, content: 'current two', contentHash: 'h2' },
      { ...base, content: 'superseded', contentHash: 'h3', validFrom: new Date(Date.now() - 60_000), validUntil: new Date() },
    ]);
    const off = await getStatus(suite.handle.db, principal, { llm: { enabled: false, model: 'gpt-4o-mini' }, tools: ['engram_status'] });
    expect(off).toMatchObject({
      status: 'ready',
      engram_id: created.engramId,
      workspace: { id: created.workspaceId, name: 'Status' },
      member: { id: created.ownerMemberId, role: 'owner' },
      memory: { current_facts: 2, open_conflicts: 0 },
      detective: { narrative: 'off', model: null },
    });
    expect(off.detective.note).toMatch(/OPENAI_API_KEY/);
    expect(off.next_prompt).toContain(created.engramId);
    expect(off.next_prompt).not.toMatch(/engram_query/);

    const on = await getStatus(suite.handle.db, principal, {
      llm: { enabled: true, model: 'gpt-4o-mini' },
      tools: ['engram_status', 'engram_query', 'engram_commit'],
    });
    expect(on.detective).toMatchObject({ narrative: 'on', model: 'gpt-4o-mini' });
    expect(on.next_prompt).toMatch(/engram_query/);

    // Another workspace's facts are not counted.
    const other = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const otherPrincipal = await authenticateToken(suite.handle.db, other.ownerToken);
    const otherStatus = await getStatus(suite.handle.db, otherPrincipal, { llm: { enabled: false, model: 'x' }, tools: [] });
    expect(otherStatus.memory?.current_facts).toBe(0);
    await tenant.delete(facts, eq(facts.scope, 'auth'));
  });
});
