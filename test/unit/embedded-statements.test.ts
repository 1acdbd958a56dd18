import { describe, expect, it } from 'vitest';
import { isSchemaWork, isWrite } from '../../packages/db/src/embedded/statements.ts';

describe('embedded database: what a statement is', () => {
  it.each([
    'insert into facts (id) values ($1)',
    'UPDATE facts SET content = $1',
    '  delete from "facts" where id = $1',
    '-- a comment\ninsert into t values (1)',
    '/* lead */ (update t set a = 1)',
    'with moved as (delete from a returning *) select * from moved',
    'create index if not exists i on t (a)',
    'alter table t add column b int',
    'drop table t',
    'truncate t',
    'vacuum t',
    'select 1; insert into t values (1)',
    'merge into t using s on t.id = s.id when matched then do nothing',
  ])('%s writes', (sql) => {
    expect(isWrite(sql)).toBe(true);
  });

  it.each([
    'select * from facts where id = $1',
    'SELECT count(*) FROM facts',
    'with recent as (select * from facts) select * from recent',
    "select set_config('role', $1, true), set_config($2, $3, true)",
    'savepoint sp1',
    'release savepoint sp1',
    'rollback to savepoint sp1',
    'set local statement_timeout = 0',
    'select pg_advisory_xact_lock($1)',
    "select 'update; the docs' as note",
    'with c as (select 1 as n) -- the earlier side of an update\nselect * from c',
    "with c as (select kind from conflicts where kind = 'probable update' /* not a delete */) select * from c",
    'show server_version',
  ])('%s only reads', (sql) => {
    expect(isWrite(sql)).toBe(false);
  });

  it('tells schema work (allowed to take long) from ordinary statements', () => {
    expect(isSchemaWork('create index concurrently i on facts using hnsw (embedding halfvec_cosine_ops)')).toBe(true);
    expect(isSchemaWork('ALTER TABLE facts ADD COLUMN x int')).toBe(true);
    expect(isSchemaWork('create schema if not exists "drizzle"')).toBe(true);
    expect(isSchemaWork('insert into facts (id) values ($1)')).toBe(false);
    expect(isSchemaWork('select * from facts')).toBe(false);
  });
});
