import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bm25Ranker, byAbility, formatVariant, quantile, scoreRanking, summarize } from '../eval/retrieval-metrics.ts';
import { conversationFromBeam, factsOf, goldKeys, isEligibleCategory, loadRetrievalSet, oneConversation, sentencesOf } from '../eval/retrieval-set.ts';

const chat = [
  {
    batch_number: 1,
    turns: [
      [
        { role: 'user', id: 0, time_anchor: 'March-03-2024', content: "I'm Dana, a nurse. I work nights ->-> 1,1" },
        { role: 'assistant', id: 1, content: 'Hello Dana.' },
      ],
      [
        { role: 'user', id: 2, content: 'My budget is $300.\nCan you help?' },
        { role: 'assistant', id: 3, content: 'Sure.' },
      ],
    ],
  },
  // A session without an anchor continues a minute after the last turn.
  { batch_number: 2, turns: [[{ role: 'user', id: 4, content: 'Actually the budget is $450 now.' }]] },
];
const questions = {
  information_extraction: [{ question: 'What is my job?', source_chat_ids: [0] }],
  knowledge_update: [{ question: 'What is my budget?', source_chat_ids: { original_info: [3], updated_info: [4] } }],
  event_ordering: [{ question: 'In what order?', source_chat_ids: [[0, 2], 4] }],
  abstention: [{ question: 'What is my cat called?' }],
};

describe('BEAM conversations for the retrieval eval', () => {
  it('refuses the held-out Coding category however it is written', () => {
    for (const category of ['Coding', 'coding', ' CODING ', '', undefined, 7]) expect(isEligibleCategory(category)).toBe(false);
    for (const category of ['Math', 'Trip Planning', 'Coding Bootcamp Advice']) expect(isEligibleCategory(category)).toBe(true);
    expect(() => conversationFromBeam('100K/1', 'Coding', chat, questions)).toThrow(/held-out/);
  });

  it('refuses a data file holding a Coding conversation', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'retrieval-')), 'set.json');
    const conversation = { ...conversationFromBeam('100K/5', 'Math', chat, questions), category: 'Coding' };
    fs.writeFileSync(file, JSON.stringify({ about: '', source: { repo: 'r', commit: null, bucket: '100K' }, conversations: [conversation] }));
    expect(() => loadRetrievalSet(file)).toThrow(/held-out/);
  });

  it('keeps user turns without the plan marker, timed from the session anchor', () => {
    const c = conversationFromBeam('100K/5', 'Math', chat, questions);
    expect(c.turns).toEqual([
      { id: 0, at: '2024-03-03T08:00:00.000Z', text: "I'm Dana, a nurse. I work nights" },
      { id: 2, at: '2024-03-03T08:01:00.000Z', text: 'My budget is $300.\nCan you help?' },
      { id: 4, at: '2024-03-03T08:02:00.000Z', text: 'Actually the budget is $450 now.' },
    ]);
  });

  it('maps cited assistant messages to the user turn they answered, and leaves out questions without evidence', () => {
    const c = conversationFromBeam('100K/5', 'Math', chat, questions);
    expect(c.questions.map((q) => [q.ability, q.gold, q.cited])).toEqual([
      ['information_extraction', [0], [0]],
      ['knowledge_update', [2, 4], [3, 4]],
      ['event_ordering', [0, 2, 4], [0, 2, 4]],
    ]);
  });

  it('splits a turn into sentences, each line on its own; every sentence of a gold turn is gold', () => {
    expect(sentencesOf('My budget is $300, e.g. for food. Is that OK?\n- rent\n\n...')).toEqual(['My budget is $300, e.g. for food.', 'Is that OK?', '- rent']);
    const c = conversationFromBeam('100K/5', 'Math', chat, questions);
    const short = factsOf(c, 'short');
    expect(short.map((f) => [f.key, f.content, f.committed_at])).toEqual([
      ['0.0', "I'm Dana, a nurse.", '2024-03-03T08:00:00.000Z'],
      ['0.1', 'I work nights', '2024-03-03T08:00:01.000Z'],
      ['2.0', 'My budget is $300.', '2024-03-03T08:01:00.000Z'],
      ['2.1', 'Can you help?', '2024-03-03T08:01:01.000Z'],
      ['4.0', 'Actually the budget is $450 now.', '2024-03-03T08:02:00.000Z'],
    ]);
    expect(goldKeys(c.questions[1]!, short)).toEqual(['2.0', '2.1', '4.0']);
    expect(goldKeys(c.questions[1]!, factsOf(c, 'long'))).toEqual(['2', '4']);
  });
});

