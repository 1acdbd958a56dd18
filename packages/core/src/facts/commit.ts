/**
 * The commit pipeline (SPEC §5), in the order commitOnce reads: validate → scan for secrets →
 * normalize (hash) → read claims → embed → decide → write, the write closing a superseded window,
 * inserting the fact and enqueuing its detection job in one statement. A new fact that nothing
 * current already states takes one round trip: the write, guarded against an identical current
 * fact and a fact it may corroborate, goes first (storeAtOnce); only if a guard holds do the reads
 * that decide run (readWhatIsInTheWay, then decideCommit in corroboration.ts).
 */
import { createHash, createHmac } from 'node:crypto';
import {
  addCorroboration,
  attachCitations,
  closeLineage,
  CORROBORATION_GUARD_DISTANCE,
  factWriterOf,
  factsMatching,
  findCurrentDuplicate,
  forWorkspace,
  getFact,
  insertFact,
  lineageFacts,
  nearestCurrentInScope,
  type CurrentFact,
  type FactEntity,
  type InsertedFact,
  type NewFact,
  type SimilarFact,
  type TenantDb,
} from '@engram/db';
import { assertCanWrite, canRead } from '../access.ts';
import type { MemberPrincipal } from '../auth.ts';
import { EngramError, notFound } from '../errors.ts';
import { uuidv7 } from '../ids.ts';
import { disagree, EXTRACTOR_VERSION, matchKeysOf, readFact, sameThing, viewOf } from '../language/index.ts';
import { corroborationTarget, decideCommit, decidingFact, entitySignature, type InTheWay } from './corroboration.ts';
import { earlierUse, requestHash, type IdempotencyClaim } from './idempotency.ts';
import { contentHash } from './normalize.ts';
import type { CommitInput, CommitOutput } from './schemas.ts';
import { assertNoSecrets } from './secrets.ts';
import { embedOrNull, type FactServices } from './services.ts';

/** `operation: "update"` supersedes the most similar current fact in scope at or above this cosine. */
export const UPDATE_SIMILARITY = 0.75;
/** Ephemeral facts expire after a day unless a TTL is given. */
export const EPHEMERAL_TTL_DAYS = 1;

const DAY_MS = 86_400_000;

/**
 * The agent id stored with a fact. Without one, a stable pseudonym of the token. Under the
 * workspace's `anon_agents` setting, a random-looking id per token, agent and day (the stateless
 * stand-in for "per session"), unlinkable across days without the server secret.
 */
export function resolveAgentId(principal: MemberPrincipal, requested: string | undefined, secret: string, now: Date): string {
  const base = requested ?? `agent-${createHash('sha256').update(principal.tokenId).digest('hex').slice(0, 8)}`;
  if (!principal.settings.anon_agents) return base;
  const day = now.toISOString().slice(0, 10);
  const pseudonym = createHmac('sha256', secret).update(`${principal.tokenId}:${base}:${day}`).digest('hex').slice(0, 12);
  return `anon-${pseudonym}`;
}

/** The member id stored with a fact: none under the workspace's `anonymous_mode`. */
export function resolveMemberId(principal: MemberPrincipal): string | null {
  return principal.settings.anonymous_mode ? null : principal.memberId;
}

/** Words worth indexing as keywords: named components, technologies, technical identifiers. */
export function keywordsOf(content: string, entities: FactEntity[]): string[] {
  const words = new Set<string>();
  for (const e of entities) {
    if (e.type !== 'claim') continue;
    for (const c of e.components) words.add(c);
    if (e.kind === 'technology') for (const v of e.values) words.add(v);
  }
  for (const m of content.matchAll(/\b[A-Za-z][A-Za-z0-9]*(?:[._-][A-Za-z0-9]+)+\b/g)) words.add(m[0].toLowerCase());
  return [...words].slice(0, 32);
}

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

