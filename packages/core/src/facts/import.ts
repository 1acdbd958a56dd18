/**
 * `POST /api/v1/facts/import` (SPEC §8): facts with their original `committed_at`, `agent_id` and
 * `scope`, through the same pipeline as a commit. Idempotent: the same content at the same instant
 * is the same fact.
 *
 * Each fact is checked on its own. One that breaks a rule (a secret, content too long, a future
 * instant, a scope the caller may not write) is refused and named by its index, and the others are
 * stored; with `atomic`, one refused fact rejects the request and nothing is stored.
 *
 * The facts are stored in the order they happened, so later facts see earlier ones, and their
 * detection jobs are queued in that order (a run analyses its triggers in job order). Which are
 * known already is one read for the whole request; then each new fact is one statement, guarded
 * like a commit's against an identical current fact and one it would corroborate, and only a fact
 * the guard kept out for a reason the import does not share (a fact committed after it) goes
 * through the reads. Three reads before each insert made 500 facts of 2,000 characters take 22 s
 * on the embedded database; see docs/performance.md for this way's figures, and for group commit,
 * which was faster but queued a statement's jobs out of order.
 */
import { findCurrentDuplicate, findImportedAt, forWorkspace, nearestCurrentInScope, recordIdempotentResponse, type FactEntity, type InsertedFact, type TenantDb } from '@engram/db';
import { scopeAccess } from '../access.ts';
import type { MemberPrincipal } from '../auth.ts';
import { EngramError, type FieldProblem, InvalidInputError, problemsFromZod } from '../errors.ts';
import { readFact } from '../language/index.ts';
import { nextTurn } from '../turns.ts';
import { resolveAgentId, resolveMemberId, storeNewFact, type FactDraft } from './commit.ts';
import { corroborationTarget, entitySignature } from './corroboration.ts';
import { embedOrNull, type FactServices } from './services.ts';
import { earlierUse, requestHash, type IdempotencyClaim } from './idempotency.ts';
import { contentHash } from './normalize.ts';
import { ImportFact, type ImportFactFields, type ImportInput, type ImportOutput, type ImportResult } from './schemas.ts';
import { findSecret } from './secrets.ts';

/** How far in the future an imported `committed_at` may be (clock skew between servers). */
const FUTURE_TOLERANCE_MS = 5 * 60_000;

/**
 * Facts embedded in one call: a request to an embedding API stays far below its limits (OpenAI's:
 * 2,048 inputs and 300,000 tokens), and the local embedder holds the event loop for a window's
 * worth of texts at most.
 */
const IMPORT_WINDOW = 64;

type RefusedResult = Extract<ImportResult, { refused: true }>;
type StoredResult = Exclude<ImportResult, RefusedResult>;

/** An accepted fact, read and embedded, on its way to the database. */
interface Prepared {
  index: number;
  fact: ImportFact;
  committedAt: Date;
  hash: string;
  entities: FactEntity[];
  embedding: number[] | null;
  agentId: string;
}

/** The rules an imported fact must meet; the problems of one that breaks them. */
function checkFact(principal: MemberPrincipal, raw: ImportFactFields, index: number, now: Date): { fact: ImportFact } | { problems: FieldProblem[] } {
  const at = (field: string) => `facts.${index}.${field}`;
  const parsed = ImportFact.safeParse(raw);
  // The first problem of each field: the rules after it (an instant's range) say nothing more.
  const problems = parsed.success
    ? []
    : problemsFromZod(parsed.error.issues)
        .filter((p, i, all) => all.findIndex((q) => q.field === p.field) === i)
        .map((p) => ({ field: at(p.field), message: p.message }));
  for (const field of ['content', 'provenance'] as const) {
    const found = raw[field] ? findSecret(raw[field]) : null;
    if (found) problems.push({ field: at(field), message: `appears to contain ${found.label} (pattern: ${found.name}); remove it` });
  }
  if (parsed.success) {
    if (new Date(parsed.data.committed_at).getTime() > now.getTime() + FUTURE_TOLERANCE_MS) {
      problems.push({ field: at('committed_at'), message: 'is in the future' });
    }
    if (!scopeAccess(principal, parsed.data.scope, now).write) {
      problems.push({ field: at('scope'), message: `your scope permissions do not allow writing to "${parsed.data.scope}"` });
    }
  }
  return parsed.success && problems.length === 0 ? { fact: parsed.data } : { problems };
}

