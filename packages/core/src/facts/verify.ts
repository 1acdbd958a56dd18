/**
 * Verifying facts against the code they cite (issue 57): `engram_verify`, where an agent that
 * re-read a fact's cited code says what it found, and the report of `engram check`, which compares
 * every citation with a checkout. A fact found still true is recorded as verified (and ranks as
 * such); one found outdated, or whose cited code changed, becomes a `stale` question for people,
 * unless the agent names the fact that replaces it, which settles it (reversibly, like the
 * detector's settlements).
 */
import {
  applyRetirements,
  citedFacts,
  forWorkspace,
  getFact,
  insertConflicts,
  latestVerification,
  raiseStaleConflict,
  recordVerification,
  settlementOf,
  verificationsOf,
  resolveSettledConflicts,
  VERIFICATION_STATUSES,
  type FactRow,
  type TenantDb,
} from '@engram/db';
import { z } from 'zod';
import { assertCanWrite, canRead } from '../access.ts';
import type { MemberPrincipal } from '../auth.ts';
import { EngramError, InvalidInputError, notFound } from '../errors.ts';
import { ShownCitation, type VerificationsOutput } from '../responses.ts';
import { citedLines, COMMIT_SHA, showCitations } from './citations.ts';
import { resolveAgentId, resolveMemberId } from './commit.ts';
import type { FactServices } from './services.ts';
import { AgentId } from './schemas.ts';
import { assertNoSecrets } from './secrets.ts';

const FactId = z.uuid({ error: 'must be a fact_id (a UUID) from engram_query' });
const Sha = z
  .string({ error: 'must be a commit sha (7 to 40 hex characters), e.g. from `git rev-parse HEAD`' })
  .trim()
  .toLowerCase()
  .regex(COMMIT_SHA, { error: 'must be a commit sha: 7 to 40 hex characters, e.g. from `git rev-parse HEAD`' });

/** `engram_verify` arguments. */
export const VerifyInput = z
  .object({
    fact_id: FactId.describe('The fact whose cited code you re-read.'),
    status: z
      .enum(VERIFICATION_STATUSES, { error: 'must be "still_true", "outdated" or "unsure"' })
      .describe('"still_true": the code still says what the fact says. "outdated": it no longer does. "unsure": you could not tell.'),
    evidence: z
      .string({ error: 'must be a string: what you read, e.g. "src/retry.ts:12 still sets MAX_RETRIES = 3"' })
      .trim()
      .min(1, { error: 'must not be empty; omit it instead' })
      .max(2000, { error: 'must be at most 2000 characters' })
      .optional()
      .describe('What you read that decided it, e.g. "src/retry.ts:12 still sets MAX_RETRIES = 3". Never secrets.'),
    commit: Sha.optional().describe('The commit you read (`git rev-parse HEAD`).'),
    replaced_by: FactId.optional().describe(
      'With "outdated": the fact_id of a current fact that states what is true now (commit it first with engram_commit). The outdated fact is closed in its favour.',
    ),
    agent_id: AgentId.optional().describe('Your agent identifier. Derived from your token if omitted.'),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.replaced_by && input.status !== 'outdated') {
      ctx.addIssue({ code: 'custom', path: ['replaced_by'], message: 'is only for status "outdated": the fact that replaces the outdated one' });
    }
    if (input.replaced_by && input.replaced_by === input.fact_id) {
      ctx.addIssue({ code: 'custom', path: ['replaced_by'], message: 'must be another fact than fact_id: the one that states what is true now' });
    }
  });
export type VerifyInput = z.output<typeof VerifyInput>;

/** `engram_verify` result. */
export const VerifyOutput = z.object({
  fact_id: z.string(),
  status: z.enum(VERIFICATION_STATUSES),
  verification_id: z.string(),
  verified_at: z.string().nullable().describe('When the fact was last found still true (now, for "still_true").'),
  conflict_id: z.string().nullable().describe('The stale question raised (or already open, or settled) about this fact, if any.'),
  outcome: z
    .enum(['verified', 'recorded', 'stale_raised', 'stale_already_open', 'settled'])
    .describe('verified: recorded as still true. recorded: noted (unsure). stale_raised: people are asked whether it is still true. stale_already_open: they already are. settled: closed in favour of replaced_by.'),
  note: z.string(),
});
export type VerifyOutput = z.infer<typeof VerifyOutput>;