function duplicateResult(
  existing: CurrentFact,
  note: string,
  corroborated: boolean,
): CommitOutput {
  return {
    fact_id: existing.id,
    lineage_id: existing.lineage_id,
    committed_at: iso(existing.committed_at),
    duplicate: true,
    corroborated,
    memory_op: 'none',
    supersedes_fact_id: null,
    verified: existing.provenance !== null,
    durability: existing.durability,
    expires_at: iso(existing.expires_at),
    note,
  };
}

/** A fact ready to be stored, whatever its origin (commit or import). */
export interface FactDraft {
  content: string;
  contentHash: string;
  scope: string;
  confidence: number;
  factType: NewFact['factType'];
  agentId: string;
  memberId: string | null;
  provenance: string | null;
  entities: FactEntity[];
  embedding: number[] | null;
  committedAt: Date;
  ttlDays: number | null;
  durability: NewFact['durability'];
  source: NewFact['source'];
  lineageId: string | null;
  supersedesFactId: string | null;
  /** The code the fact cites (see citations.ts); none when absent. */
  citations?: NewFact['citations'];
}

/**
 * Stores a new fact: a time-ordered id, its expiry (TTL, or a day for ephemeral facts), the
 * superseded window closed and a detection job enqueued for durable facts, in one statement.
 */
export async function storeNewFact(
  tenant: TenantDb,
  services: FactServices,
  draft: FactDraft,
  options: { last?: boolean; unlessCorroboratingAt?: Date; grouped?: boolean; idempotency?: IdempotencyClaim } = {},
) {
  const id = uuidv7(draft.committedAt.getTime());
  const ttlForExpiry = draft.ttlDays ?? (draft.durability === 'ephemeral' ? EPHEMERAL_TTL_DAYS : null);
  const fact: NewFact = {
    id,
    lineageId: draft.lineageId ?? id,
    content: draft.content,
    contentHash: draft.contentHash,
    scope: draft.scope,
    confidence: draft.confidence,
    factType: draft.factType,
    agentId: draft.agentId,
    memberId: draft.memberId,
    provenance: draft.provenance,
    entities: draft.entities,
    entitySignature: entitySignature(draft.entities),
    matchKeys: matchKeysOf(draft.entities, draft.scope),
    extractorVersion: EXTRACTOR_VERSION,
    keywords: keywordsOf(draft.content, draft.entities),
    embedding: draft.embedding,
    embeddingModel: draft.embedding ? services.embedder.model : null,
    committedAt: draft.committedAt,
    ttlDays: draft.ttlDays,
    expiresAt: ttlForExpiry ? new Date(draft.committedAt.getTime() + ttlForExpiry * DAY_MS) : null,
    memoryOp: draft.supersedesFactId ? 'update' : 'add',
    supersedesFactId: draft.supersedesFactId,
    durability: draft.durability,
    source: draft.source,
    citations: draft.citations ?? null,
  };
  const insert = {
    closeLineageId: draft.lineageId,
    detectionReason: draft.durability === 'durable' ? draft.source : null,
    // The guard reaches a little past the corroboration rule (CORROBORATION.guardMargin); the reads decide.
    unlessCorroborating: options.unlessCorroboratingAt ? { at: options.unlessCorroboratingAt, maxDistance: CORROBORATION_GUARD_DISTANCE } : undefined,
    idempotency: options.idempotency ? { key: options.idempotency.key, requestHash: options.idempotency.requestHash } : undefined,
  };
  // Grouped: with the workspace's other commits of the moment, in one transaction (group commit).
  const stored = options.grouped
    ? await factWriterOf(services.db).insert(tenant.workspaceId, fact, insert)
    : await insertFact(tenant, fact, { ...insert, last: options.last });
  return { fact, stored };
}

