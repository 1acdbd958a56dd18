import { forWorkspace, journalPage, type Database, type FactCitation, type FactRow } from '@engram/db';
import { canRead } from '../access.ts';
import type { MemberPrincipal } from '../auth.ts';

/** One line of the journal (`GET /api/v1/facts/since`, `engram export`). */
export interface JournalEntry {
  id: string;
  lineage_id: string;
  content: string;
  scope: string;
  agent_id: string;
  committed_at: string;
  valid_from: string;
  valid_until: string | null;
  memory_op: string;
  fact_type: string;
  confidence: number;
  provenance: string | null;
  durability: string;
  /** Present when the fact cites code (an import takes them back). */
  citations?: FactCitation[];
}

export function journalEntry(row: FactRow): JournalEntry {
  return {
    id: row.id,
    lineage_id: row.lineage_id,
    content: row.content,
    scope: row.scope,
    agent_id: row.agent_id,
    committed_at: new Date(row.committed_at).toISOString(),
    valid_from: new Date(row.valid_from).toISOString(),
    valid_until: row.valid_until ? new Date(row.valid_until).toISOString() : null,
    memory_op: row.memory_op,
    fact_type: row.fact_type,
    confidence: Number(row.confidence),
    provenance: row.provenance,
    durability: row.durability,
    ...(row.citations?.length ? { citations: row.citations } : {}),
  };
}

/**
 * Every version committed after `after` (exclusive), oldest first, read in pages so a large
 * workspace streams in constant memory.
 */
export async function* readJournal(
  db: Database,
  principal: Pick<MemberPrincipal, 'workspaceId' | 'role' | 'grants'>,
  options: { after?: Date; scope?: string; pageSize?: number } = {},
): AsyncGenerator<JournalEntry> {
  const tenant = forWorkspace(db, principal.workspaceId);
  const pageSize = options.pageSize ?? 500;
  let after: Date | null = options.after ?? null;
  let afterId: string | null = null;
  for (;;) {
    const page = await journalPage(tenant, { after, afterId, scope: options.scope, limit: pageSize });
    for (const row of page) if (canRead(principal, row.scope)) yield journalEntry(row);
    if (page.length < pageSize) return;
    const last = page[page.length - 1]!;
    after = new Date(last.committed_at);
    afterId = last.id;
  }
}
