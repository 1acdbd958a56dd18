/**
 * The narrative detective's side of the evaluation (issue 17): a model can only flag what it is
 * shown, so for every expected confusion of a story set this measures whether all of its facts
 * shared one prompt — with the stories inside a realistic workspace of 100, 1,000 or 10,000 facts
 * and each story's newest fact committed over MCP as a lone commit, as a team would meet it.
 *
 * Modes:
 * - `record`: the scripted OpenAI-compatible server answers "no confusions" and records every
 *   prompt; the measure is the share of expected confusions whose facts shared a prompt.
 * - `oracle`: the scripted server answers exactly the expected confusions it was shown: the LLM
 *   path's ceiling, as precision and recall per kind (reversal, ambiguity, stale).
 * - `live`: the model configured by OPENAI_API_KEY / OPENAI_BASE_URL / ENGRAM_DETECTIVE_MODEL
 *   answers; precision, recall and tokens per kind measure the detective on a team's own key.
 */
import { cosine, MIN_NEIGHBOUR_SIMILARITY, type Embedder } from '@engram/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chatReply, promptTokensOf, storyOf, type FakeOpenAI } from '../support/fake-openai.ts';
import { generateFiller } from './filler.ts';
import type { StoriesFile, Story } from './stories.ts';

export type EvidenceMode = 'record' | 'oracle' | 'live';

export interface EvidenceOptions {
  baseUrl: string;
  adminToken: string;
  mode: EvidenceMode;
  /** The scripted server (record and oracle modes): its recorded requests are read. */
  fake?: FakeOpenAI;
  now?: Date;
  /** Called with progress lines (a long run says where it is). */
  progress?: (line: string) => void;
}

/** What the narrative detective can be asked to find, by the kind of story. */
export type NarrativeKind = 'reversal' | 'ambiguity' | 'stale';
const narrativeKind = (kind: string): NarrativeKind => (kind === 'reversal' || kind === 'stale' ? kind : 'ambiguity');

/** One expected confusion: the facts (by content) one conflict must hold, with alternatives. */
interface Expected {
  story: string;
  kind: NarrativeKind;
  /** Each entry: the contents any of which satisfies it. */
  facts: string[][];
}

export interface EvidenceRow {
  size: number;
  kind: NarrativeKind | 'all';
  expected: number;
  /** Expected confusions whose facts all shared one prompt after their trigger's commit. */
  shown: number;
  /** Expected confusions found by any conflict at the end (oracle and live modes). */
  found: number;
  /** Conflicts the narrative detective raised, and how many of them meet an expectation. */
  raisedByModel: number;
  correctByModel: number;
  /** Conflicts holding a filler fact: false alarms, since filler is consistent by construction (deterministic tiers and model alike). */
  fillerAlarms: number;
  /** Detective calls and prompt tokens over the lone commits. */
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens per lone commit (median). */
  medianPromptTokens: number;
}

async function api<T>(options: EvidenceOptions, token: string, method: string, path: string, body?: unknown): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${options.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    // A busy machine: the service says when to try again (an import retried is deduplicated by content).
    if (res.status === 503 && attempt < 5) {
      options.progress?.(`  ${method} ${path} answered 503; trying again (${attempt} of 4)`);
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 2)));
      continue;
    }
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : {}) as T;
  }
}