/** Resolves which lineage a new fact continues, if any. */
async function resolveLineage(
  tenant: TenantDb,
  principal: MemberPrincipal,
  input: CommitInput,
  similar: () => Promise<{ id: string; lineage_id: string; similarity: number } | undefined>,
): Promise<{ lineageId: string | null; supersedes: string | null; note?: string }> {
  if (input.corrects_lineage) {
    const versions = await lineageFacts(tenant, input.corrects_lineage);
    // A lineage the caller may not read is reported exactly like one that does not exist.
    if (versions.length === 0 || !canRead(principal, versions[0]!.scope)) {
      throw notFound(`A fact with lineage_id ${input.corrects_lineage} in this workspace`);
    }
    const latest = versions.find((v) => v.valid_until === null) ?? versions[0]!;
    return { lineageId: input.corrects_lineage, supersedes: latest.id };
  }
  if (input.operation === 'update') {
    const best = await similar();
    if (best && best.similarity >= UPDATE_SIMILARITY) return { lineageId: best.lineage_id, supersedes: best.id };
    return {
      lineageId: null,
      supersedes: null,
      note: `No current fact in scope "${input.scope}" was similar enough to update (cosine >= ${UPDATE_SIMILARITY}); committed as a new fact. Pass corrects_lineage to say which fact this replaces.`,
    };
  }
  return { lineageId: null, supersedes: null };
}

/**
 * Commits one fact for a member (SPEC §5 `engram_commit`). With an `idempotency_key`, a retry of a
 * commit that stored its fact answers as the first call did and stores nothing (see idempotency.ts).
 */
export async function commitFact(
  services: FactServices,
  principal: MemberPrincipal,
  input: CommitInput,
  now = new Date(),
): Promise<CommitOutput> {
  if (!input.idempotency_key) return commitOnce(services, principal, input, now);
  const tenant = forWorkspace(services.db, principal.workspaceId);
  const { idempotency_key: key, ...request } = input;
  const claim: IdempotencyClaim = { key, operation: 'commit', requestHash: requestHash(request) };
  const replayed = await replay(tenant, claim);
  if (replayed) return replayed;
  const result = await commitOnce(services, principal, input, now, claim);
  // The first call may have stored the fact while this one was on its way (it was still running
  // when its caller gave up): then this one found it as an identical fact.
  if (result.duplicate && !result.corroborated) return (await replay(tenant, claim)) ?? result;
  return result;
}

/** The answer a key's first commit got, when it stored a fact. */
async function replay(tenant: TenantDb, claim: IdempotencyClaim): Promise<CommitOutput | null> {
  const earlier = await earlierUse(tenant, claim);
  const fact = earlier?.factId ? await getFact(tenant, earlier.factId) : null;
  if (!fact) return null;
  return {
    fact_id: fact.id,
    lineage_id: fact.lineage_id,
    committed_at: iso(fact.committed_at),
    duplicate: false,
    corroborated: false,
    memory_op: fact.memory_op,
    supersedes_fact_id: fact.supersedes_fact_id,
    verified: fact.provenance !== null,
    durability: fact.durability,
    expires_at: iso(fact.expires_at),
    note: 'Already stored by an earlier call with this idempotency_key: this is its answer, and nothing was stored again.',
  };
}

/**
 * One commit, step by step (see the module comment). With an idempotency claim, the fact is
 * recorded under its key in the statement that stores it.
 */
async function commitOnce(
  services: FactServices,
  principal: MemberPrincipal,
  input: CommitInput,
  now: Date,
  idempotency?: IdempotencyClaim,
): Promise<CommitOutput> {
  if (input.operation === 'none') return { ...nothingStored(input), note: 'Nothing was written (operation "none").' };
  assertCanWrite(principal, input.scope, now);
  assertNoSecrets({ content: input.content, provenance: input.provenance });
  const tenant = forWorkspace(services.db, principal.workspaceId);
  if (input.operation === 'delete') return retireLineage(tenant, principal, input, now);

  const draft = await prepareDraft(services, principal, input, now);
  const first = await storeAtOnce(tenant, services, input, draft, idempotency);
  if (first?.stored.inserted) return committed(services, principal, first.fact, first.stored);

  const decision = decideCommit(await readWhatIsInTheWay(tenant, services, input, draft, first?.stored.seen));
  switch (decision.kind) {
    case 'duplicate':
      return identicalAnswer(tenant, decision.fact, input);
    case 'corroborate':
      await addCorroboration(tenant, decision.fact.id);
      return duplicateResult(
        decision.fact,
        `A near-identical fact from another agent is already current; counted as corroboration.${await citedToo(tenant, decision.fact.id, input)}`,
        true,
      );
    case 'restate':
      return restate(tenant, services, principal, input, draft, decision.fact, idempotency);
    case 'store':
      return storeDecided(tenant, services, principal, input, draft, idempotency);
  }
}

