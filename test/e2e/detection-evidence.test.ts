/**
 * The narrative detective's evaluation (`npm run eval:detection -- --evidence | --oracle | --live`)
 * as a test, on the dev stories inside a small workspace: every expected confusion's facts share
 * a prompt after its trigger's lone commit over MCP; a model answering exactly what it is shown
 * finds them all and nothing else; and the live path (the configured model, here the scripted
 * server standing in for it) runs and accounts its tokens. The sizes the README quotes (1,000
 * and 10,000 facts, every set) take minutes each and run from the command, not here.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureEvidence, oracleReply, type EvidenceRow } from '../eval/evidence.ts';
import { loadStories } from '../eval/stories.ts';
import { TEST_ADMIN_TOKEN } from '../support/app.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.ts';
import { startTestServer } from '../support/server.ts';

const stories = loadStories(path.join(import.meta.dirname, '../data/detection/dev-stories.json'));
const row = (rows: EvidenceRow[], kind: string) => rows.find((r) => r.kind === kind)!;

describe('the narrative detective evaluation', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    server = await startTestServer({
      inProcessWorker: true,
      openai: { apiKey: 'sk-scripted', baseUrl: fake.baseUrl, detectiveModel: 'gpt-4o-mini', detectiveStoryChars: 48_000, detectiveConcurrency: 4 },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await fake?.close();
  });
  const options = (mode: 'record' | 'oracle' | 'live') => ({ baseUrl: server.baseUrl, adminToken: TEST_ADMIN_TOKEN, mode, fake: mode === 'live' ? undefined : fake });

  it('shows every expected confusion whole in one prompt after its lone commit', { timeout: 300_000 }, async () => {
    const rows = await measureEvidence(options('record'), stories, 100);
    const all = row(rows, 'all');
    expect(all.expected).toBeGreaterThan(0);
    expect(all.shown / all.expected).toBeGreaterThanOrEqual(0.95);
    expect(all.calls).toBeGreaterThanOrEqual(stories.stories.length);
    expect(all.medianPromptTokens).toBeLessThanOrEqual(2_000);
  });

  it('finds what an oracle model is shown, per kind, and raises nothing else', { timeout: 300_000 }, async () => {
    const rows = await measureEvidence(options('oracle'), stories, 100);
    for (const kind of ['reversal', 'ambiguity', 'stale'] as const) {
      const r = row(rows, kind);
      if (r.expected === 0) continue;
      expect(r.found / r.expected, kind).toBeGreaterThanOrEqual(0.9);
    }
    const all = row(rows, 'all');
    expect(all.correctByModel).toBe(all.raisedByModel);
    // Filler is consistent by construction: no tier may flag it.
    expect(all.fillerAlarms).toBe(0);
  });

  it('runs the live path against the configured model and counts its tokens', { timeout: 300_000 }, async () => {
    fake.defaultChat = oracleReply([]);
    const small = { ...stories, stories: stories.stories.slice(0, 4) };
    const rows = await measureEvidence(options('live'), small, 20);
    expect(row(rows, 'all').promptTokens).toBeGreaterThan(0);
  });
});
