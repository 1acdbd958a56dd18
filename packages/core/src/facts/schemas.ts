/**
 * Input and output schemas of the fact operations, shared by the MCP tools and the REST routes
 * (validate once, at the boundary). Messages say what is allowed, for the calling model to fix.
 */
import { FACT_TYPES } from '@engram/db';
import { z } from 'zod';
import { Instant } from '../input.ts';
import { MemberName, ShownCitation } from '../responses.ts';
import { Citations } from './citations.ts';

/** Longest fact content accepted (SPEC §5). */
export const MAX_CONTENT_LENGTH = 4000;

const SCOPE_SEGMENT = /^[a-z0-9][a-z0-9._-]*$/;

/** A hierarchical scope such as `auth` or `payments/webhooks` (lower-cased, slashes trimmed). */
export const Scope = z
  .string({ error: 'must be a string like "auth" or "payments/webhooks"' })
  .transform((s) => s.trim().toLowerCase().replace(/^\/+|\/+$/g, ''))
  .pipe(
    z
      .string()
      .min(1, { error: 'must not be empty; use a topic path like "auth" or "payments/webhooks"' })
      .max(200, { error: 'must be at most 200 characters' })
      .refine((s) => s.split('/').every((seg) => SCOPE_SEGMENT.test(seg)), {
        error:
          'must be a path like "auth" or "payments/webhooks": segments of lowercase letters, digits, ".", "_" or "-", separated by "/"',
      })
      .refine((s) => s.split('/').length <= 8, { error: 'must have at most 8 segments' }),
  );

export const AgentId = z
  .string()
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(100, { error: 'must be at most 100 characters' })
  .regex(/^[A-Za-z0-9._:@/-]+$/, { error: 'may contain letters, digits and . _ : @ / - only' });

const Content = z
  .string({ error: 'is required: the claim, in plain English' })
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(MAX_CONTENT_LENGTH, { error: `must be at most ${MAX_CONTENT_LENGTH} characters; split long findings into several facts` });

const Confidence = z
  .number({ error: 'must be a number from 0 to 1 (1.0 = verified in code, 0.7 = observed, 0.3 = inferred)' })
  .min(0, { error: 'must be at least 0' })
  .max(1, { error: 'must be at most 1' });

const FactType = z.enum(FACT_TYPES, { error: 'must be "observation", "inference" or "decision"' });
const Provenance = z.string().trim().min(1).max(2000, { error: 'must be at most 2000 characters' });

/** `engram_commit` arguments. */
/**
 * A client's retry key (engram_commit's `idempotency_key`, an import's `Idempotency-Key` header):
 * printable, without spaces, short enough to index.
 */
export const IdempotencyKey = z
  .string({ error: 'must be a string, e.g. a UUID' })
  .min(8, { error: 'must be at least 8 characters (a UUID is a good key)' })
  .max(200, { error: 'must be at most 200 characters' })
  .regex(/^[\x21-\x7e]+$/, { error: 'must be printable ASCII without spaces (a UUID is a good key)' });

export const CommitInput = z
  .object({
    content: Content.describe(
      'The claim in plain English. Be specific: service names, versions, config keys, numeric values with units.',
    ),
    scope: Scope.describe('Hierarchical topic path, e.g. "auth", "payments/webhooks", "infra/docker".'),
    confidence: Confidence.describe('0.0-1.0: 1.0 = verified in code, 0.7 = observed behaviour, 0.3 = inferred.'),
    agent_id: AgentId.optional().describe('Your agent identifier. Derived from your token if omitted.'),
    corrects_lineage: z
      .uuid({ error: 'must be the lineage_id (a UUID) of the fact being corrected' })
      .optional()
      .describe('lineage_id of a fact this one corrects; that fact is marked superseded.'),
    provenance: Provenance.optional().describe(
      'Evidence: file path and line, test output, command. Facts with provenance are marked verified.',
    ),
    fact_type: FactType.default('observation').describe(
      '"observation" (seen in code/tests/logs), "inference" (concluded) or "decision" (a choice someone made).',
    ),
    ttl_days: z
      .number()
      .int({ error: 'must be a whole number of days' })
      .min(1, { error: 'must be at least 1' })
      .max(3650, { error: 'must be at most 3650' })
      .optional()
      .describe('Days until the fact expires by itself. Omit for facts that stay true.'),
    operation: z
      .enum(['add', 'update', 'delete', 'none'], { error: 'must be "add", "update", "delete" or "none"' })
      .default('add')
      .describe(
        '"add" a new fact; "update" supersedes the most similar current fact in scope (or corrects_lineage); "delete" retires corrects_lineage; "none" writes nothing.',
      ),
    durability: z
      .enum(['durable', 'ephemeral'], { error: 'must be "durable" or "ephemeral"' })
      .default('durable')
      .describe('"ephemeral" for scratch notes: hidden from default queries, expire in a day unless they prove useful.'),
    idempotency_key: IdempotencyKey.optional().describe(
      'Any unique string (e.g. a UUID) for this commit. If the call fails or times out, send it again with the same key: you get the original answer and the fact is never stored twice.',
    ),
    citations: Citations.optional().describe(
      'The code you verified the claim against: up to 10 {path, start_line?, end_line?, commit?, repo?}, path relative to the repository root, commit from `git rev-parse HEAD`, repo from `git remote get-url origin`.',
    ),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.operation === 'delete' && !input.corrects_lineage) {
      ctx.addIssue({
        code: 'custom',
        path: ['corrects_lineage'],
        message: 'is required when operation is "delete": pass the lineage_id of the fact to retire',
      });
    }
  });