const short = (sha: string | null | undefined) => (sha ? sha.slice(0, 12) : null);

/** The fact, readable by the member, or not found (a fact the member may not read is reported the same). */
async function readableFact(tenant: TenantDb, principal: MemberPrincipal, factId: string, now: Date, field = 'fact_id'): Promise<FactRow> {
  const fact = await getFact(tenant, factId);
  if (!fact || !canRead(principal, fact.scope, now) || fact.content === '') {
    throw notFound(`A fact with ${field} ${factId} in this workspace`);
  }
  return fact;
}

/** Records what an agent found when it re-read a fact's cited code (SPEC §5 `engram_verify`). */
export async function verifyFact(services: FactServices, principal: MemberPrincipal, input: VerifyInput, now = new Date()): Promise<VerifyOutput> {
  const tenant = forWorkspace(services.db, principal.workspaceId);
  assertNoSecrets({ evidence: input.evidence });
  const fact = await readableFact(tenant, principal, input.fact_id, now);
  const replacement = input.replaced_by ? await readableFact(tenant, principal, input.replaced_by, now, 'replaced_by') : null;
  if (replacement && replacement.valid_until !== null) {
    throw new InvalidInputError([{ field: 'replaced_by', message: 'must be a current fact: that one is history already; pass the fact that is true now' }]);
  }
  if (replacement) assertCanWrite(principal, fact.scope, now);
  const agentId = resolveAgentId(principal, input.agent_id, services.secret, now);
  const by = { memberId: resolveMemberId(principal), agentId };
  const at = input.commit ? ` at ${short(input.commit)}` : '';

  return tenant.transaction(async (tx) => {
    const verificationId = await recordVerification(tx, {
      factId: fact.id, status: input.status, evidence: input.evidence ?? null, commit: input.commit ?? null, source: 'agent', ...by, at: now,
    });
    const base = { fact_id: fact.id, status: input.status, verification_id: verificationId };
    if (input.status === 'still_true') {
      return { ...base, verified_at: now.toISOString(), conflict_id: null, outcome: 'verified' as const, note: `Recorded: still true${at}. Queries rank it as recently verified.` };
    }
    const verifiedAt = fact.verified_at ? new Date(fact.verified_at).toISOString() : null;
    if (input.status === 'unsure') {
      return { ...base, verified_at: verifiedAt, conflict_id: null, outcome: 'recorded' as const, note: 'Recorded as unsure; nothing else changed. Ask the user if the answer matters to your task.' };
    }
    if (replacement) {
      // A settlement, recorded like the detector's: resolved, listed, reversible (engram_resolve).
      const reason = `${agentId} verified it outdated${at}, replaced by a later fact${input.evidence ? `: ${input.evidence}` : '.'}`;
      await insertConflicts(tx, [
        {
          kind: 'stale',
          detectedBy: 'agent_verify',
          severity: 'medium',
          question: `Is this fact outdated, replaced by the later one?`,
          explanation: reason,
          factIds: [fact.id, replacement.id],
          settledBy: { factId: replacement.id, reason, at: now },
        },
      ]);
      const closed = await applyRetirements(tx, [{ factId: fact.id, byFactId: replacement.id, at: now, reason }]);
      await resolveSettledConflicts(tx, now, closed);
      return {
        ...base,
        verified_at: verifiedAt,
        conflict_id: await settlementOf(tx, fact.id, replacement.id),
        outcome: 'settled' as const,
        note: closed.length
          ? 'The outdated fact is closed in favour of replaced_by; the settlement is listed in engram_conflicts (status "resolved") and can be overruled with engram_resolve.'
          : 'The fact was already history; the verification is recorded.',
      };
    }
    const raised = await raiseStaleConflict(tx, {
      factId: fact.id,
      key: `stale:${fact.id}:verify:${verificationId}`,
      question: `An agent re-read the code this fact cites and found it outdated${at}: is it still true?`,
      explanation: input.evidence ?? `${agentId} found it outdated${at}.`,
      detectedBy: 'agent_verify',
      severity: 'medium',
    });
    return {
      ...base,
      verified_at: verifiedAt,
      conflict_id: raised.id,
      outcome: raised.raised ? ('stale_raised' as const) : ('stale_already_open' as const),
      note: raised.raised
        ? 'A stale question is open for people (engram_conflicts). If you know what is true now, commit it and call engram_verify again with replaced_by.'
        : 'A stale question about this fact was already open; your verification is recorded with it.',
    };
  });
}

