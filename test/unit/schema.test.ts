import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { schema } from '@engram/db';
import { getTableColumns, getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const tables: PgTable[] = (Object.values(schema) as unknown[]).filter((value): value is PgTable => is(value, PgTable));

describe('schema', () => {
  it('has every table of SPEC §4, the rate-limit counters, the detector key index, the OAuth tables and the idempotency keys', () => {
    expect(tables.map((t) => getTableName(t)).sort()).toEqual(
      [
        'agents',
        'audit_log',
        'conflict_facts',
        'conflicts',
        'dashboard_sessions',
        'detection_feedback',
        'detection_jobs',
        'detection_runs',
        'fact_keys',
        'fact_verifications',
        'idempotency_keys',
        'facts',
        'invites',
        'members',
        'oauth_clients',
        'oauth_codes',
        'rate_limit_counters',
        'scope_permissions',
        'tokens',
        'workspaces',
      ].sort(),
    );
  });

  it('scopes every table by workspace_id, except the self-registered OAuth clients (which belong to no workspace)', () => {
    for (const table of tables) {
      const columns = Object.values(getTableColumns(table)).map((c) => c.name);
      const name = getTableName(table);
      if (name === 'oauth_clients') continue;
      expect(columns, name).toContain(name === 'workspaces' ? 'id' : 'workspace_id');
    }
  });

  it('matches the checked-in migrations (drizzle-kit finds nothing to generate)', () => {
    // drizzle-kit resolves --out relative to the working directory, so the scratch copy lives here.
    const scratch = path.join('test-results', `drizzle-check-${randomBytes(4).toString('hex')}`);
    fs.mkdirSync(path.join(root, 'test-results'), { recursive: true });
    fs.cpSync(path.join(root, 'drizzle'), path.join(root, scratch), { recursive: true });
    try {
      const before = fs.readdirSync(path.join(root, scratch)).sort();
      const output = execFileSync(
        process.execPath,
        [
          path.join(root, 'node_modules/drizzle-kit/bin.cjs'),
          'generate',
          '--dialect',
          'postgresql',
          '--schema',
          './packages/db/src/schema.ts',
          '--out',
          scratch,
        ],
        { cwd: root, encoding: 'utf8' },
      );
      expect(output).toContain('No schema changes');
      expect(fs.readdirSync(path.join(root, scratch)).sort()).toEqual(before);
    } finally {
      fs.rmSync(path.join(root, scratch), { recursive: true, force: true });
    }
  });
});
