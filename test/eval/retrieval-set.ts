/**
 * The retrieval benchmark's data: BEAM conversations (mohammadtavakoli78/BEAM) reduced to what a
 * memory service would hold — the user's turns — and the probing questions with the turns that
 * answer them, and the two ways those turns become facts (a turn, or each of its sentences).
 * Pure: test/eval/retrieval-data.ts reads the BEAM files, test/eval/retrieval.ts runs the systems.
 */
import fs from 'node:fs';
import winkNLP from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import { z } from 'zod';

/**
 * BEAM's Coding conversations are held out for a measurement made elsewhere: they are never
 * opened, printed or stored here. Only a conversation's topic.json is read to learn its category.
 */
export const HELD_OUT_CATEGORY = 'coding';

/** May a conversation with this topic.json category be read? */
export function isEligibleCategory(category: unknown): category is string {
  return typeof category === 'string' && category.trim().length > 0 && category.trim().toLowerCase() !== HELD_OUT_CATEGORY;
}

const Turn = z.object({ id: z.number().int(), at: z.string(), text: z.string().min(1) });
const Question = z.object({
  ability: z.string(),
  question: z.string().min(1),
  /** User turns that hold the answer. */
  gold: z.array(z.number().int()).min(1),
  /** BEAM's own `source_chat_ids`, flattened (they may name assistant messages). */
  cited: z.array(z.number().int()),
});
const Conversation = z.object({ id: z.string(), category: z.string(), turns: z.array(Turn).min(1), questions: z.array(Question) });
export const RetrievalSet = z.object({
  about: z.string(),
  source: z.object({ repo: z.string(), commit: z.string().nullable(), bucket: z.string() }),
  conversations: z.array(Conversation),
});
export type Turn = z.infer<typeof Turn>;
export type Question = z.infer<typeof Question>;
export type Conversation = z.infer<typeof Conversation>;
export type RetrievalSet = z.infer<typeof RetrievalSet>;

/**
 * Conversations as one, for a workspace holding them all: turn ids and the questions' gold offset by a million per
 * conversation, so they stay apart.
 */
export function oneConversation(all: readonly Conversation[]): Conversation {
  return {
    id: `${all.length} conversations`,
    category: 'mixed',
    turns: all.flatMap((c, i) => c.turns.map((t) => ({ ...t, id: t.id + (i + 1) * 1_000_000 }))),
    questions: all.flatMap((c, i) => c.questions.map((q) => ({ ...q, gold: q.gold.map((g) => g + (i + 1) * 1_000_000) }))),
  };
}

/** Reads a data file; a Coding conversation in it is refused, whoever wrote the file. */
export function loadRetrievalSet(file: string): RetrievalSet {
  const set = RetrievalSet.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  const heldOut = set.conversations.find((c) => !isEligibleCategory(c.category));
  if (heldOut) throw new Error(`${file}: conversation ${heldOut.id} is in a held-out category; remove it`);
  return set;
}

// ---- BEAM files → a conversation ----

interface BeamMessage {
  role: string;
  id: number;
  content: string;
  time_anchor?: string;
}
interface BeamBatch {
  turns: BeamMessage[][];
  time_anchor?: string;
}
type BeamQuestions = Record<string, { question: string; source_chat_ids?: unknown }[]>;

/** BEAM ends each generated user message with a plan marker such as "->-> 1,2"; no user wrote it. */
const PLAN_MARKER = /\s*->->\s*[\d,\s]*$/;

