/**
 * The story the detective reads: one line per fact, oldest first,
 * `[<id>] YYYY-MM-DD HH:MM (<scope>) "<content>"`. Contents are untrusted: each is a JSON string
 * literal (no line breaks, no stray quotes), so a fact can neither end its line nor pose as
 * another fact or as an instruction. Ids are the last 8 hex digits of the fact's id (its random
 * part), longer where two current facts of the workspace would share them.
 */
import type { CurveFact, Survivor } from './forgetting.ts';

export interface StoryFact {
  id: string;
  content: string;
  scope: string;
  committed_at: Date;
  conflicts: number;
  /** When its window closed, for a superseded fact shown as history. */
  valid_until?: Date | null;
}

export interface StoryLine {
  factId: string;
  shortId: string;
  text: string;
}

/**
 * Short ids: the last 8 hex digits of each id, lengthened where another id of `universe` (the
 * workspace's current facts; by default `ids` themselves) ends the same way — so a short id names
 * one fact of the workspace, not just of the story.
 */
export function shortIds(ids: readonly string[], universe: Iterable<string> = ids): Map<string, string> {
  // A UUID's last 12 characters are hex without a dash, so an 8-character tail is a plain slice.
  // The universe (100,000 ids in a large workspace) is only scanned for ids sharing a tail with
  // one of `ids`; those rare clashes are then looked at closely.
  const hexOf = (id: string) => id.replace(/-/g, '').toLowerCase();
  const tails = new Map<string, string[]>(ids.map((id) => [id.slice(-8).toLowerCase(), []]));
  const seen = new Set<string>();
  const note = (id: string) => {
    const bucket = tails.get(id.slice(-8).toLowerCase());
    if (bucket && !seen.has(id)) {
      seen.add(id);
      bucket.push(hexOf(id));
    }
  };
  for (const id of universe) note(id);
  for (const id of ids) note(id);
  const result = new Map<string, string>();
  for (const id of ids) {
    const hex = hexOf(id);
    const others = tails.get(hex.slice(-8))!.filter((other) => other !== hex);
    let length = 8;
    while (length < hex.length && others.some((other) => other.endsWith(hex.slice(-length)))) length++;
    result.set(id, hex.slice(-length));
  }
  return result;
}

const pad = (n: number) => String(n).padStart(2, '0');
const stamp = (d: Date) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;

/** One line of the story; a superseded fact says since when ("superseded 2026-03-02"). */
export function storyLine(shortId: string, fact: Pick<StoryFact, 'scope' | 'committed_at' | 'content' | 'valid_until'>): string {
  const history = fact.valid_until ? ` [superseded ${stamp(fact.valid_until).slice(0, 10)}]` : '';
  return `[${shortId}] ${stamp(fact.committed_at)} (${fact.scope})${history} ${JSON.stringify(fact.content)}`;
}

/**
 * The survivors a story of `budget` characters holds, most wanted first: trigger facts and their
 * evidence (always, whatever the budget), then facts with a conflict history, then facts in
 * `related`, then the rest by how surely the curve kept them; `lengthOf` is what a line costs.
 */
export function fillBudget<F extends CurveFact>(
  survivors: readonly Survivor<F>[],
  related: ReadonlySet<string>,
  budget: number,
  lengthOf: (s: Survivor<F>) => number,
): Survivor<F>[] {
  const priority = (s: Survivor<F>) => (s.trigger ? 0 : s.evidence ? 1 : s.fact.conflicts > 0 ? 2 : related.has(s.fact.id) ? 3 : 4);
  const picked: Survivor<F>[] = [];
  let used = 0;
  for (const s of [...survivors].sort((a, b) => priority(a) - priority(b) || a.rank - b.rank)) {
    const length = lengthOf(s);
    // Triggers and their evidence are always shown (the evidence is bounded where it is gathered).
    if (used + length > budget && !s.trigger && !s.evidence) continue;
    picked.push(s);
    used += length;
  }
  return picked;
}

/**
 * The story of the survivors within `budgetChars`: trigger facts first, then facts with a conflict
 * history, then facts the run's new facts relate to, then the rest by how surely the curve kept
 * them — and the chosen lines in chronological order.
 */
export function composeStory<F extends StoryFact>(
  survivors: readonly Survivor<F>[],
  options: { budgetChars: number; related: ReadonlySet<string>; universe?: Iterable<string> },
): { lines: StoryLine[]; omitted: number } {
  const ids = shortIds(
    survivors.map((s) => s.fact.id),
    options.universe,
  );
  const text = new Map(survivors.map((s) => [s, storyLine(ids.get(s.fact.id)!, s.fact)]));
  const chosen = new Set(fillBudget(survivors, options.related, options.budgetChars, (s) => text.get(s)!.length + 1));
  const lines = survivors
    .filter((s) => chosen.has(s))
    .map((s) => ({ factId: s.fact.id, shortId: ids.get(s.fact.id)!, text: text.get(s)! }));
  return { lines, omitted: survivors.length - lines.length };
}

/**
 * Splits the story into batches of at most `maxChars` (lines joined by newlines), in order; each
 * batch after the first starts with the last `overlapLines` lines of the one before, so an arc
 * that crosses a boundary is read whole in one of them.
 */
export function batchStory(lines: readonly StoryLine[], options: { maxChars: number; overlapLines: number }): StoryLine[][] {
  const batches: StoryLine[][] = [];
  let index = 0;
  while (index < lines.length) {
    const previous = batches.at(-1) ?? [];
    // The last lines of the previous batch (never all of it, never more than a quarter of a batch).
    const batch: StoryLine[] = [];
    let size = 0;
    for (let k = previous.length - 1; k >= 1 && batch.length < options.overlapLines; k--) {
      const length = previous[k]!.text.length + 1;
      if (size + length > options.maxChars / 4) break;
      batch.unshift(previous[k]!);
      size += length;
    }
    const fresh = batch.length;
    while (index < lines.length && (batch.length === fresh || size + lines[index]!.text.length + 1 <= options.maxChars)) {
      batch.push(lines[index]!);
      size += lines[index]!.text.length + 1;
      index++;
    }
    batches.push(batch);
  }
  return batches;
}
