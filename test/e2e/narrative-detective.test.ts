/**
 * The narrative detective as a team meets it: the service started with OPENAI_API_KEY and
 * OPENAI_BASE_URL (a local server speaking the OpenAI wire format), commits over MCP, the
 * in-process worker running both passes, and what the detective found through engram_conflicts,
 * engram_status and /api/v1/detection/status.
 */
import type { CommitOutput, ConflictsOutput } from '@engram/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatReply, startFakeOpenAI, storyOf, type FakeOpenAI } from '../support/fake-openai.ts';
import { connectMcp, isolatedServerEngines, mustCall, provisionOverHttp, startTestServer } from '../support/mcp.ts';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(isolatedServerEngines())('narrative detective end to end on $name', (engine) => {
  let server: Server;
  let openai: FakeOpenAI;
  let cleanup = async () => {};
  let client: Client | undefined;

  beforeAll(async () => {
    openai = await startFakeOpenAI();
    const prepared = await engine.prepare();
    cleanup = () => prepared.cleanup();
    server = await startTestServer({
      ...prepared.overrides,
      inProcessWorker: true,
      openai: { apiKey: 'sk-test-key', baseUrl: openai.baseUrl, detectiveModel: 'gpt-4o-mini', detectiveStoryChars: 48_000, detectiveConcurrency: 4 },
    });
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
    await cleanup();
    await openai?.close();
  });

  it('flags what only meaning reveals, and reports its cost', async () => {
    const created = await provisionOverHttp(server.baseUrl);
    client = await connectMcp(`${server.baseUrl}/mcp`, created.owner_token);
    const rest = async <T>(path: string) =>
      (await (await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${created.owner_token}` } })).json()) as T;

    // The detective answers like a model would: it finds the two facts in the story by their text.
    openai.defaultChat = (body) => {
      const lines = storyOf(body);
      const id = (text: string) => /^\[([0-9a-f]+)\]/.exec(lines.find((l) => l.includes(text)) ?? '')?.[1];
      const all = id('All backend services'), search = id('search service');
      return chatReply(
        body,
        JSON.stringify({
          confusions:
            all && search
              ? [{ fact_ids: [all, search], kind: 'ambiguity', question: 'Does the search service log in JSON like all other backend services?' }]
              : [],
        }),
      );
    };
    const commit = (content: string, agent: string) =>
      mustCall<CommitOutput>(client!, 'engram_commit', { content, scope: 'backend', confidence: 0.9, agent_id: agent });
    const a = await commit('All backend services log structured JSON to stdout.', 'agent-a');
    const b = await commit('The search service writes plain-text logs to /var/log/search.log.', 'agent-b');

    const deadline = Date.now() + 30_000;
    let status: Record<string, unknown> & { recent_runs: Record<string, unknown>[] };
    for (;;) {
      status = await rest('/api/v1/detection/status');
      if (status.pending_jobs === 0 && status.running_jobs === 0 && Number(status.runs_total) > 0) break;
      if (Date.now() > deadline) throw new Error(`detection did not finish: ${JSON.stringify(status)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toMatchObject({ llm_enabled: true, model: 'gpt-4o-mini', narrative_state: 'on', daily_token_budget: 2_000_000 });
    expect(status.tokens_today).toBeGreaterThan(0);
    expect(status.recent_runs[0]).toMatchObject({ status: 'succeeded', narrative: 'ran', conflicts_raised: 1, failed_batches: 0 });
    expect(Number(status.recent_runs[0]!.prompt_tokens)).toBeGreaterThan(0);

    const found = await mustCall<ConflictsOutput>(client, 'engram_conflicts', {});
    expect(found.total).toBe(1);
    const conflict = found.groups[0]!.conflicts[0]!;
    expect(conflict).toMatchObject({ kind: 'ambiguity', detected_by: 'narrative_llm' });
    expect(conflict.question).toMatch(/search service log in JSON/);
    expect(conflict.facts.map((f) => f.fact_id).sort()).toEqual([a.fact_id, b.fact_id].sort());

    const engramStatus = await mustCall<{ detective: { narrative: string; model: string } }>(client, 'engram_status', {});
    expect(engramStatus.detective).toMatchObject({ narrative: 'on', model: 'gpt-4o-mini' });

    // An owner lowers the daily budget below what was spent today: the pass pauses, and says so.
    const patched = await fetch(`${server.baseUrl}/api/v1/workspace`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${created.owner_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ settings: { detective_daily_token_budget: 100 } }),
    });
    expect(patched.status).toBe(200);
    const paused = await mustCall<{ detective: { narrative: string; note: string } }>(client, 'engram_status', {});
    expect(paused.detective.narrative).toBe('paused');
    expect(paused.detective.note).toMatch(/of its 100 daily detective tokens/);
    expect(await rest('/api/v1/detection/status')).toMatchObject({ narrative_state: 'paused', daily_token_budget: 100 });
  });
});
