import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authenticateToken } from '@engram/core';
import { countWorkspaces, createDb, migrate, type DbHandle } from '@engram/db';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureLocalWorkspace, resolveSecret } from '../../apps/server/src/local-state.ts';
import { testConfig } from '../support/app.ts';

describe('embedded mode state', () => {
  let dataDir: string;
  let handle: DbHandle;
  beforeEach(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-local-'));
    handle = await createDb({ kind: 'pglite', dataDir: 'memory://' });
    await migrate(handle.db);
  });
  afterEach(async () => {
    await handle.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('generates a secret once, private to the user', () => {
    const config = testConfig({ secret: undefined, dataDir, database: { kind: 'pglite', dataDir: path.join(dataDir, 'pgdata') } });
    const secret = resolveSecret(config);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(resolveSecret(config)).toBe(secret);
    expect(fs.statSync(path.join(dataDir, 'secret')).mode & 0o777).toBe(0o600);
    expect(resolveSecret({ ...config, secret: 'x'.repeat(40) })).toBe('x'.repeat(40));
  });

  it('creates the default workspace on first run and reuses its token after', async () => {
    const first = await ensureLocalWorkspace(handle.db, 'local-secret-0123456789-abcdefghijklmnop', dataDir);
    expect(first.created).toBe(true);
    // The invite the new workspace was created with is handed back once (for the banner), never stored.
    expect(first.invite).toMatchObject({ key: expect.stringMatching(/^ek_/), uses: 10 });
    expect(fs.statSync(path.join(dataDir, 'local-workspace.json')).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(path.join(dataDir, 'local-workspace.json'), 'utf8')).not.toContain(first.invite!.key);
    const second = await ensureLocalWorkspace(handle.db, 'local-secret-0123456789-abcdefghijklmnop', dataDir);
    // The invite and how the owner was named are told once, by the start that created them.
    expect(first.owner).toMatchObject({ name: expect.any(String), memberId: expect.any(String) });
    const { invite: _invite, owner: _owner, ...recorded } = first;
    expect(second).toEqual({ ...recorded, created: false });
    expect(await countWorkspaces(handle.db)).toBe(1);
    expect((await authenticateToken(handle.db, second.owner_token)).engramId).toBe(first.engram_id);
  });

  it('issues a new owner token when the token file was lost, without a second workspace', async () => {
    const first = await ensureLocalWorkspace(handle.db, 'local-secret-0123456789-abcdefghijklmnop', dataDir);
    fs.rmSync(path.join(dataDir, 'local-workspace.json'));
    const again = await ensureLocalWorkspace(handle.db, 'local-secret-0123456789-abcdefghijklmnop', dataDir);
    expect(again.created).toBe(false);
    expect(again.workspace_id).toBe(first.workspace_id);
    expect(again.owner_token).not.toBe(first.owner_token);
    expect(await countWorkspaces(handle.db)).toBe(1);
  });
});

describe('embedded database lock', () => {
  it('refuses a second process on the same data directory with a clear message', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-lock-'));
    const dataDir = path.join(dir, 'pgdata');
    // A lock held by a live process (this test's parent) that is not us.
    fs.writeFileSync(`${dataDir}.lock`, String(process.ppid));
    await expect(createDb({ kind: 'pglite', dataDir })).rejects.toThrow(/in use by another Engram process/);
    // A stale lock (dead pid) is taken over.
    fs.writeFileSync(`${dataDir}.lock`, '999999');
    const handle = await createDb({ kind: 'pglite', dataDir });
    expect(fs.readFileSync(`${dataDir}.lock`, 'utf8')).toBe(String(process.pid));
    await handle.close();
    expect(fs.existsSync(`${dataDir}.lock`)).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