describe('retrieval metrics', () => {
  it('joins conversations into one, each question\'s gold still its own conversation\'s turns', () => {
    const a = { id: 'a', category: 'Math', turns: [{ id: 0, at: '2024-01-01T00:00:00Z', text: 'I use Vim' }], questions: [{ ability: 'x', question: 'Which editor?', gold: [0], cited: [0] }] };
    const b = { id: 'b', category: 'Travel', turns: [{ id: 0, at: '2024-02-01T00:00:00Z', text: 'I fly to Oslo' }], questions: [{ ability: 'x', question: 'Where to?', gold: [0], cited: [0] }] };
    const one = oneConversation([a, b]);
    const facts = factsOf(one, 'long');
    expect(facts.map((f) => f.content)).toEqual(['I use Vim', 'I fly to Oslo']);
    expect(one.questions.map((q) => goldKeys(q, facts).map((k) => facts.find((f) => f.key === k)!.content))).toEqual([['I use Vim'], ['I fly to Oslo']]);
  });

  it('scores hits, recall of facts and of turns, and the reciprocal rank within the top k', () => {
    const gold = ['2.0', '2.1', '4.0'];
    expect(scoreRanking([['9.0'], ['2.1'], ['7.0'], ['2.0']], gold)).toEqual({ hit: 1, recall: 2 / 3, turnRecall: 1 / 2, rr: 1 / 2 });
    // One rank may hold several keys (identical facts stored once).
    expect(scoreRanking([['4.0', '8.0']], gold)).toEqual({ hit: 1, recall: 1 / 3, turnRecall: 1 / 2, rr: 1 });
    expect(scoreRanking([['1'], ['4.0']], gold, 1)).toEqual({ hit: 0, recall: 0, turnRecall: 0, rr: 0 });
    expect(scoreRanking([], gold)).toEqual({ hit: 0, recall: 0, turnRecall: 0, rr: 0 });
  });

  it('averages per question, per ability and overall', () => {
    const a = { hit: 1, recall: 1, turnRecall: 1, rr: 1 };
    const b = { hit: 0, recall: 0, turnRecall: 0, rr: 0 };
    expect(summarize([a, b, b, a])).toEqual({ questions: 4, hit: 0.5, recall: 0.5, turnRecall: 0.5, rr: 0.5 });
    const rows = byAbility([{ ability: 'x', score: a }, { ability: 'w', score: b }, { ability: 'x', score: b }]);
    expect(rows.map((r) => [r.ability, r.summary.questions, r.summary.hit])).toEqual([['w', 1, 0], ['x', 2, 0.5], ['all', 3, 1 / 3]]);
    expect(quantile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2);
  });

  it('prints both recalls for sentence facts', () => {
    const table = formatVariant('short', [{ system: 'BM25', scored: [{ ability: 'x', score: { hit: 1, recall: 0.25, turnRecall: 0.5, rr: 0.5 } }] }], true);
    expect(table).toContain('| BM25 | 1 | 100.0 | 25.0 | 50.0 | 0.500 |');
    expect(table).toContain('R@10 (sentences)');
    expect(table).toContain('| all | 1 | 100.0 / 25.0 / 50.0 / 0.500 |');
  });

  it('ranks by BM25 over stemmed words, ties in fact order, no match left out', () => {
    const rank = bm25Ranker([
      { key: 'a', content: 'We walked the dog in the park.' },
      { key: 'b', content: 'My budget for the trip is 450 dollars.' },
      { key: 'c', content: 'Budgets, budgets: the budgeting app tracks my budget.' },
      { key: 'd', content: 'The trip starts on Monday.' },
    ]);
    expect(rank('What is my budget?')).toEqual([['c'], ['b']]);
    expect(rank('When does my trip start?')).toEqual([['d'], ['b']]);
    expect(rank('the of and')).toEqual([]);
  });
});