export type CommitInput = z.output<typeof CommitInput>;

const nullableIso = z.string().nullable();

/** `engram_commit` result. */
export const CommitOutput = z.object({
  fact_id: z.string().nullable().describe('Id of the stored (or matching existing) fact; null for "none" and "delete".'),
  lineage_id: z.string().nullable(),
  committed_at: nullableIso,
  duplicate: z.boolean().describe('True when an identical or corroborated fact already existed; nothing new was stored.'),
  corroborated: z.boolean().describe('True when this commit counted as another agent agreeing with an existing fact.'),
  memory_op: z.enum(['add', 'update', 'delete', 'none']),
  supersedes_fact_id: z.string().nullable().describe('The fact this one replaced (update) or retired (delete).'),
  verified: z.boolean().describe('True when the fact has provenance.'),
  durability: z.enum(['durable', 'ephemeral']).nullable(),
  expires_at: nullableIso,
  note: z.string().optional(),
});
export type CommitOutput = z.infer<typeof CommitOutput>;

/** Phrases that ask about the past: queries containing them include superseded versions. */
export const HISTORY_PHRASES = /\b(used to|originally|before|previously|back when)\b/i;

/** `engram_query` arguments. */
export const QueryInput = z
  .object({
    topic: z
      .string({ error: 'is required: what you want to know, as a specific question or phrase' })
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(1000, { error: 'must be at most 1000 characters' })
      .describe('What you want to know. Specific beats broad: "How does auth refresh JWTs?" not "auth".'),
    scope: Scope.optional().describe('Only facts in this scope and below ("auth" includes "auth/jwt").'),
    limit: z
      .number()
      .int({ error: 'must be a whole number' })
      .min(1, { error: 'must be at least 1' })
      .max(50, { error: 'must be at most 50' })
      .default(10)
      .describe('Maximum results (default 10, max 50).'),
    as_of: Instant.optional()
      .describe('ISO 8601 instant: answer with what the team believed then.'),
    fact_type: FactType.optional().describe('Only "observation", "inference" or "decision" facts.'),
    include_ephemeral: z.boolean().default(false).describe('Include ephemeral scratch facts (ranked lower).'),
    include_history: z
      .boolean()
      .optional()
      .describe('Include superseded versions with their validity windows. On by default for "used to", "originally", "before", "previously", "back when".'),
  })
  .strict();
export type QueryInput = z.output<typeof QueryInput>;


export const QueryResultFact = z.object({
  fact_id: z.string(),
  lineage_id: z.string(),
  content: z.string(),
  scope: z.string(),
  score: z.number(),
  confidence: z.number(),
  fact_type: z.enum(FACT_TYPES),
  agent_id: z.string(),
  member: MemberName,
  committed_at: z.string(),
  valid_from: z.string(),
  valid_until: z.string().nullable().describe('Null while current; set when superseded, retired or expired.'),
  has_open_conflict: z.boolean().describe('True: another fact disputes this one. Do not treat it as settled.'),
  verified: z.boolean().describe('False: no provenance; treat with scepticism.'),
  provenance: z.string().nullable(),
  durability: z.enum(['durable', 'ephemeral']),
  corroborating_agents: z.number().int(),
  citations: z.array(ShownCitation).optional().describe('The code the fact cites. Re-read those lines before relying on the fact.'),
  verified_at: z.string().optional().describe('When someone last re-read the cited code and found the fact still true.'),
  truncated: z.boolean().optional().describe('The content was cut to fit the response budget.'),
  closed: z
    .object({
      closed_by: z.enum(['superseded', 'deleted', 'expired', 'detector', 'resolution']),
      replaced_by: z.string().nullable().describe('The fact that took its place, when one did.'),
    })
    .optional()
    .describe('Set on a closed fact shown because it matches the topic better than any current one: history, not what holds now.'),
});
export type QueryResultFact = z.infer<typeof QueryResultFact>;