/** The answer of a commit that stored nothing (yet): what it asked for, no fact. */
function nothingStored(input: CommitInput): CommitOutput {
  return {
    fact_id: null,
    lineage_id: null,
    committed_at: null,
    duplicate: false,
    corroborated: false,
    memory_op: input.operation,
    supersedes_fact_id: null,
    verified: Boolean(input.provenance),
    durability: null,
    expires_at: null,
  };
}

/** `operation: "delete"`: closes the current facts of a lineage the caller may read and write. */
async function retireLineage(tenant: TenantDb, principal: MemberPrincipal, input: CommitInput, now: Date): Promise<CommitOutput> {
  const lineage = input.corrects_lineage!;
  const versions = await lineageFacts(tenant, lineage);
  if (versions.length === 0 || !canRead(principal, versions[0]!.scope, now)) {
    throw notFound(`A fact with lineage_id ${lineage} in this workspace`);
  }
  assertCanWrite(principal, versions[0]!.scope, now);
  const closed = await closeLineage(tenant, lineage, now);
  return {
    ...nothingStored(input),
    lineage_id: lineage,
    supersedes_fact_id: closed[0] ?? null,
    note: closed.length ? `Retired ${closed.length} current fact(s) of this lineage.` : 'This lineage had no current fact; nothing changed.',
  };
}

/**
 * The fact as it would be stored: normalized and hashed, its claims read, embedded, and its agent
 * resolved and admitted by the rate limits. A new lineage until the decision says otherwise.
 */
async function prepareDraft(services: FactServices, principal: MemberPrincipal, input: CommitInput, now: Date): Promise<FactDraft> {
  const hash = contentHash(input.content);
  const entities = readFact(input.content);
  const [embedding] = await embedOrNull(services, [input.content]);
  const agentId = resolveAgentId(principal, input.agent_id, services.secret, now);
  await services.limits?.commit({ workspaceId: principal.workspaceId, agentId, settings: principal.settings });
  return {
    content: input.content,
    contentHash: hash,
    scope: input.scope,
    confidence: input.confidence,
    factType: input.fact_type,
    agentId,
    memberId: resolveMemberId(principal),
    provenance: input.provenance ?? null,
    entities,
    embedding: embedding ?? null,
    committedAt: now,
    ttlDays: input.ttl_days ?? null,
    durability: input.durability,
    source: 'commit',
    lineageId: null,
    supersedesFactId: null,
    citations: input.citations ?? null,
  };
}

/** A durable add that continues no lineage: the only commit that may corroborate another agent's fact. */
const isPlainAdd = (input: CommitInput) => input.operation === 'add' && !input.corrects_lineage && input.durability === 'durable';

/**
 * The common case, a fact nobody stated yet, in one round trip: an add that continues no lineage
 * is written at once, unless an identical current fact exists (the unique key) or, for a plain
 * add, a fact it may corroborate is current (the statement's guard, from CORROBORATION). Undefined
 * for the commits that go to the decision directly (updates, corrections).
 */
async function storeAtOnce(tenant: TenantDb, services: FactServices, input: CommitInput, draft: FactDraft, idempotency?: IdempotencyClaim) {
  if (input.operation !== 'add' || input.corrects_lineage) return undefined;
  const guarded = isPlainAdd(input) && draft.embedding !== null;
  return storeNewFact(tenant, services, draft, { grouped: true, unlessCorroboratingAt: guarded ? draft.committedAt : undefined, idempotency });
}