/** Most facts `engram check` reads per request. */
export const CITED_FACTS_PAGE = 500;

/** `GET /api/v1/facts/cited` querystring. */
export const CitedFactsQuery = z
  .object({
    after: FactId.optional().describe('Paging: the last fact_id of the previous page.'),
  })
  .strict();

/** A fact `engram check` compares with a checkout. */
export const CitedFact = z.object({
  fact_id: z.string(),
  lineage_id: z.string(),
  content: z.string(),
  scope: z.string(),
  committed_at: z.string(),
  verified_at: z.string().nullable(),
  citations: z.array(ShownCitation),
});
export type CitedFact = z.infer<typeof CitedFact>;

export const CitedFactsOutput = z.object({
  facts: z.array(CitedFact),
  next_after: z.string().nullable().describe('Pass as `after` for the next page; null on the last.'),
});
export type CitedFactsOutput = z.infer<typeof CitedFactsOutput>;

/** The workspace's current facts that cite code (and that the member may read), a page at a time. */
export async function listCitedFacts(services: Pick<FactServices, 'db'>, principal: MemberPrincipal, query: z.output<typeof CitedFactsQuery>, now = new Date()): Promise<CitedFactsOutput> {
  const rows = await citedFacts(forWorkspace(services.db, principal.workspaceId), { afterId: query.after, limit: CITED_FACTS_PAGE, now });
  return {
    facts: rows
      .filter((r) => canRead(principal, r.scope, now))
      .map((r) => ({
        fact_id: r.id,
        lineage_id: r.lineage_id,
        content: r.content,
        scope: r.scope,
        committed_at: r.committed_at.toISOString(),
        verified_at: r.verified_at?.toISOString() ?? null,
        citations: showCitations(r.citations) ?? [],
      })),
    next_after: rows.length === CITED_FACTS_PAGE ? rows.at(-1)!.id : null,
  };
}

/** What `engram check` found for one fact (the code itself stays on the machine that ran it). */
const CheckResult = z
  .object({
    fact_id: FactId,
    state: z
      .enum(['unchanged', 'changed', 'gone', 'mismatch'], { error: 'must be "unchanged", "changed", "gone" or "mismatch"' })
      .describe('unchanged: every cited line is as at its commit. changed: some changed. gone: a cited file is gone. mismatch: a cited config value differs from the fact\'s.'),
    path: z.string().trim().min(1).max(500).optional().describe('The citation that changed, vanished or mismatched.'),
    lines: z.string().trim().max(40).optional().describe('Its lines, e.g. "lines 3-5".'),
    key: z.string().trim().min(1).max(200).optional().describe('mismatch: the config key whose value differs.'),
    changed_in: z
      .union([Sha, z.literal('working-tree')])
      .optional()
      .describe('The latest commit that changed the cited file ("working-tree" for uncommitted changes).'),
  })
  .strict();

/** `POST /api/v1/facts/check-report` body. */
export const CheckReportInput = z
  .object({
    commit: Sha.optional().describe('The commit of the checkout that was compared (`git rev-parse HEAD`).'),
    results: z
      .array(CheckResult, { error: 'must be an array of results' })
      .min(1, { error: 'must hold at least one result' })
      .max(CITED_FACTS_PAGE, { error: `must hold at most ${CITED_FACTS_PAGE} results per request` }),
  })
  .strict();
export type CheckReportInput = z.output<typeof CheckReportInput>;

export const CheckReportOutput = z.object({
  verified: z.number().int().describe('Facts recorded as verified still true.'),
  raised: z.number().int().describe('Stale questions raised for people.'),
  already_open: z.number().int().describe('Facts that already had an open stale question (or had this change asked about before).'),
  facts: z.array(
    z.object({
      fact_id: z.string(),
      outcome: z.enum(['verified', 'already_verified', 'stale_raised', 'stale_already_asked', 'not_found']),
      conflict_id: z.string().nullable(),
    }),
  ),
});
export type CheckReportOutput = z.infer<typeof CheckReportOutput>;

