/** OpenAI embeddings through the real `openai` SDK, against a local server speaking its wire format. */
import type { CommitOutput, QueryOutput } from '@engram/core';
import { facts, forWorkspace } from '@engram/db';
import { eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.ts';
import { connectMcp, mustCall, startTestServer } from '../support/mcp.ts';
import { createEmbedder, reembedFacts } from '@engram/core';

describe('OpenAI embeddings', () => {
  let openai: FakeOpenAI;
  let server: Awaited<ReturnType<typeof startTestServer>>;

  beforeAll(async () => {
    openai = await startFakeOpenAI();
    server = await startTestServer({
      openai: { apiKey: 'sk-test-key', baseUrl: openai.baseUrl, detectiveModel: 'gpt-4o-mini', detectiveStoryChars: 48_000, detectiveConcurrency: 4 },
      embeddings: { provider: 'openai', model: 'text-embedding-3-small' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await openai?.close();
  });

  it('embeds commits and queries with text-embedding-3-small at 512 dimensions', async () => {
    const client = await connectMcp(`${server.baseUrl}/mcp`, server.local!.owner_token);
    try {
      const committed = await mustCall<CommitOutput>(client, 'engram_commit', {
        content: 'The checkout service retries card payments 3 times',
        scope: 'checkout',
        confidence: 1,
      });
      const request = openai.requests.find((r) => r.path === '/v1/embeddings');
      expect(request?.body).toMatchObject({ model: 'text-embedding-3-small', dimensions: 512, input: ['The checkout service retries card payments 3 times'] });
      expect(request?.headers.authorization).toBe('Bearer sk-test-key');

      const tenant = forWorkspace(server.db.db, server.local!.workspace_id);
      const [row] = await tenant.select(facts, eq(facts.id, committed.fact_id!));
      expect(row?.embeddingModel).toBe('openai/text-embedding-3-small@512');
      expect(row?.embedding).toHaveLength(512);

      const found = await mustCall<QueryOutput>(client, 'engram_query', { topic: 'checkout card payment retries' });
      expect(found.results[0]?.fact_id).toBe(committed.fact_id);
      expect(openai.requests.filter((r) => r.path === '/v1/embeddings').length).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close();
    }
  });

  it('stores a fact even when the embedding service fails, and re-embeds it later', async () => {
    const client = await connectMcp(`${server.baseUrl}/mcp`, server.local!.owner_token);
    try {
      // The SDK retries twice: three failures in a row make the call fail.
      for (let i = 0; i < 3; i++) openai.embeddingReplies.push({ status: 500, body: { error: { message: 'overloaded' } } });
      const committed = await mustCall<CommitOutput>(client, 'engram_commit', {
        content: 'Refunds are processed by the nightly batch',
        scope: 'payments',
        confidence: 1,
      });
      expect(committed.duplicate).toBe(false);
      const tenant = forWorkspace(server.db.db, server.local!.workspace_id);
      const [row] = await tenant.select(facts, eq(facts.id, committed.fact_id!));
      expect(row).toMatchObject({ embedding: null, embeddingModel: null });

      // Full text still finds it.
      const found = await mustCall<QueryOutput>(client, 'engram_query', { topic: 'refunds nightly batch' });
      expect(found.results.map((r) => r.fact_id)).toContain(committed.fact_id);

      const embedder = createEmbedder({
        openai: { apiKey: 'sk-test-key', baseUrl: openai.baseUrl },
        embeddings: { provider: 'openai', model: 'text-embedding-3-small' },
      });
      expect(await reembedFacts(server.db.db, embedder)).toBeGreaterThanOrEqual(1);
      expect(await tenant.select(facts, isNull(facts.embedding))).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
