/**
 * Runs stories against a live Engram service over its HTTP API, the way a team would meet them:
 * a fresh workspace per story (provisioned with the operator token), the story's facts and the
 * filler imported with `committed_at = now - age_hours`, detection left to the service's own
 * workers, then the conflicts and the facts' windows read back.
 */
import { scoreStory, type StoriesFile, type Story, type StoryObservation, type StoryOutcome } from './stories.ts';

export interface RunnerOptions {
  baseUrl: string;
  adminToken: string;
  /** Stories run at once (each in its own workspace). */
  concurrency?: number;
  /** Longest wait for a story's detection to finish. */
  timeoutMs?: number;
  now?: Date;
}

/** One call to the server's HTTP API; a non-2xx answer throws with its body. */
export async function call<T>(options: { baseUrl: string }, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${options.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
  return (res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text) as T;
}

interface DetectionStatus {
  pending_jobs: number;
  running_jobs: number;
  failed_jobs: number;
}

interface ConflictsBody {
  groups: { conflicts: { kind: string; question: string; status: string; resolution_type: string | null; facts: { fact_id: string }[] }[] }[];
}

/** Imports one story into a fresh workspace, waits for detection, and reads back what happened. */
export async function observeStory(options: RunnerOptions, story: Story, file: StoriesFile): Promise<StoryObservation> {
  const now = options.now ?? new Date();
  const workspace = await call<{ owner_token: string }>(options, options.adminToken, 'POST', '/api/v1/admin/workspaces', {
    name: `eval ${story.id}`,
  });
  const token = workspace.owner_token;
  const facts = [...story.facts, ...file.filler];
  const imported = await call<{ facts: { id: string }[] }>(options, token, 'POST', '/api/v1/facts/import', {
    facts: facts.map((f) => ({
      content: f.content,
      scope: f.scope,
      agent_id: f.agent_id,
      committed_at: new Date(now.getTime() - f.age_hours * 3_600_000).toISOString(),
    })),
  });
  // Two keys may name one fact (an exact duplicate or a corroboration): a fact maps to all its keys.
  const keysOf = new Map<string, string[]>();
  imported.facts.forEach((f, i) => keysOf.set(f.id, [...(keysOf.get(f.id) ?? []), facts[i]!.key]));

  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const status = await call<DetectionStatus>(options, token, 'GET', '/api/v1/detection/status');
    if (status.pending_jobs === 0 && status.running_jobs === 0) {
      if (status.failed_jobs > 0) throw new Error(`story ${story.id}: ${status.failed_jobs} detection job(s) failed`);
      break;
    }
    if (Date.now() > deadline) {
      throw new Error(`story ${story.id}: detection did not finish in time (${JSON.stringify(status)}); is a worker running?`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  const conflicts = await call<ConflictsBody>(options, token, 'GET', '/api/v1/conflicts?status=all');
  const journal = await call<string>(options, token, 'GET', '/api/v1/facts/since');
  const current = new Set<string>();
  for (const line of journal.split('\n').filter(Boolean)) {
    const entry = JSON.parse(line) as { id: string; valid_until: string | null };
    if (entry.valid_until === null) for (const key of keysOf.get(entry.id) ?? []) current.add(key);
  }
  return {
    conflicts: conflicts.groups
      .flatMap((g) => g.conflicts)
      .map((c) => ({
        keys: [...new Set(c.facts.flatMap((f) => keysOf.get(f.fact_id) ?? [`?${f.fact_id}`]))].sort(),
        kind: c.kind,
        question: c.question,
        status: c.status,
        settled: c.resolution_type === 'detector',
      })),
    current,
  };
}

/** Runs every story of a file and scores each. */
export async function runStories(options: RunnerOptions, file: StoriesFile): Promise<StoryOutcome[]> {
  const fillerKeys = new Set(file.filler.map((f) => f.key));
  const outcomes: StoryOutcome[] = new Array<StoryOutcome>(file.stories.length);
  let next = 0;
  const lane = async () => {
    while (next < file.stories.length) {
      const i = next++;
      const story = file.stories[i]!;
      outcomes[i] = scoreStory(story, fillerKeys, await observeStory(options, story, file));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, lane));
  return outcomes;
}