/** The yes/no question a changed citation asks, and the key that asks it once per change. */
function staleQuestion(r: z.output<typeof CheckResult>, fact: FactRow): { question: string; explanation: string; key: string } {
  const since = r.changed_in === 'working-tree' ? 'uncommitted changes' : r.changed_in ? short(r.changed_in)! : 'a later commit';
  const place = `${r.path ?? 'the cited file'}${r.lines ? ` ${r.lines}` : ''}`;
  const key = `stale:${fact.id}:${r.state}:${r.changed_in ?? 'unknown'}:${r.key ?? ''}`;
  switch (r.state) {
    case 'gone':
      return { key, question: `The file this fact cites (${r.path ?? 'a cited file'}) is gone since ${since}: is the fact still true?`, explanation: `engram check: ${place} no longer exists.` };
    case 'mismatch':
      return {
        key,
        question: `The config this fact cites sets ${r.key ?? 'the cited key'} to a different value than the fact states: is the fact still true?`,
        explanation: `engram check: ${place} sets ${r.key ?? 'the key'} to another value than the fact's.`,
      };
    default:
      return { key, question: `The code this fact cites changed in ${since}: is it still true?`, explanation: `engram check: ${place} changed since the cited commit.` };
  }
}

/**
 * Records what `engram check --report` found: unchanged facts as verified still true at the
 * checkout's commit (once per commit), changed, vanished or mismatching ones as stale questions
 * for people (once per change). Facts the member may not read are reported as not found.
 */
export async function reportCheck(services: FactServices, principal: MemberPrincipal, input: CheckReportInput, now = new Date()): Promise<CheckReportOutput> {
  if (principal.role === 'reader') {
    throw new EngramError('forbidden', 'Your token is read-only (reader role): engram check --report records verifications and raises questions; run it without --report, or with a member token.');
  }
  const tenant = forWorkspace(services.db, principal.workspaceId);
  const agentId = resolveAgentId(principal, 'engram-check', services.secret, now);
  const by = { memberId: resolveMemberId(principal), agentId };
  const out: CheckReportOutput = { verified: 0, raised: 0, already_open: 0, facts: [] };
  for (const r of input.results) {
    const fact = await getFact(tenant, r.fact_id);
    if (!fact || !canRead(principal, fact.scope, now)) {
      out.facts.push({ fact_id: r.fact_id, outcome: 'not_found', conflict_id: null });
      continue;
    }
    if (r.state === 'unchanged') {
      const last = await latestVerification(tenant, fact.id);
      if (last && last.status === 'still_true' && last.source === 'check' && last.commit === (input.commit ?? null)) {
        out.facts.push({ fact_id: fact.id, outcome: 'already_verified', conflict_id: null });
        continue;
      }
      const lines = fact.citations?.map((c) => `${c.path}${citedLines(c) ? ` ${citedLines(c)}` : ''}`).join(', ');
      await recordVerification(tenant, {
        factId: fact.id, status: 'still_true', evidence: `engram check: unchanged (${lines ?? 'no citations'})`, commit: input.commit ?? null, source: 'check', ...by, at: now,
      });
      out.verified++;
      out.facts.push({ fact_id: fact.id, outcome: 'verified', conflict_id: null });
      continue;
    }
    const asked = staleQuestion(r, fact);
    const raised = await raiseStaleConflict(tenant, { factId: fact.id, ...asked, detectedBy: 'citation_check', severity: 'medium' });
    if (raised.raised) out.raised++;
    else out.already_open++;
    out.facts.push({ fact_id: fact.id, outcome: raised.raised ? 'stale_raised' : 'stale_already_asked', conflict_id: raised.id });
  }
  return out;
}


/** Most verifications listed per fact. */
const LISTED_VERIFICATIONS = 50;

/** A fact's verifications, newest first (`GET /api/v1/facts/:id/verifications`). */
export async function listVerifications(db: FactServices['db'], principal: MemberPrincipal, factId: string, now = new Date()): Promise<VerificationsOutput> {
  const tenant = forWorkspace(db, principal.workspaceId);
  const fact = await readableFact(tenant, principal, factId, now);
  const rows = await verificationsOf(tenant, fact.id, LISTED_VERIFICATIONS);
  return {
    fact_id: fact.id,
    verified_at: fact.verified_at ? new Date(fact.verified_at).toISOString() : null,
    verifications: rows.map((v) => ({
      id: v.id,
      status: v.status,
      evidence: v.evidence,
      commit: v.commit,
      source: v.source,
      member: v.member,
      agent_id: v.agent_id,
      created_at: v.created_at.toISOString(),
    })),
  };
}
