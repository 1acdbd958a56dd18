/**
 * Scoring for the retrieval benchmark, and its in-process BM25 baseline. Pure: a system's answer
 * to a question is a ranking of fact keys, best first; one rank may hold several keys when the
 * service stored identical facts once.
 */
import { createRequire } from 'node:module';
import type { ItemToken, ItsFunction } from 'wink-nlp';
import type Bm25Vectorizer from 'wink-nlp/utilities/bm25-vectorizer';
import { nlp } from './retrieval-set.ts';

// wink-nlp's package has no exports map: its utilities load by CommonJS path (typed by its d.ts).
const bm25Vectorizer = createRequire(import.meta.url)('wink-nlp/utilities/bm25-vectorizer') as typeof Bm25Vectorizer;

/** Ranks an agent reads. */
export const K = 10;

export interface QuestionScore {
  /** A gold fact in the top K. */
  hit: number;
  /** Share of the gold facts in the top K. */
  recall: number;
  /** Share of the gold turns with at least one of their facts in the top K (= recall when a turn is one fact). */
  turnRecall: number;
  /** 1 / rank of the first gold fact, 0 when none is in the top K. */
  rr: number;
}

/** The user turn a fact key comes from: "12" (a turn) or "12.3" (its fourth sentence). */
export const turnOfKey = (key: string) => key.split('.')[0]!;

/** Scores one ranking against a question's gold fact keys. */
export function scoreRanking(ranked: readonly (readonly string[])[], gold: readonly string[], k = K): QuestionScore {
  const goldSet = new Set(gold);
  const goldTurns = new Set(gold.map(turnOfKey));
  const found = new Set<string>();
  let rr = 0;
  ranked.slice(0, k).forEach((keys, i) => {
    const golden = keys.filter((key) => goldSet.has(key));
    if (golden.length && rr === 0) rr = 1 / (i + 1);
    for (const key of golden) found.add(key);
  });
  const turnsFound = new Set([...found].map(turnOfKey));
  return {
    hit: found.size > 0 ? 1 : 0,
    recall: goldSet.size ? found.size / goldSet.size : 0,
    turnRecall: goldTurns.size ? turnsFound.size / goldTurns.size : 0,
    rr,
  };
}

export interface Scored {
  ability: string;
  score: QuestionScore;
}

export interface Summary extends QuestionScore {
  questions: number;
}

/** Means over questions (each question counts once). */
export function summarize(scores: readonly QuestionScore[]): Summary {
  const mean = (pick: (s: QuestionScore) => number) => (scores.length ? scores.reduce((n, s) => n + pick(s), 0) / scores.length : 0);
  return { questions: scores.length, hit: mean((s) => s.hit), recall: mean((s) => s.recall), turnRecall: mean((s) => s.turnRecall), rr: mean((s) => s.rr) };
}

/** Means per ability, then "all", abilities in alphabetical order. */
export function byAbility(scored: readonly Scored[]): { ability: string; summary: Summary }[] {
  const abilities = [...new Set(scored.map((s) => s.ability))].sort();
  return [
    ...abilities.map((ability) => ({ ability, summary: summarize(scored.filter((s) => s.ability === ability).map((s) => s.score)) })),
    { ability: 'all', summary: summarize(scored.map((s) => s.score)) },
  ];
}

/** The value at a quantile (0..1) of a list of numbers, nearest rank. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

// ---- tables ----

export interface SystemResult {
  system: string;
  scored: Scored[];
}

const pct = (x: number) => (x * 100).toFixed(1);

/**
 * One variant's tables: every system overall, then each ability. With `sentences` (the short
 * variant) both recalls are shown: of gold sentences, and of gold turns.
 */
export function formatVariant(variant: string, systems: readonly SystemResult[], sentences: boolean): string {
  const metrics = sentences ? ['Hit@10', 'R@10 (sentences)', 'R@10 (turns)', 'MRR'] : ['Hit@10', 'R@10', 'MRR'];
  const cells = (s: Summary) => (sentences ? [pct(s.hit), pct(s.recall), pct(s.turnRecall), s.rr.toFixed(3)] : [pct(s.hit), pct(s.recall), s.rr.toFixed(3)]);
  const row = (xs: (string | number)[]) => `| ${xs.join(' | ')} |`;
  const overall = [
    row(['system', 'questions', ...metrics]),
    row(['---', ...Array<string>(metrics.length + 1).fill('---:')]),
    ...systems.map((s) => {
      const sum = summarize(s.scored.map((x) => x.score));
      return row([s.system, sum.questions, ...cells(sum)]);
    }),
  ];
  const per = systems.map((s) => byAbility(s.scored));
  const abilities = per[0]?.map((a) => a.ability) ?? [];
  const cell = (s: Summary) => cells(s).join(' / ');
  const ability = [
    row(['ability', 'questions', ...systems.map((s) => s.system)]),
    row(['---', '---:', ...systems.map(() => '---:')]),
    ...abilities.map((name, i) => row([name, per[0]![i]!.summary.questions, ...per.map((p) => cell(p[i]!.summary))])),
  ];
  return [
    `### ${variant}: overall (Hit@10 and R@10 in %)`,
    '',
    ...overall,
    '',
    `### ${variant}: by ability (${metrics.join(' / ')})`,
    '',
    ...ability,
  ].join('\n');
}

// ---- BM25 ----

/** One of wink's `its` readers: plain functions, which its typings declare as methods of `its`. */
const itsOf = <T>(name: string) => (nlp().its as unknown as Record<string, ItsFunction<T>>)[name]!;

/** Words and numbers of a text, stop words dropped, stemmed (Porter2 via wink-nlp). */
export function bm25Tokens(text: string): string[] {
  const [type, normal, stopWord, stem] = [itsOf<string>('type'), itsOf<string>('normal'), itsOf<boolean>('stopWordFlag'), itsOf<string>('stem')];
  const tokens: string[] = [];
  nlp()
    .readDoc(text)
    .tokens()
    .each((t: ItemToken) => {
      const kind = t.out(type);
      if (kind === 'number') tokens.push(t.out(normal));
      else if (kind === 'word' && !t.out(stopWord)) tokens.push(t.out(stem));
    });
  return tokens;
}

/**
 * Okapi BM25 (k1 = 1.2, b = 0.75, wink-nlp's vectorizer) over one conversation's facts: a fact's
 * score is the sum of its weights for the question's distinct terms. Ties keep the earlier fact.
 */
export function bm25Ranker(facts: readonly { key: string; content: string }[]): (question: string, k?: number) => string[][] {
  const bm25 = bm25Vectorizer({ k: 1, k1: 1.2, b: 0.75, norm: 'none' });
  for (const f of facts) bm25.learn(bm25Tokens(f.content));
  const bow = itsOf<Record<string, number>>('bow');
  // The vectorizer's `doc(i).out(bow)` is a term → weight map (typed as a document's output).
  const weights = facts.map((_, i) => bm25.doc(i).out(bow) as Record<string, number>);
  return (question, k = K) => {
    const terms = [...new Set(bm25Tokens(question))];
    return weights
      .map((w, i) => ({ i, score: terms.reduce((n, t) => n + (w[t] ?? 0), 0) }))
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, k)
      .map((x) => [facts[x.i]!.key]);
  };
}
