/**
 * Which earlier fact a new fact may corroborate (count as one more agent agreeing with it) instead
 * of being stored. A fact of the same scope, current and unexpired at the new fact's instant,
 * embedded by the same model, that is:
 *
 * - durable (`durability`): an ephemeral fact is a scratch note, not something to agree with;
 * - from another agent: an agent saying a thing again is not a second witness;
 * - stating exactly the same values (the same `entity_signature`): "retries 7 times" never
 *   corroborates "retries 3 times", however alike the texts;
 * - at least `minSimilarity` (cosine) close.
 *
 * Written twice, once per language, from these parameters: the commit statement's guard
 * (`insertFacts` in facts.ts, which keeps such a commit out of the one-round-trip path) and
 * `corroborationTarget` in core (`facts/corroboration.ts`, which decides). Both are held to the same
 * table of rows by test/integration/corroboration-rule.test.ts.
 */
export const CORROBORATION = {
  /** The cosine at or above which a fact is near enough to corroborate. */
  minSimilarity: 0.92,
  /** The only durability a corroborated fact has. */
  durability: 'durable',
  /**
   * How much further than `minSimilarity` the guard reaches: the database measures the distance
   * of half-precision vectors in its own floating point, and the guard must hold for every fact
   * the decision would take (a fact in the margin goes to the reads, which decide).
   */
  guardMargin: 1e-6,
} as const;

/** The cosine distance within which the commit statement's guard holds (see CORROBORATION). */
export const CORROBORATION_GUARD_DISTANCE = 1 - CORROBORATION.minSimilarity + CORROBORATION.guardMargin;