/** The current facts of the draft's scope nearest to it (only those stating its values, with a signature), most similar first. */
function nearestInScope(tenant: TenantDb, services: FactServices, draft: FactDraft, onlySignature?: string): Promise<SimilarFact[]> {
  if (!draft.embedding) return Promise.resolve([]);
  return nearestCurrentInScope(tenant, {
    scope: draft.scope,
    embedding: draft.embedding,
    model: services.embedder.model,
    limit: 5,
    at: draft.committedAt,
    entitySignature: onlySignature,
  });
}

/**
 * What the decision needs: the identical current fact, the fact a plain add may corroborate, and
 * whether the claim moved on since the one that decides. When the guarded statement kept the fact
 * out it already saw both facts (its guard measured every fact of the same values: none near
 * enough unless it names one), so only the claim's history is read.
 *
 * The reads run each on its own, so a connection is held for one statement, never while this
 * process works between two: under load the event loop is busy, and commits that kept one
 * transaction open across their reads held most of the pool idle in transaction. They take no
 * locks, so a transaction around them protected nothing; the write is still guarded by the unique
 * key on current content, and writes that must go together do.
 */
async function readWhatIsInTheWay(
  tenant: TenantDb,
  services: FactServices,
  input: CommitInput,
  draft: FactDraft,
  seen: InsertedFact['seen'],
): Promise<InTheWay> {
  const plainAdd = isPlainAdd(input);
  // Only facts stating the same values can be corroborated, so the search covers the scope's facts
  // with the same entity signature, alongside the exact-duplicate check (neither waits on the other).
  const [identical, sameValues]: [CurrentFact | null, SimilarFact[]] = seen
    ? [seen.identical, seen.corroborable ? [seen.corroborable] : []]
    : await Promise.all([
        findCurrentDuplicate(tenant, draft.scope, draft.contentHash),
        plainAdd ? nearestInScope(tenant, services, draft, entitySignature(draft.entities)) : Promise.resolve([]),
      ]);
  const target = plainAdd ? corroborationTarget(sameValues, draft) : undefined;
  const deciding = decidingFact({ identical, target });
  return { identical, target, claimMovedOn: deciding ? await changedSince(tenant, deciding, draft) : false };
}

/**
 * A restatement after the claim moved on is a new commit (the arc A → B → A must stay visible),
 * never the old fact again: it continues the old fact's lineage and closes its window first, in
 * one transaction.
 */
async function restate(
  tenant: TenantDb,
  services: FactServices,
  principal: MemberPrincipal,
  input: CommitInput,
  draft: FactDraft,
  earlier: CurrentFact,
  idempotency?: IdempotencyClaim,
): Promise<CommitOutput> {
  const toStore = { ...draft, lineageId: earlier.lineage_id, supersedesFactId: earlier.id };
  const { fact, stored } = await tenant.transaction(async (tx) => {
    await closeLineage(tx, earlier.lineage_id, draft.committedAt);
    // The transaction's last statement: it goes with COMMIT, in one round trip.
    return storeNewFact(tx, services, toStore, { last: true, idempotency });
  });
  const note = 'Restated after the claim had changed: stored as a new commit of this lineage, so the change and the return read as one story.';
  return written(tenant, services, principal, input, fact, stored, note);
}

/**
 * A fact the decision stores: a new lineage, with the workspace's other commits of the moment, or
 * an update or correction, which closes the lineage it continues in the same statement.
 */
async function storeDecided(
  tenant: TenantDb,
  services: FactServices,
  principal: MemberPrincipal,
  input: CommitInput,
  draft: FactDraft,
  idempotency?: IdempotencyClaim,
): Promise<CommitOutput> {
  const lineage = await resolveLineage(tenant, principal, input, async () => (await nearestInScope(tenant, services, draft))[0]);
  const toStore = { ...draft, lineageId: lineage.lineageId, supersedesFactId: lineage.supersedes };
  const { fact, stored } = await storeNewFact(tenant, services, toStore, { grouped: true, idempotency });
  return written(tenant, services, principal, input, fact, stored, lineage.note);
}

