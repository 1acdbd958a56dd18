import type { Database } from '@engram/db';
import { sql } from 'drizzle-orm';

/**
 * `count` open conflicts of two facts each, written in bulk into a workspace (as the database's
 * owner), about facts no test query finds: no embedding, words of their own, a scope of their own.
 * Enough links that a scan of `conflict_facts` spans many pages, so that only a plan that looks
 * the links up (not a small table read whole) reads a handful of them.
 */
export async function seedOpenConflicts(db: Database, workspaceId: string, count: number): Promise<void> {
  await db.execute(sql`with fact as (
      insert into facts (workspace_id, lineage_id, content, content_hash, scope, confidence, agent_id)
      select ${workspaceId}, gen_random_uuid(), 'Deployment window ' || g || ' opens on Thursday', md5('window ' || g), 'elsewhere', 1, 'agent-elsewhere'
      from generate_series(0, ${2 * count - 1}) g
      returning id, content
    ),
    conflict as (
      insert into conflicts (workspace_id, kind, question, detected_by, severity, fact_set_key)
      select ${workspaceId}, 'value_mismatch', 'Which deployment window?', 'tier2_numeric', 'high', 'seeded-' || g
      from generate_series(0, ${count - 1}) g
      returning id, fact_set_key
    )
    insert into conflict_facts (workspace_id, conflict_id, fact_id)
    select ${workspaceId}, conflict.id, fact.id from conflict
    join fact on split_part(fact.content, ' ', 3)::int / 2 = substring(conflict.fact_set_key from 8)::int`);
}
