/**
 * The full-text half of retrieval (engram_text_candidates, migrations 0018, 0022, 0023 and 0024): a fact holding some of a question's words is found, rarer words weigh more, a long
 * fact holding a word in passing weighs less than a short one about it (BM25), a fact holding the
 * question's words together more than one holding them apart, and facts are ranked
 * before the depth is cut, on both databases. Vectors are left out (no embedding) so only the
 * words decide.
 */
import { LOCAL_EMBEDDING_MODEL, provisionWorkspace } from '@engram/core';
import { forWorkspace, hybridCandidates, insertFacts, type RetrievalFilters } from '@engram/db';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../support/app.ts';
import { databaseSuite, testDatabases } from '../support/databases.ts';
import { newFact } from '../support/new-fact.ts';

const FILTERS: RetrievalFilters = { model: LOCAL_EMBEDDING_MODEL, includeEphemeral: false, window: { kind: 'current' }, depth: 5 };

describe.each(testDatabases())('full-text retrieval on $name', (engine) => {
  const suite = databaseSuite(engine);

  async function workspaceOf(contents: string[]) {
    const { workspaceId } = await provisionWorkspace(suite.handle.db, TEST_SECRET, {});
    const tenant = forWorkspace(suite.handle.db, workspaceId);
    const facts = contents.map((content) => newFact(content, { scope: 'billing' }));
    for (let from = 0; from < facts.length; from += 250) {
      await insertFacts(tenant, facts.slice(from, from + 250).map((fact) => ({ fact, options: { closeLineageId: null, detectionReason: null } })));
    }
    const search = async (topic: string) => (await hybridCandidates(tenant, { ...FILTERS, topic, embedding: null })).map((c) => c.content);
    return { search };
  }

  it('finds a fact that holds some of a question’s words, not only one that holds them all', async () => {
    const { search } = await workspaceOf([
      'Failed billing charges are retried from the SQS queue billing-retries',
      'The dashboard is built with Vite',
    ]);
    expect(await search('Which queue does the billing service use for retrying failed charges?')).toEqual([
      'Failed billing charges are retried from the SQS queue billing-retries',
    ]);
    expect(await search('what did we decide about the weather')).toEqual([]);
  });

  it('weighs a rare word above a common one, and ranks every match before keeping the best', async () => {
    const common = Array.from({ length: 300 }, (_, n) => `The billing service runs job number ${n} every night`);
    const { search } = await workspaceOf([
      ...common,
      'Invoices are rendered by a Kafka consumer',
      'The billing service publishes invoice events to Kafka topic invoices.v2',
    ]);
    // Both Kafka facts first, the one holding more of the question's words ahead, although they
    // were stored last: the word three hundred facts share weighs little.
    const found = await search('billing service kafka topic');
    expect(found.slice(0, 2)).toEqual([
      'The billing service publishes invoice events to Kafka topic invoices.v2',
      'Invoices are rendered by a Kafka consumer',
    ]);
    expect(found).toHaveLength(FILTERS.depth);
    // Asked only in common words, the facts holding all of them still come first.
    const nightly = await search('nightly billing service job, unheard-of words');
    expect(nightly).toHaveLength(FILTERS.depth);
    expect(nightly.every((c) => /billing service runs job/.test(c))).toBe(true);
  });

  it('ranks a short fact about a word above a long one that holds it in passing with a word nearly every fact holds', async () => {
    const common = Array.from({ length: 200 }, (_, n) => `The billing service runs job number ${n} every night`);
    const passing =
      'The billing service has a long history: it began as a cron script, moved to a monolith, gained invoices, refunds, ' +
      'dunning, tax rules, coupons, proration, audit exports and a ledger, and among many other things it also reads Kafka';
    const { search } = await workspaceOf([...common, passing, 'Kafka consumers belong to the platform team']);
    // Summing the words' weights put the long fact first (it holds both words); "billing" is in
    // nearly every fact, so it tells nothing, and the long fact names Kafka once among forty words.
    const found = await search('kafka billing');
    expect(found.slice(0, 2)).toEqual(['Kafka consumers belong to the platform team', passing]);
  });

  it('ranks a fact holding the question’s words together above one holding them apart', async () => {
    const apart = 'An export that has failed is retried';
    const together = 'Failed exports are written to the audit log by the nightly retry job, which also opens a ticket for the on-call engineer';
    const { search } = await workspaceOf([apart, together, 'The dashboard is built with Vite']);
    // Both hold "failed" and "export"; only the second, though longer, says "failed exports", as asked.
    expect((await search('where do failed exports go')).slice(0, 2)).toEqual([together, apart]);
  });

  it('in a large workspace, finds facts holding some of the question’s words when too few hold them all (migration 0024)', async () => {
    // 1,500 facts make a workspace large (EXACT_SEARCH_LIMIT); "billing" and "service" are in 1,500 of them.
    const common = Array.from({ length: 1500 }, (_, n) => `The billing service runs job number ${n} every night`);
    const { search } = await workspaceOf([...common, 'Failed billing charges are retried from the SQS queue billing-retries', 'The dashboard is built with Vite']);
    // No fact holds every word of the question: the one holding its rare words is found, first.
    expect((await search('Which queue does the billing service use for retrying failed charges?'))[0]).toBe('Failed billing charges are retried from the SQS queue billing-retries');
    // A word most facts hold finds nothing by itself; enough facts holding every word are answered as before.
    expect(await search('billing weather')).toEqual([]);
    const nightly = await search('billing service job');
    expect(nightly).toHaveLength(FILTERS.depth);
    expect(nightly.every((c) => /billing service runs job/.test(c))).toBe(true);
  });
});
