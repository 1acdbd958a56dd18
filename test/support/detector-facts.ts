/** Facts as the detector reads them, built from text for the pure detection tests. */
import { randomUUID } from 'node:crypto';
import { readFact, matchKeysOf } from '@engram/core';
import type { DetectorFact } from '@engram/db';

/** The instant the detection tests' ages are counted from. */
export const NOW = Date.parse('2026-11-01T12:00:00Z');

/** A fact committed `hoursAgo` before NOW, its entities and match keys extracted as at commit. */
export function detectorFact(
  content: string,
  options: { scope?: string; agent?: string; hoursAgo: number; id?: string } & Partial<DetectorFact>,
): DetectorFact {
  const scope = options.scope ?? 'svc';
  const entities = readFact(content);
  const id = options.id ?? randomUUID();
  return {
    id,
    lineage_id: options.lineage_id ?? id,
    content,
    scope,
    agent_id: options.agent ?? `agent-${id.slice(0, 6)}`,
    entities,
    match_keys: matchKeysOf(entities, scope),
    committed_at: new Date(NOW - options.hoursAgo * 3_600_000),
    valid_until: options.valid_until ?? null,
    retired_by: options.retired_by ?? null,
    retired_for_fact_id: options.retired_for_fact_id ?? null,
    durability: 'durable',
  };
}