/** "January-10-2024" → that day (UTC), or null. */
export function parseAnchor(anchor: string | undefined): Date | null {
  const m = anchor ? /^([A-Za-z]+)-(\d{1,2})-(\d{4})$/.exec(anchor.trim()) : null;
  if (!m) return null;
  const at = new Date(`${m[1]} ${m[2]}, ${m[3]} 00:00:00 UTC`);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** Every id in a `source_chat_ids` value: a list, a nested list, or an object of lists. */
export function flattenIds(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  if (Array.isArray(value)) return value.flatMap(flattenIds);
  if (value && typeof value === 'object') return Object.values(value).flatMap(flattenIds);
  return [];
}

/**
 * Reduces one BEAM conversation. Times: each session (batch) starts at 08:00 UTC on its
 * `time_anchor` day and its user turns follow a minute apart, so turn order is commit order (a
 * session with no anchor, or one dated before the last turn, continues from the last turn).
 * Gold: a question citing an assistant message is answered by the user turn that message replied
 * to, the nearest user turn before it — the memory holds user turns only. Questions without
 * evidence (BEAM's abstention items) are left out.
 */
export function conversationFromBeam(id: string, category: string, chat: BeamBatch[], questions: BeamQuestions): Conversation {
  if (!isEligibleCategory(category)) throw new Error(`conversation ${id} is in a held-out category`);
  const turns: Turn[] = [];
  let last = 0;
  for (const batch of chat) {
    const messages = batch.turns.flat();
    const anchor = parseAnchor(batch.time_anchor ?? messages.find((m) => m.time_anchor)?.time_anchor);
    let next = anchor && anchor.getTime() + 8 * 3_600_000 > last ? anchor.getTime() + 8 * 3_600_000 : last + 60_000;
    for (const m of messages) {
      if (m.role !== 'user') continue;
      const text = m.content.replace(PLAN_MARKER, '').trim();
      if (!text) continue;
      turns.push({ id: m.id, at: new Date(next).toISOString(), text });
      last = next;
      next += 60_000;
    }
  }
  return { id, category, turns, questions: questionsWithGold(turns, questions) };
}

/** The probing questions with their gold user turns (see {@link conversationFromBeam}). */
export function questionsWithGold(turns: readonly Turn[], questions: BeamQuestions): Question[] {
  const userIds = turns.map((t) => t.id).sort((a, b) => a - b);
  const userTurnFor = (cited: number): number | undefined => {
    let found: number | undefined;
    for (const u of userIds) if (u <= cited) found = u;
    return found;
  };
  const out: Question[] = [];
  for (const [ability, items] of Object.entries(questions)) {
    for (const item of items) {
      const cited = [...new Set(flattenIds(item.source_chat_ids))];
      const gold = [...new Set(cited.map(userTurnFor).filter((u) => u !== undefined))].sort((a, b) => a - b);
      if (gold.length > 0) out.push({ ability, question: item.question, gold, cited });
    }
  }
  return out;
}

// ---- facts of a variant ----

export type Variant = 'long' | 'short';

/** One fact to store: `key` names it in the metrics, `turn` is the user turn it came from. */
export interface EvalFact {
  key: string;
  turn: number;
  content: string;
  committed_at: string;
}

let pipeline: ReturnType<typeof winkNLP> | undefined;
/** wink-nlp's sentence boundaries only (no tagging): loaded once, about 90 ms. */
export function nlp(): ReturnType<typeof winkNLP> {
  pipeline ??= winkNLP(model, ['sbd']);
  return pipeline;
}

/** A turn's sentences: each line on its own (lists, pasted text), then wink's sentence boundaries. */
export function sentencesOf(text: string): string[] {
  return text
    .split(/\n+/)
    .flatMap((line) => (line.trim() ? nlp().readDoc(line).sentences().out() : []))
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
}

/**
 * The facts of a conversation. long: one turn, one fact (key = turn id). short: one fact per
 * sentence (key = "turn.index"), a second apart so they keep their order within the turn's minute.
 */
export function factsOf(conversation: Conversation, variant: Variant): EvalFact[] {
  if (variant === 'long') return conversation.turns.map((t) => ({ key: String(t.id), turn: t.id, content: t.text, committed_at: t.at }));
  return conversation.turns.flatMap((t) =>
    sentencesOf(t.text).map((content, i) => ({
      key: `${t.id}.${i}`,
      turn: t.id,
      content,
      committed_at: new Date(new Date(t.at).getTime() + i * 1000).toISOString(),
    })),
  );
}

/** A question's gold fact keys among `facts`: every fact of a gold turn. */
export function goldKeys(question: Question, facts: readonly EvalFact[]): string[] {
  const turns = new Set(question.gold);
  return facts.filter((f) => turns.has(f.turn)).map((f) => f.key);
}