/**
 * Imports facts for a member (see the module comment): refused facts are named in the result, the
 * others stored or found known; with `input.atomic`, a refused fact throws InvalidInputError first.
 */
export async function importFacts(
  services: FactServices,
  principal: MemberPrincipal,
  input: ImportInput,
  now = new Date(),
  options: { idempotencyKey?: string } = {},
): Promise<ImportOutput> {
  if (!options.idempotencyKey) return importOnce(services, principal, input, now);
  // With a key, a retry gets the first answer word for word (without one, it is still safe: the
  // facts it stored are found again, as duplicates).
  const tenant = forWorkspace(services.db, principal.workspaceId);
  const claim: IdempotencyClaim = { key: options.idempotencyKey, operation: 'import', requestHash: requestHash(input) };
  const earlier = await earlierUse(tenant, claim);
  if (earlier?.response) return earlier.response as ImportOutput;
  const answer = await importOnce(services, principal, input, now);
  try {
    await recordIdempotentResponse(tenant, { ...claim, response: answer });
  } catch (error) {
    // The facts are stored; a retry without the record finds them again, as duplicates.
    services.log.warn({ err: error, workspace_id: principal.workspaceId }, 'the import is stored but its idempotency key could not be recorded');
  }
  return answer;
}

async function importOnce(services: FactServices, principal: MemberPrincipal, input: ImportInput, now: Date): Promise<ImportOutput> {
  const results = new Array<ImportResult>(input.facts.length);
  const refused: RefusedResult[] = [];
  const accepted: { index: number; fact: ImportFact }[] = [];
  for (const [index, raw] of input.facts.entries()) {
    const checked = checkFact(principal, raw, index, now);
    if ('problems' in checked) {
      const entry: RefusedResult = { index, refused: true, problems: checked.problems };
      results[index] = entry;
      refused.push(entry);
    } else {
      accepted.push({ index, fact: checked.fact });
    }
    const turn = nextTurn();
    if (turn) await turn;
  }
  if (input.atomic && refused.length > 0) throw new InvalidInputError(refused.flatMap((r) => r.problems));

  if (accepted.length > 0) await storeAccepted(services, principal, accepted, results);
  const stored = results.filter((r) => !('refused' in r) && !r.duplicate).length;
  services.log.info(
    {
      workspace_id: principal.workspaceId,
      received: results.length,
      stored,
      refused: refused.length,
      // Field names only: a refusal's message may name what a secret looks like, never the secret.
      refused_fields: refused.flatMap((r) => r.problems.map((p) => p.field)).slice(0, 20),
    },
    'facts imported',
  );
  return { stored, duplicates: results.length - stored - refused.length, refused: refused.length, facts: results };
}

