/**
 * Migration 0019 on data written before it, on each engine: live members sharing a name (in any
 * case, with stray spaces) are renamed deterministically, never refused, and the unique index holds
 * afterwards; removed members and other workspaces are left alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, migrate, MIGRATIONS_FOLDER, queryRows, type DbHandle } from '@engram/db';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, dropScratchDatabase } from '../support/postgres-admin.ts';

const NAMES_MIGRATION = '0019_member-names';

/** The migrations folder as it was before 0019: its journal cut there, its SQL files copied. */
function foldersBefore(tag: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-migrations-'));
  fs.cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalFile = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: { idx: number; tag: string }[] };
  const cut = journal.entries.findIndex((e) => e.tag === tag);
  expect(cut, `${tag} in the journal`).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, cut);
  fs.writeFileSync(journalFile, JSON.stringify(journal));
  return dir;
}

const engines: { name: string; open(): Promise<DbHandle & { cleanup(): Promise<void> }> }[] = [
  {
    name: 'pglite',
    open: async () => Object.assign(await createDb({ kind: 'pglite', dataDir: 'memory://' }), { cleanup: async () => {} }),
  },
  ...(inject('postgresAdminUrl')
    ? [
        {
          name: 'postgres',
          open: async () => {
            const adminUrl = inject('postgresAdminUrl')!;
            const url = await createScratchDatabase(adminUrl, 'engram_test_names');
            const handle = await createDb({ kind: 'postgres', url }, { maxConnections: 2 });
            return Object.assign(handle, { cleanup: () => dropScratchDatabase(adminUrl, url) });
          },
        },
      ]
    : []),
];

describe.each(engines)('migration 0019 (member names) on $name', (engine) => {
  let handle: DbHandle & { cleanup(): Promise<void> };
  let before: string;
  beforeAll(async () => {
    handle = await engine.open();
    before = foldersBefore(NAMES_MIGRATION);
  });
  afterAll(async () => {
    await handle?.close();
    await handle?.cleanup();
    if (before) fs.rmSync(before, { recursive: true, force: true });
  });

  it('renames duplicate names deterministically, then refuses new duplicates', async () => {
    await migrate(handle.db, before);
    const ws = (engram: string) => sql`(select id from workspaces where engram_id = ${engram})`;
    await handle.db.execute(sql`insert into workspaces (engram_id, name) values ('ENG-DUPE-AAAA', 'Dupes'), ('ENG-DUPE-BBBB', 'Other')`);
    // Created one second apart, in this order; the earliest holder of a name keeps it.
    const people: [string, string, string | null, boolean][] = [
      ['ENG-DUPE-AAAA', 'Alice (2)', null, false],
      ['ENG-DUPE-AAAA', 'Alice', null, false],
      ['ENG-DUPE-AAAA', 'alice ', null, false],
      ['ENG-DUPE-AAAA', 'ALICE', null, false],
      ['ENG-DUPE-AAAA', 'Bob', null, true], // removed: keeps its name, and does not count
      ['ENG-DUPE-AAAA', 'Bob', null, false],
      ['ENG-DUPE-AAAA', '   ', null, false], // blank: becomes no name
      ['ENG-DUPE-AAAA', 'y'.repeat(100), null, false],
      ['ENG-DUPE-AAAA', 'Y'.repeat(100), null, false],
      ['ENG-DUPE-BBBB', 'Alice', null, false], // another workspace: its own names
    ];
    for (const [i, [engram, name, , removed]] of people.entries()) {
      await handle.db.execute(sql`insert into members (workspace_id, role, display_name, created_at, removed_at)
        values (${ws(engram)}, 'member', ${name}, timestamptz '2026-01-01T00:00:00Z' + make_interval(secs => ${i}),
                ${removed ? sql`timestamptz '2026-02-01T00:00:00Z'` : sql`null`})`);
    }

    await migrate(handle.db);

    const after = await queryRows<{ engram_id: string; display_name: string | null; removed: boolean }>(handle.db, sql`select w.engram_id, m.display_name, m.removed_at is not null as removed
        from members m join workspaces w on w.id = m.workspace_id order by m.created_at`);
    expect(after.map((m) => [m.engram_id, m.display_name, m.removed])).toEqual([
      ['ENG-DUPE-AAAA', 'Alice (2)', false],
      ['ENG-DUPE-AAAA', 'Alice', false],
      ['ENG-DUPE-AAAA', 'alice (3)', false], // " (2)" was taken
      ['ENG-DUPE-AAAA', 'ALICE (4)', false],
      ['ENG-DUPE-AAAA', 'Bob', true],
      ['ENG-DUPE-AAAA', 'Bob', false],
      ['ENG-DUPE-AAAA', null, false],
      ['ENG-DUPE-AAAA', 'y'.repeat(100), false],
      ['ENG-DUPE-AAAA', `${'Y'.repeat(96)} (2)`, false], // within the 100 characters a name may have
      ['ENG-DUPE-BBBB', 'Alice', false],
    ]);

    // The index holds from now on: a live duplicate in any case is refused by the database.
    await expect(handle.db.execute(sql`insert into members (workspace_id, role, display_name) values (${ws('ENG-DUPE-AAAA')}, 'member', ' bob')`)).rejects.toThrow();
    await handle.db.execute(sql`insert into members (workspace_id, role, display_name) values (${ws('ENG-DUPE-BBBB')}, 'member', 'Bob')`);
    // Invites gained their label.
    await handle.db.execute(sql`insert into invites (workspace_id, role, label, uses_remaining, expires_at) values (${ws('ENG-DUPE-AAAA')}, 'member', 'backend team', 1, now() + interval '1 day')`);
    expect(await queryRows<{ label: string }>(handle.db, sql`select label from invites`)).toEqual([{ label: 'backend team' }]);
  });
});
