/**
 * False alarms at scale: a workspace of N consistent filler facts (see filler.ts: consistent by
 * construction, so any conflict over filler is a false alarm and any filler fact retired is a true
 * fact lost), imported over HTTP as a team's history, detection left to the service's worker.
 * Reports conflicts per 1,000 facts, filler facts retired with nothing raised, and a sample of each.
 */
import { generateFiller } from './filler.ts';
import { call } from './runner.ts';

export interface ScaleOptions {
  baseUrl: string;
  adminToken: string;
  timeoutMs?: number;
  now?: Date;
}

export interface ScaleResult {
  facts: number;
  /** Conflicts raised over filler (every one is false), and per 1,000 facts. */
  falseAlarms: number;
  perThousand: number;
  byKind: Record<string, number>;
  /** Filler facts no longer current with no question naming them (settled by the detector, wrongly). */
  retiredSilently: number;
  /** Filler facts retired in all (a probable-update question names some). */
  retired: number;
  samples: { conflicts: string[]; retired: string[] };
  seconds: number;
}

/** Facts per import request (the API takes at most 1,000). */
const IMPORT_BATCH = 500;

interface ConflictsBody {
  groups: { conflicts: { kind: string; question: string; resolution_type: string | null; facts: { fact_id: string; content: string }[] }[] }[];
}

/** Imports `size` filler facts into a fresh workspace, waits for detection, and counts what it raised and retired. */
export async function measureScale(options: ScaleOptions, size: number, progress: (line: string) => void = () => {}): Promise<ScaleResult> {
  const started = performance.now();
  const now = options.now ?? new Date();
  const { owner_token: token } = await call<{ owner_token: string }>(options, options.adminToken, 'POST', '/api/v1/admin/workspaces', { name: `scale ${size}` });
  const filler = generateFiller(size);
  for (let at = 0; at < filler.length; at += IMPORT_BATCH) {
    const batch = filler.slice(at, at + IMPORT_BATCH);
    await call(options, token, 'POST', '/api/v1/facts/import', {
      facts: batch.map((f) => ({ content: f.content, scope: f.scope, agent_id: f.agent_id, committed_at: new Date(now.getTime() - f.age_hours * 3_600_000).toISOString() })),
    });
    progress(`imported ${Math.min(at + IMPORT_BATCH, filler.length)}/${filler.length}`);
  }
  const deadline = Date.now() + (options.timeoutMs ?? 30 * 60_000);
  for (;;) {
    const status = await call<{ pending_jobs: number; running_jobs: number; failed_jobs: number }>(options, token, 'GET', '/api/v1/detection/status');
    if (status.pending_jobs === 0 && status.running_jobs === 0) {
      if (status.failed_jobs > 0) throw new Error(`${status.failed_jobs} detection job(s) failed at ${size} facts`);
      break;
    }
    if (Date.now() > deadline) throw new Error(`detection did not finish at ${size} facts (${JSON.stringify(status)})`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const body = await call<ConflictsBody>(options, token, 'GET', '/api/v1/conflicts?status=all&limit=5000');
  const conflicts = body.groups.flatMap((g) => g.conflicts);
  const raised = conflicts.filter((c) => c.resolution_type !== 'detector');
  const journal = await call<string>(options, token, 'GET', '/api/v1/facts/since');
  const retired = journal
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; content: string; valid_until: string | null })
    .filter((f) => f.valid_until !== null);
  const questioned = new Set(raised.flatMap((c) => c.facts.map((f) => f.fact_id)));
  const silent = retired.filter((f) => !questioned.has(f.id));
  const byKind: Record<string, number> = {};
  for (const c of raised) byKind[c.kind] = (byKind[c.kind] ?? 0) + 1;
  const clip = (t: string) => (t.length > 110 ? `${t.slice(0, 107)}…` : t);
  return {
    facts: size,
    falseAlarms: raised.length,
    perThousand: (raised.length * 1000) / size,
    byKind,
    retiredSilently: silent.length,
    retired: retired.length,
    samples: {
      conflicts: raised.slice(0, 5).map((c) => `${c.kind}: ${c.facts.map((f) => `"${clip(f.content)}"`).join(' / ')}`),
      retired: silent.slice(0, 5).map((f) => `"${clip(f.content)}"`),
    },
    seconds: (performance.now() - started) / 1000,
  };
}

/** The scale table, with samples under it. */
export function formatScale(results: readonly ScaleResult[]): string {
  const header = '| consistent facts | false alarms | per 1,000 facts | by kind | filler retired with nothing raised | filler retired in all | seconds |';
  const rows = results.map(
    (r) =>
      `| ${r.facts.toLocaleString('en-US')} | ${r.falseAlarms} | ${r.perThousand.toFixed(2)} | ${Object.entries(r.byKind).map(([k, n]) => `${k} ${n}`).join(', ') || '—'} | ${r.retiredSilently} | ${r.retired} | ${r.seconds.toFixed(0)} |`,
  );
  const samples = results.flatMap((r) => [
    ...(r.samples.conflicts.length ? [`  ${r.facts} facts, false alarms (sample):`, ...r.samples.conflicts.map((s) => `    ${s}`)] : []),
    ...(r.samples.retired.length ? [`  ${r.facts} facts, retired with nothing raised (sample):`, ...r.samples.retired.map((s) => `    ${s}`)] : []),
  ]);
  return [header, '| --- | --- | --- | --- | --- | --- | --- |', ...rows, ...(samples.length ? ['', ...samples] : [])].join('\n');
}