/** Stores the accepted facts in the order they happened, filling in their results. */
async function storeAccepted(
  services: FactServices,
  principal: MemberPrincipal,
  accepted: { index: number; fact: ImportFact }[],
  results: ImportResult[],
): Promise<void> {
  const tenant = forWorkspace(services.db, principal.workspaceId);
  const order = accepted
    .map((a) => ({ ...a, committedAt: new Date(a.fact.committed_at), hash: contentHash(a.fact.content) }))
    .sort((a, b) => a.committedAt.getTime() - b.committedAt.getTime() || a.index - b.index);
  const knownAt = await findImportedAt(tenant, order.map((o) => ({ contentHash: o.hash, committedAt: o.committedAt })));
  // Facts of this request stored so far, by their content at their instant.
  const storedHere = new Map<string, string>();
  const memberId = resolveMemberId(principal);
  let embeddings = true;

  for (let start = 0; start < order.length; start += IMPORT_WINDOW) {
    const window = order.slice(start, start + IMPORT_WINDOW);
    // After a failure the rest goes without vectors (re-embedded later), so an embedding service
    // that times out costs an import one timeout, not one per window.
    const vectors = embeddings ? await embedOrNull(services, window.map((o) => o.fact.content)) : window.map(() => null);
    if (vectors.length > 0 && vectors.every((v) => v === null)) embeddings = false;
    for (const [k, o] of window.entries()) {
      const instant = `${o.hash}@${o.committedAt.getTime()}`;
      const same = knownAt.get(start + k) ?? storedHere.get(instant);
      if (same) {
        results[o.index] = { id: same, duplicate: true };
        continue;
      }
      const turn = nextTurn();
      if (turn) await turn;
      const entities = readFact(o.fact.content);
      const p: Prepared = { ...o, entities, embedding: vectors[k] ?? null, agentId: resolveAgentId(principal, o.fact.agent_id, services.secret, o.committedAt) };
      // Guarded like a commit: kept out by an identical current fact, or by one it may corroborate.
      // Its own transaction, the statement sent with COMMIT (one round trip).
      const { stored } = await storeNewFact(tenant, services, draftOf(p, memberId), { last: true, unlessCorroboratingAt: p.embedding ? p.committedAt : undefined });
      const result: StoredResult = stored.inserted ? { id: stored.id, duplicate: false } : (keptOutAs(p, stored.seen) ?? (await storeAlone(tenant, services, p, memberId)));
      results[o.index] = result;
      if (!result.duplicate) storedHere.set(instant, result.id);
    }
  }
}

function draftOf(p: Prepared, memberId: string | null): FactDraft {
  return {
    content: p.fact.content,
    contentHash: p.hash,
    scope: p.fact.scope,
    confidence: p.fact.confidence ?? 1,
    factType: p.fact.fact_type ?? 'observation',
    agentId: p.agentId,
    memberId,
    provenance: p.fact.provenance ?? null,
    entities: p.entities,
    embedding: p.embedding,
    committedAt: p.committedAt,
    ttlDays: null,
    durability: 'durable',
    source: 'import',
    lineageId: null,
    supersedesFactId: null,
    citations: p.fact.citations ?? null,
  };
}

/**
 * A fact the guarded statement kept out, answered from what the statement saw in its way: an
 * identical current fact, or a fact it corroborates that was committed no later than itself.
 * Undefined when that does not settle it.
 */
function keptOutAs(p: Prepared, seen: InsertedFact['seen']): StoredResult | undefined {
  if (seen?.identical) return { id: seen.identical.id, duplicate: true };
  const held = seen?.corroborable;
  if (held && new Date(held.committed_at) <= p.committedAt && corroborationTarget([held], p)) {
    return { id: held.id, duplicate: true };
  }
  return undefined;
}

/** One fact through the reads and an unguarded statement of its own (the import's pipeline, step by step). */
async function storeAlone(tenant: TenantDb, services: FactServices, p: Prepared, memberId: string | null): Promise<StoredResult> {
  const same = await findCurrentDuplicate(tenant, p.fact.scope, p.hash);
  if (same) return { id: same.id, duplicate: true };
  if (p.embedding) {
    const neighbours = await nearestCurrentInScope(tenant, {
      scope: p.fact.scope,
      embedding: p.embedding,
      model: services.embedder.model,
      limit: 5,
      at: p.committedAt,
      entitySignature: entitySignature(p.entities),
    });
    const corroborated = corroborationTarget(
      neighbours.filter((n) => new Date(n.committed_at) <= p.committedAt),
      p,
    );
    if (corroborated) return { id: corroborated.id, duplicate: true };
  }
  const { stored } = await storeNewFact(tenant, services, draftOf(p, memberId), { last: true });
  if (stored.inserted) return { id: stored.id, duplicate: false };
  const winner = await findCurrentDuplicate(tenant, p.fact.scope, p.hash);
  if (!winner) throw new EngramError('conflict', `facts.${p.index} could not be stored because of a concurrent change; retry the import.`);
  return { id: winner.id, duplicate: true };
}
