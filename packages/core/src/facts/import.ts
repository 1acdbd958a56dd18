/**
 * `POST /api/v1/facts/import` (SPEC §8): facts with their original `committed_at`, `agent_id` and
 * `scope`, through the same pipeline as a commit. Idempotent: the same content at the same instant
 * is the same fact. All-or-nothing validation: one secret rejects the batch, naming its index.
 */
import { findByHashAt, findCurrentDuplicate, forWorkspace, nearestCurrentInScope } from '@engram/db';
import { scopeAccess } from '../access.ts';
import type { MemberPrincipal } from '../auth.ts';
import { EngramError, type FieldProblem, InvalidInputError } from '../errors.ts';
import {
  corroborationTarget,
  embedOrNull,
  entitySignature,
  resolveAgentId,
  resolveMemberId,
  storeNewFact,
  type FactServices,
} from './commit.ts';
import { readFact } from '../language/index.ts';
import { contentHash } from './normalize.ts';
import type { ImportInput, ImportOutput } from './schemas.ts';
import { findSecret } from './secrets.ts';

/** How far in the future an imported `committed_at` may be (clock skew between servers). */
const FUTURE_TOLERANCE_MS = 5 * 60_000;

export async function importFacts(
  services: FactServices,
  principal: MemberPrincipal,
  input: ImportInput,
  now = new Date(),
): Promise<ImportOutput> {
  const problems: FieldProblem[] = [];
  input.facts.forEach((f, i) => {
    for (const field of ['content', 'provenance'] as const) {
      const found = f[field] ? findSecret(f[field]) : null;
      if (found) problems.push({ field: `facts.${i}.${field}`, message: `appears to contain ${found.label} (pattern: ${found.name}); remove it` });
    }
    if (new Date(f.committed_at).getTime() > now.getTime() + FUTURE_TOLERANCE_MS) {
      problems.push({ field: `facts.${i}.committed_at`, message: 'is in the future' });
    }
    if (!scopeAccess(principal, f.scope, now).write) {
      problems.push({ field: `facts.${i}.scope`, message: `your scope permissions do not allow writing to "${f.scope}"` });
    }
  });
  if (problems.length > 0) throw new InvalidInputError(problems);

  const tenant = forWorkspace(services.db, principal.workspaceId);
  const embeddings = await embedOrNull(services, input.facts.map((f) => f.content));
  // The story is replayed in the order it happened, so later facts see earlier ones.
  const order = input.facts.map((_, i) => i).sort((a, b) => {
    const t = new Date(input.facts[a]!.committed_at).getTime() - new Date(input.facts[b]!.committed_at).getTime();
    return t !== 0 ? t : a - b;
  });

  const results: ImportOutput['facts'] = new Array<ImportOutput['facts'][number]>(input.facts.length);
  for (const i of order) {
    const f = input.facts[i]!;
    const committedAt = new Date(f.committed_at);
    const hash = contentHash(f.content);
    const same = (await findByHashAt(tenant, hash, committedAt)) ?? (await findCurrentDuplicate(tenant, f.scope, hash));
    if (same) {
      results[i] = { id: same.id, duplicate: true };
      continue;
    }
    const entities = readFact(f.content);
    const embedding = embeddings[i] ?? null;
    const agentId = resolveAgentId(principal, f.agent_id, services.secret, committedAt);
    if (embedding) {
      const neighbours = await nearestCurrentInScope(tenant, {
        scope: f.scope,
        embedding,
        model: services.embedder.model,
        limit: 5,
        at: committedAt,
        entitySignature: entitySignature(entities),
      });
      const corroborated = corroborationTarget(
        neighbours.filter((n) => new Date(n.committed_at) <= committedAt),
        agentId,
        entities,
      );
      if (corroborated) {
        results[i] = { id: corroborated.id, duplicate: true };
        continue;
      }
    }
    const { stored } = await storeNewFact(tenant, services, {
      content: f.content,
      contentHash: hash,
      scope: f.scope,
      confidence: f.confidence ?? 1,
      factType: f.fact_type ?? 'observation',
      agentId,
      memberId: resolveMemberId(principal),
      provenance: f.provenance ?? null,
      entities,
      embedding,
      committedAt,
      ttlDays: null,
      durability: 'durable',
      source: 'import',
      lineageId: null,
      supersedesFactId: null,
    });
    if (!stored.inserted) {
      const winner = await findCurrentDuplicate(tenant, f.scope, hash);
      if (!winner) throw new EngramError('conflict', `facts.${i} could not be stored because of a concurrent change; retry the import.`);
      results[i] = { id: winner.id, duplicate: true };
      continue;
    }
    results[i] = { id: stored.id, duplicate: false };
  }
  services.log.info(
    { workspace_id: principal.workspaceId, imported: results.filter((r) => !r.duplicate).length, received: results.length },
    'facts imported',
  );
  return { facts: results };
}