/** Waits until the workspace's detection queue is empty and no run is in progress (progress, not a deadline). */
async function waitForDetection(options: EvidenceOptions, token: string): Promise<void> {
  let idle = 0;
  for (;;) {
    const status = await api<{ pending_jobs: number; running_jobs: number; failed_jobs: number }>(options, token, 'GET', '/api/v1/detection/status');
    if (status.failed_jobs > 0) throw new Error(`${status.failed_jobs} detection job(s) failed`);
    // Twice idle in a row: a commit's job is enqueued in the commit's own transaction, so once seen idle it stays idle.
    idle = status.pending_jobs === 0 && status.running_jobs === 0 ? idle + 1 : 0;
    if (idle >= 2) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The story's newest fact (the trigger, committed last over MCP) and the rest (imported first). */
function split(story: Story) {
  const sorted = [...story.facts].sort((a, b) => b.age_hours - a.age_hours);
  return { older: sorted.slice(0, -1), newest: sorted.at(-1)! };
}

function expectations(file: StoriesFile): Expected[] {
  const out: Expected[] = [];
  for (const story of file.stories) {
    const content = new Map(story.facts.map((f) => [f.key, f.content]));
    for (const flag of story.expect.flag ?? []) {
      out.push({
        story: story.id,
        kind: narrativeKind(story.kind),
        facts: flag.map((k) => (typeof k === 'string' ? [content.get(k)!] : k.map((x) => content.get(x)!))),
      });
    }
  }
  return out;
}

/** Does a story (its lines) hold every fact of the expectation? */
const holds = (lines: readonly string[], e: Expected) => e.facts.every((alts) => alts.some((c) => lines.some((l) => l.endsWith(` ${JSON.stringify(c)}`))));

/** The oracle: answers, for a detective request, exactly the expected confusions its story shows. */
export function oracleReply(expected: readonly Expected[]) {
  return (body: Record<string, unknown>) => {
    const lines = storyOf(body);
    const idOf = (content: string) => /^\[([0-9a-f]+)\]/.exec(lines.find((l) => l.endsWith(` ${JSON.stringify(content)}`)) ?? '')?.[1];
    const confusions = expected
      .filter((e) => holds(lines, e))
      .map((e) => ({
        fact_ids: e.facts.map((alts) => alts.map(idOf).find((id) => id !== undefined)!),
        kind: e.kind,
        question: `Which is current in ${e.story}?`,
      }));
    return chatReply(body, JSON.stringify({ confusions }));
  };
}

const median = (xs: number[]) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};

/**
 * Runs one story set at one workspace size: a fresh workspace with the stories' older facts and
 * filler up to `size` facts, then each story's newest fact as a lone commit over MCP.
 */
export async function measureEvidence(options: EvidenceOptions, file: StoriesFile, size: number): Promise<EvidenceRow[]> {
  const now = options.now ?? new Date();
  const created = await api<{ owner_token: string }>(options, options.adminToken, 'POST', '/api/v1/admin/workspaces', { name: `evidence ${size}` });
  const token = created.owner_token;
  const setBudget = (budget: number) =>
    api(options, token, 'PATCH', '/api/v1/workspace', {
      settings: { detective_daily_token_budget: budget, commits_per_agent_per_hour: 1_000_000, requests_per_token_per_minute: 1_000_000 },
    });
  const expected = expectations(file);
  const stories = file.stories.filter((s) => s.facts.length >= 2);

  // The workspace before the lone commits: every story's older facts, and filler up to the size.
  await setBudget(0);
  const older = stories.flatMap((s) => split(s).older);
  const filler = generateFiller(Math.max(0, size - older.length - stories.length));
  const seed = [...filler, ...older];
  for (let i = 0; i < seed.length; i += 1000) {
    await api(options, token, 'POST', '/api/v1/facts/import', {
      facts: seed.slice(i, i + 1000).map((f) => ({
        content: f.content,
        scope: f.scope,
        agent_id: f.agent_id,
        committed_at: new Date(now.getTime() - f.age_hours * 3_600_000).toISOString(),
      })),
    });
    options.progress?.(`  size ${size}: imported ${Math.min(i + 1000, seed.length)} of ${seed.length}`);
  }
  await waitForDetection(options, token);
  await setBudget(2_000_000);

  if (options.mode === 'oracle' && options.fake) options.fake.defaultChat = oracleReply(expected);
  else if (options.mode === 'record' && options.fake) options.fake.defaultChat = (body) => chatReply(body, JSON.stringify({ confusions: [] }));

  const client = new Client({ name: 'engram-evidence-eval', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${options.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  const shown = new Set<Expected>();
  const perCommitTokens: number[] = [];
  let calls = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  try {
    for (const [index, story] of stories.entries()) {
      const { newest } = split(story);
      const before = options.fake?.requests.length ?? 0;
      const spentBefore = options.fake ? 0 : (await api<{ tokens_today: number }>(options, token, 'GET', '/api/v1/detection/status')).tokens_today;
      const result = await client.callTool({
        name: 'engram_commit',
        arguments: { content: newest.content, scope: newest.scope, agent_id: newest.agent_id, confidence: 0.9 },
      });
      if (result.isError) throw new Error(`engram_commit failed for ${story.id}: ${JSON.stringify(result.content)}`);
      await waitForDetection(options, token);
      if (options.fake) {
        const chats = options.fake.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'));
        const stories = chats.map((r) => storyOf(r.body));
        for (const e of expected.filter((x) => x.story === story.id)) if (stories.some((lines) => holds(lines, e))) shown.add(e);
        const tokens = chats.reduce((n, r) => n + promptTokensOf(r.body), 0);
        perCommitTokens.push(tokens);
        calls += chats.length;
        promptTokens += tokens;
      } else {
        const after = await api<{ tokens_today: number }>(options, token, 'GET', '/api/v1/detection/status');
        perCommitTokens.push(after.tokens_today - spentBefore);
      }
      if (index % 10 === 9) options.progress?.(`  size ${size}: ${index + 1} of ${stories.length} lone commits`);
    }
  } finally {
    await client.close();
  }
  if (!options.fake) {
    // Live: the service's own accounting (prompt and completion tokens of every run today).
    promptTokens = perCommitTokens.reduce((n, t) => n + t, 0);
    completionTokens = 0;
    calls = stories.length;
  }

  // What was raised: conflicts by their facts' contents (a large workspace's filler can hold hundreds: read them all).
  const limit = 5000;
  const conflicts = await api<{ groups: { conflicts: { detected_by: string; facts: { content: string }[]; facts_omitted: number }[] }[] }>(
    options,
    token,
    'GET',
    `/api/v1/conflicts?status=all&limit=${limit}`,
  );
  const listed = conflicts.groups.flatMap((g) => g.conflicts);
  if (listed.length >= limit) throw new Error(`the workspace holds ${limit} or more conflicts: the eval cannot read them all`);
  if (listed.some((c) => c.facts_omitted > 0)) options.progress?.(`  size ${size}: a conflict lists only its newest facts; an expectation on older ones may read as missed`);
  const raised = listed.map((c) => ({ byModel: c.detected_by === 'narrative_llm', contents: c.facts.map((f) => f.content) }));
  const fillerContents = new Set(filler.map((f) => f.content));
  const fillerAlarms = raised.filter((r) => r.contents.some((c) => fillerContents.has(c))).length;
  const meets = (contents: string[], e: Expected) => e.facts.every((alts) => alts.some((c) => contents.includes(c)));

  const rows: EvidenceRow[] = [];
  for (const kind of ['reversal', 'ambiguity', 'stale', 'all'] as const) {
    const mine = expected.filter((e) => kind === 'all' || e.kind === kind);
    const byModel = raised.filter((r) => r.byModel);
    const modelOfKind = kind === 'all' ? byModel : byModel.filter((r) => mine.some((e) => meets(r.contents, e)) || !expected.some((e) => meets(r.contents, e)));
    rows.push({
      size,
      kind,
      expected: mine.length,
      shown: mine.filter((e) => shown.has(e)).length,
      found: mine.filter((e) => raised.some((r) => meets(r.contents, e))).length,
      raisedByModel: kind === 'all' ? byModel.length : modelOfKind.length,
      correctByModel: (kind === 'all' ? byModel : modelOfKind).filter((r) => mine.some((e) => meets(r.contents, e))).length,
      fillerAlarms: kind === 'all' ? fillerAlarms : 0,
      calls: kind === 'all' ? calls : 0,
      promptTokens: kind === 'all' ? promptTokens : 0,
      completionTokens: kind === 'all' ? completionTokens : 0,
      medianPromptTokens: kind === 'all' ? median(perCommitTokens) : 0,
    });
  }
  return rows;
}

/** The evidence table of several sets, as `npm run eval:detection -- --evidence` prints it. */
export function formatEvidenceTable(sets: readonly { name: string; rows: readonly EvidenceRow[] }[], mode: EvidenceMode): string {
  const ratio = (n: number, d: number) => (d === 0 ? '—' : `${n}/${d} (${(n / d).toFixed(2)})`);
  const header = [
    'set',
    'facts',
    'kind',
    'facts shared a prompt',
    ...(mode === 'record' ? [] : ['recall', 'precision (model)']),
    'conflicts on filler',
    'calls',
    'tokens per lone commit (median)',
  ];
  const rows = sets.flatMap(({ name, rows: list }) =>
    list.map((r) => [
      name,
      r.size.toLocaleString('en-US'),
      r.kind,
      mode === 'live' ? '—' : ratio(r.shown, r.expected),
      ...(mode === 'record' ? [] : [ratio(r.found, r.expected), r.raisedByModel === 0 ? '—' : ratio(r.correctByModel, r.raisedByModel)]),
      r.kind === 'all' ? String(r.fillerAlarms) : '',
      r.kind === 'all' ? String(r.calls) : '',
      r.kind === 'all' ? r.medianPromptTokens.toLocaleString('en-US') : '',
    ]),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** How similar, by embedding, the facts of an expected confusion are, against unrelated facts. */
export interface NeighbourSimilarity {
  /** Cosines of every pair of facts one expected conflict must contain. */
  pairs: number[];
  /** Cosines of fact pairs from two different stories of the same set. */
  unrelated: number[];
}

/**
 * Measures what MIN_NEIGHBOUR_SIMILARITY trades: expected confusion pairs it would keep out of the
 * evidence against unrelated facts it would let in. Unrelated pairs are sampled deterministically.
 */
export async function neighbourSimilarity(embedder: Embedder, files: readonly StoriesFile[], unrelatedPerSet = 2000): Promise<NeighbourSimilarity> {
  const result: NeighbourSimilarity = { pairs: [], unrelated: [] };
  for (const file of files) {
    const facts = file.stories.flatMap((story) => story.facts.map((fact) => ({ story: story.id, key: fact.key, content: fact.content })));
    const vectors = await embedder.embed(facts.map((f) => f.content));
    const at = new Map(facts.map((f, i) => [`${f.story}\u0000${f.key}`, vectors[i]!]));
    for (const story of file.stories) {
      for (const group of story.expect.flag ?? []) {
        const keys = group.map((k) => (Array.isArray(k) ? k[0]! : k));
        for (let i = 0; i < keys.length; i++) {
          for (let j = i + 1; j < keys.length; j++) {
            const a = at.get(`${story.id}\u0000${keys[i]}`);
            const b = at.get(`${story.id}\u0000${keys[j]}`);
            if (a && b) result.pairs.push(cosine(a, b));
          }
        }
      }
    }
    for (let i = 0; i < unrelatedPerSet; i++) {
      const a = (i * 7919) % facts.length;
      const b = (i * 104_729 + 13) % facts.length;
      if (facts[a]!.story !== facts[b]!.story) result.unrelated.push(cosine(vectors[a]!, vectors[b]!));
    }
  }
  return result;
}

export function formatNeighbourSimilarity(model: string, s: NeighbourSimilarity, thresholds = [0.1, 0.15, 0.2, 0.25, 0.3]): string {
  const quantile = (xs: readonly number[], p: number) => [...xs].sort((x, y) => x - y)[Math.floor(p * (xs.length - 1))]?.toFixed(2) ?? '-';
  const share = (xs: readonly number[], keep: (x: number) => boolean) => `${((100 * xs.filter(keep).length) / Math.max(1, xs.length)).toFixed(0)}%`;
  const lines = [
    `embedding model ${model}`,
    `expected confusion pairs: ${s.pairs.length}, cosine p10 ${quantile(s.pairs, 0.1)}, p25 ${quantile(s.pairs, 0.25)}, median ${quantile(s.pairs, 0.5)}`,
    `unrelated pairs (different stories): ${s.unrelated.length}, cosine median ${quantile(s.unrelated, 0.5)}, p90 ${quantile(s.unrelated, 0.9)}, p99 ${quantile(s.unrelated, 0.99)}`,
    '',
    '| threshold | expected pairs kept | unrelated pairs let in |',
    '|---|---|---|',
    ...thresholds.map((t) => `| ${t.toFixed(2)}${t === MIN_NEIGHBOUR_SIMILARITY ? ' (used)' : ''} | ${share(s.pairs, (x) => x >= t)} | ${share(s.unrelated, (x) => x >= t)} |`),
  ];
  return lines.join('\n');
}