/** The answer of a decided write; an identical commit may have won a race for the same scope meanwhile. */
async function written(
  tenant: TenantDb,
  services: FactServices,
  principal: MemberPrincipal,
  input: CommitInput,
  fact: NewFact,
  stored: InsertedFact,
  note?: string,
): Promise<CommitOutput> {
  if (stored.inserted) return committed(services, principal, fact, stored, note);
  // Answer like the decision would have, had the winner been there.
  const winner = stored.seen?.identical ?? (await findCurrentDuplicate(tenant, input.scope, fact.contentHash));
  if (winner) return identicalAnswer(tenant, winner, input);
  throw new EngramError('conflict', 'The fact could not be stored because of a concurrent change; commit it again.');
}

/** The answer when an identical fact is already current (nothing stored). */
async function identicalAnswer(tenant: TenantDb, existing: CurrentFact, input: CommitInput): Promise<CommitOutput> {
  return duplicateResult(existing, `An identical fact is already current in this scope.${await citedToo(tenant, existing.id, input)}`, false);
}

/**
 * A commit that turned out to restate a current fact keeps what it cites: the fact takes the
 * citations when it has none. Returns what the answer's note should add.
 */
async function citedToo(tenant: TenantDb, factId: string, input: CommitInput): Promise<string> {
  if (!input.citations?.length) return '';
  return (await attachCitations(tenant, factId, input.citations))
    ? ' Your citations were added to it.'
    : ' It already cites code; yours were not added (commit with corrects_lineage to replace them).';
}

/** A stored commit's answer (and its log line). */
function committed(services: FactServices, principal: MemberPrincipal, fact: NewFact, stored: { id: string; committedAt: Date }, note?: string): CommitOutput {
  services.log.info({ workspace_id: principal.workspaceId, fact_id: stored.id, memory_op: fact.memoryOp, scope: fact.scope }, 'fact committed');
  return {
    fact_id: stored.id,
    lineage_id: fact.lineageId,
    committed_at: stored.committedAt.toISOString(),
    duplicate: false,
    corroborated: false,
    memory_op: fact.memoryOp,
    supersedes_fact_id: fact.supersedesFactId,
    verified: fact.provenance !== null,
    durability: fact.durability,
    expires_at: iso(fact.expiresAt),
    ...(note ? { note } : {}),
  };
}

/** How many facts per shared key are read to see whether a claim moved on since a fact. */
const CHANGED_SINCE_PER_KEY = 20;

/**
 * Did a current fact committed after `earlier` state a different value for a claim this draft
 * makes? Then the draft is not the old fact said again: it is a new commit (a possible reversal).
 * A later fact that a human already judged compatible with `earlier` (a dismissed conflict of
 * the two) did not move the claim on.
 */
export async function changedSince(
  tenant: TenantDb,
  earlier: { id: string; committed_at: Date },
  draft: { content: string; scope: string; agentId: string; entities: FactEntity[]; committedAt: Date },
): Promise<boolean> {
  const keys = matchKeysOf(draft.entities, draft.scope);
  if (keys.length === 0) return false;
  // One statement: the current facts sharing a key committed after `earlier`, less those a human
  // judged compatible with it.
  const since = new Date(earlier.committed_at);
  const later = (await factsMatching(tenant, keys, CHANGED_SINCE_PER_KEY, { id: earlier.id, committedAt: since })).filter(
    (f) => f.valid_until === null && f.committed_at.getTime() > since.getTime(),
  );
  if (later.length === 0) return false;
  const mine = viewOf({
    id: 'draft',
    lineage_id: 'draft',
    content: draft.content,
    scope: draft.scope,
    agent_id: draft.agentId,
    entities: draft.entities,
    match_keys: keys,
    committed_at: draft.committedAt,
    valid_until: null,
    retired_by: null,
    retired_for_fact_id: null,
    durability: 'durable',
  }).claims;
  return later.some((f) => viewOf(f).claims.some((theirs) => mine.some((c) => sameThing(c, theirs) && disagree(c, theirs))));
}