/** `engram_query` result. */
export const QueryOutput = z.object({
  mode: z.enum(['current', 'as_of', 'history']).describe('current facts, facts current at as_of, or every version'),
  as_of: z.string().optional(),
  results: z.array(QueryResultFact),
  omitted: z.number().int().describe('Further matches left out to keep the response within ~4,000 tokens.'),
  note: z.string().optional(),
});
export type QueryOutput = z.infer<typeof QueryOutput>;

/** `engram_promote` arguments and result. */
export const PromoteInput = z
  .object({ fact_id: z.uuid({ error: 'must be the fact_id (a UUID) of an ephemeral fact' }) })
  .strict();
export const PromoteOutput = z.object({
  fact_id: z.string(),
  promoted: z.boolean().describe('True when this call made the fact durable.'),
  durability: z.enum(['durable', 'ephemeral']),
  note: z.string().optional(),
});
export type PromoteOutput = z.infer<typeof PromoteOutput>;

/**
 * One fact of an import (federation journal), with every rule a stored fact must meet. An import
 * applies it to each fact on its own (see importFacts): a fact that breaks a rule is refused, the
 * others are stored.
 */
export const ImportFact = z
  .object({
    content: Content,
    scope: Scope,
    committed_at: Instant,
    agent_id: AgentId,
    fact_type: FactType.optional(),
    confidence: Confidence.optional(),
    provenance: Provenance.optional(),
    citations: Citations.optional(),
  })
  .strict();
export type ImportFact = z.output<typeof ImportFact>;

/**
 * An import fact's fields and their types only. A fact without them is not a fact at all (a file of
 * another format, a client bug), so the request is rejected; the values are checked fact by fact.
 */
const ImportFactFields = z
  .object({
    content: z.string({ error: 'is required: the claim, in plain English' }).describe(`The claim (at most ${MAX_CONTENT_LENGTH} characters).`),
    scope: z.string({ error: 'is required: a topic path like "auth" or "payments/webhooks"' }).describe('Hierarchical topic path.'),
    committed_at: z.string({ error: 'is required: an ISO 8601 timestamp, e.g. 2026-03-01T12:00:00Z' }).describe('When the fact was committed (ISO 8601, not in the future).'),
    agent_id: z.string({ error: 'is required: the agent that committed the fact' }),
    fact_type: z.string({ error: 'must be "observation", "inference" or "decision"' }).optional(),
    confidence: z.number({ error: 'must be a number from 0 to 1' }).optional(),
    provenance: z.string({ error: 'must be a string: the evidence for the fact' }).optional(),
    citations: z.array(z.unknown(), { error: 'must be an array of {path, start_line?, end_line?, commit?, repo?}' }).optional(),
  })
  .strict();
export type ImportFactFields = z.output<typeof ImportFactFields>;

/** Most facts one import request may carry. */
export const MAX_IMPORT_BATCH = 1000;
/**
 * Most bytes of JSON one import request may carry: 1,000 facts of the longest content, with room
 * for their other fields (and for text that takes more than a byte a character).
 */
export const MAX_IMPORT_BYTES = 8 * 1024 * 1024;

/** `POST /api/v1/facts/import` body: the facts, and whether one refused fact rejects them all. */
export const ImportInput = z
  .object({
    facts: z
      .array(ImportFactFields, { error: 'must be an array of facts' })
      .min(1, { error: 'must contain at least one fact' })
      .max(MAX_IMPORT_BATCH, { error: `must contain at most ${MAX_IMPORT_BATCH} facts per request; split the import` }),
    atomic: z
      .boolean({ error: 'must be true or false' })
      .default(false)
      .describe('true: one refused fact rejects the whole request (400, nothing stored). false (default): refused facts are reported, the others stored.'),
  })
  .strict();
export type ImportInput = z.output<typeof ImportInput>;

/** A fact of the request that was stored, or was already known. */
const ImportedFact = z.object({
  id: z.string(),
  duplicate: z.boolean().describe('True when the fact was already known (same content at the same instant, an identical current fact, or a near-identical one of another agent); nothing new was stored.'),
});

/** A fact of the request that was not stored, and why. */
const RefusedFact = z.object({
  index: z.number().int().describe('Its position in the request\'s `facts`.'),
  refused: z.literal(true),
  problems: z
    .array(z.object({ field: z.string(), message: z.string() }))
    .describe('Each field that kept it out (`facts.3.content`) and what to change; a secret is named by its kind, never quoted.'),
});

/** `POST /api/v1/facts/import` result: the counts, and each fact's outcome in request order. */
export const ImportOutput = z.object({
  stored: z.number().int().describe('New facts stored.'),
  duplicates: z.number().int().describe('Facts already known; nothing new stored for them.'),
  refused: z.number().int().describe('Facts not stored (see their entries in `facts`).'),
  facts: z.array(z.union([ImportedFact, RefusedFact])).describe('One entry per fact of the request, in its order.'),
});
export type ImportOutput = z.infer<typeof ImportOutput>;
export type ImportResult = ImportOutput['facts'][number];
