/**
 * Conflict-detection stories (format of ../shared/eval/dev-stories.json) and how a detector's
 * output is scored against them. Pure: the runner gathers what the service did, this judges it.
 *
 * - flag: each entry lists fact keys one raised conflict must contain; a nested list means "at
 *   least one of these".
 * - no_flag: no conflict (any status) may contain all of the listed keys.
 * - current / retired: facts that must / must not be current afterwards.
 * - Filler facts join every story and must never be flagged.
 */
import fs from 'node:fs';
import { z } from 'zod';

const StoryFact = z.object({
  key: z.string().min(1),
  content: z.string().min(1),
  scope: z.string().min(1),
  agent_id: z.string().min(1),
  age_hours: z.number().nonnegative(),
});
export type StoryFact = z.infer<typeof StoryFact>;

const KeyOrAlternatives = z.union([z.string(), z.array(z.string()).min(1)]);

const Story = z.object({
  id: z.string().min(1),
  kind: z.string(),
  /** Where the story was distilled from (repo@commit:path#item), or "hand-written". */
  source: z.string().optional(),
  facts: z.array(StoryFact).min(1),
  expect: z
    .object({
      flag: z.array(z.array(KeyOrAlternatives).min(2)).optional(),
      no_flag: z.array(z.array(z.string()).min(2)).optional(),
      current: z.array(z.string()).optional(),
      retired: z.array(z.string()).optional(),
    })
    .strict(),
});
export type Story = z.infer<typeof Story>;

const StoriesFile = z.object({
  about: z.string().optional(),
  filler: z.array(StoryFact).default([]),
  stories: z.array(Story).min(1),
});
export type StoriesFile = z.infer<typeof StoriesFile>;

/** Reads and checks a stories file, naming what is wrong with it. */
export function loadStories(file: string): StoriesFile {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not readable JSON (${(error as Error).message})`, { cause: error });
  }
  const parsed = StoriesFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${file}: ${issue.path.join('.') || '(root)'} ${issue.message}`);
  }
  for (const story of parsed.data.stories) {
    const keys = new Set([...story.facts, ...parsed.data.filler].map((f) => f.key));
    const named = [
      ...(story.expect.flag ?? []).flat(2),
      ...(story.expect.no_flag ?? []).flat(),
      ...(story.expect.current ?? []),
      ...(story.expect.retired ?? []),
    ];
    const unknown = named.filter((k) => !keys.has(k));
    if (unknown.length) throw new Error(`${file}: story "${story.id}" expects unknown fact key(s) ${unknown.join(', ')}`);
  }
  return parsed.data;
}

/**
 * What the service did with one story: conflicts as sets of fact keys (`settled`: a settlement the
 * detector recorded, not a question it raised), and which facts are current.
 */
export interface StoryObservation {
  conflicts: { keys: string[]; kind: string; question: string; status: string; settled?: boolean }[];
  current: Set<string>;
}

export interface StoryOutcome {
  id: string;
  kind: string;
  /** Flag expectations met / expected. */
  flagged: number;
  expectedFlags: number;
  /** Conflicts that meet a flag expectation / conflicts raised. */
  truePositives: number;
  raised: number;
  violations: { no_flag: number; current: number; retired: number };
  /** Facts expected to be retired (an explicit update or a deletion request). */
  expectedRetired: number;
  /** Of those: retired by the detector, or asked about in a probable-update question. */
  settled: number;
  asked: number;
  /** Facts not expected to be retired that left the current facts with no question raised about them. */
  silentlyRetired: string[];
  /** Human-readable reasons for every miss. */
  problems: string[];
  observation: StoryObservation;
}

const matchesFlag = (keys: readonly string[], expectation: readonly (string | string[])[]) =>
  expectation.every((item) => (typeof item === 'string' ? keys.includes(item) : item.some((k) => keys.includes(k))));

/** Judges one story. */
export function scoreStory(story: Story, fillerKeys: ReadonlySet<string>, observed: StoryObservation): StoryOutcome {
  const flags = story.expect.flag ?? [];
  const retiredKeys = new Set(story.expect.retired ?? []);
  const problems: string[] = [];
  // A settlement the detector recorded is not a question raised: it is judged by what it retired.
  const raised = observed.conflicts.filter((c) => !c.settled);
  let flagged = 0;
  for (const expectation of flags) {
    if (raised.some((c) => matchesFlag(c.keys, expectation))) flagged++;
    else problems.push(`missed: no conflict contains ${JSON.stringify(expectation)}`);
  }
  // A probable-update question about a fact a later fact replaced is the update applied, by people.
  const asksAboutUpdate = (c: StoryObservation['conflicts'][number]) => c.kind === 'probable_update' && c.keys.some((k) => retiredKeys.has(k)) && !c.keys.some((k) => fillerKeys.has(k));
  let truePositives = 0;
  for (const c of raised) {
    if ((flags.some((e) => matchesFlag(c.keys, e)) || asksAboutUpdate(c)) && !c.keys.some((k) => fillerKeys.has(k))) truePositives++;
    else problems.push(`false alarm: ${c.kind} over ${c.keys.join(', ')} ("${c.question}")`);
  }
  const violations = { no_flag: 0, current: 0, retired: 0 };
  for (const keys of story.expect.no_flag ?? []) {
    if (raised.some((c) => !asksAboutUpdate(c) && keys.every((k) => c.keys.includes(k)))) {
      violations.no_flag++;
      problems.push(`no_flag violated: ${keys.join(', ')} flagged together`);
    }
  }
  for (const key of story.expect.current ?? []) {
    if (!observed.current.has(key)) {
      violations.current++;
      problems.push(`current violated: ${key} is no longer current`);
    }
  }
  let settled = 0;
  let asked = 0;
  for (const key of retiredKeys) {
    if (!observed.current.has(key)) settled++;
    else if (raised.some((c) => asksAboutUpdate(c) && c.keys.includes(key))) asked++;
    else {
      violations.retired++;
      problems.push(`retired violated: ${key} is still current and no probable-update question names it`);
    }
  }
  const questioned = new Set(raised.flatMap((c) => c.keys));
  const silentlyRetired = [...story.facts.map((f) => f.key), ...fillerKeys].filter((k) => !retiredKeys.has(k) && !observed.current.has(k) && !questioned.has(k));
  for (const key of silentlyRetired) problems.push(`retired silently: ${key} left the current facts and no question names it`);
  return {
    id: story.id,
    kind: story.kind,
    flagged,
    expectedFlags: flags.length,
    truePositives,
    raised: raised.length,
    violations,
    expectedRetired: retiredKeys.size,
    settled,
    asked,
    silentlyRetired,
    problems,
    observation: observed,
  };
}

export interface EvalSummary {
  stories: number;
  precision: number;
  recall: number;
  raised: number;
  truePositives: number;
  expectedFlags: number;
  flagged: number;
  violations: { no_flag: number; current: number; retired: number };
}

/** Precision over raised conflicts, recall over flag expectations, violations summed. */
export function summarize(outcomes: readonly StoryOutcome[]): EvalSummary {
  const sum = (f: (o: StoryOutcome) => number) => outcomes.reduce((n, o) => n + f(o), 0);
  const raised = sum((o) => o.raised);
  const truePositives = sum((o) => o.truePositives);
  const expectedFlags = sum((o) => o.expectedFlags);
  const flagged = sum((o) => o.flagged);
  return {
    stories: outcomes.length,
    precision: raised === 0 ? 1 : truePositives / raised,
    recall: expectedFlags === 0 ? 1 : flagged / expectedFlags,
    raised,
    truePositives,
    expectedFlags,
    flagged,
    violations: {
      no_flag: sum((o) => o.violations.no_flag),
      current: sum((o) => o.violations.current),
      retired: sum((o) => o.violations.retired),
    },
  };
}

/** One row of the per-kind table: a set's stories of one kind. */
export interface KindRow {
  kind: string;
  stories: number;
  expectedFlags: number;
  flagged: number;
  expectedRetired: number;
  retired: number;
  /** Expected retirements applied by a probable-update question rather than by the detector. */
  asked: number;
  /** True facts retired with nothing raised. */
  silentlyRetired: number;
  /** Raised conflicts that meet no flag expectation. */
  falseAlarms: number;
  /** no_flag and current expectations broken. */
  violations: number;
}

/** Per kind of story (and "all"): confusions found, retirements done, false alarms. */
export function byKind(outcomes: readonly StoryOutcome[]): KindRow[] {
  const rows = new Map<string, KindRow>();
  const add = (kind: string, o: StoryOutcome) => {
    const row = rows.get(kind) ?? { kind, stories: 0, expectedFlags: 0, flagged: 0, expectedRetired: 0, retired: 0, asked: 0, silentlyRetired: 0, falseAlarms: 0, violations: 0 };
    row.stories++;
    row.expectedFlags += o.expectedFlags;
    row.flagged += o.flagged;
    row.expectedRetired += o.expectedRetired;
    row.retired += o.settled + o.asked;
    row.asked += o.asked;
    row.silentlyRetired += o.silentlyRetired.length;
    row.falseAlarms += o.raised - o.truePositives;
    row.violations += o.violations.no_flag + o.violations.current;
    rows.set(kind, row);
  };
  for (const o of outcomes) {
    add(o.kind, o);
    add('all', o);
  }
  return [...rows.values()].sort((a, b) => (a.kind === 'all' ? 1 : b.kind === 'all' ? -1 : a.kind.localeCompare(b.kind)));
}

/** The per-kind table of several sets, as `npm run eval:detection` prints it. */
export function formatKindTable(sets: readonly { name: string; outcomes: readonly StoryOutcome[]; totalsOnly?: boolean }[]): string {
  const header = ['set', 'kind', 'stories', 'confusions found', 'updates applied (asked)', 'true facts retired silently', 'false alarms', 'other violations'];
  const ratio = (n: number, d: number) => (d === 0 ? '—' : `${n}/${d} (${(n / d).toFixed(2)})`);
  const rows = sets.flatMap(({ name, outcomes, totalsOnly }) =>
    byKind(outcomes).filter((r) => !totalsOnly || r.kind === 'all').map((r) => [
      name,
      r.kind,
      String(r.stories),
      ratio(r.flagged, r.expectedFlags),
      r.expectedRetired === 0 ? '—' : `${ratio(r.retired, r.expectedRetired)} (${r.asked})`,
      String(r.silentlyRetired),
      String(r.falseAlarms),
      String(r.violations),
    ]),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Totals and the problems of the stories that missed, without the per-story table. */
export function formatProblems(outcomes: readonly StoryOutcome[], summary: EvalSummary): string {
  const details = outcomes.flatMap((o) => o.problems.map((p) => `  ${o.id}: ${p}`));
  return [
    `precision ${summary.precision.toFixed(3)} (${summary.truePositives}/${summary.raised}), recall ${summary.recall.toFixed(3)} (${summary.flagged}/${summary.expectedFlags}), violated no_flag ${summary.violations.no_flag}, current ${summary.violations.current}, retired ${summary.violations.retired}`,
    ...details,
  ].join('\n');
}

/** The per-story table and the totals, as printed by `npm run eval:detection`. */
export function formatReport(outcomes: readonly StoryOutcome[], summary: EvalSummary): string {
  const rows = outcomes.map((o) => {
    const v = o.violations.no_flag + o.violations.current + o.violations.retired;
    const ok = o.problems.length === 0 ? 'ok' : 'MISS';
    return [o.id, o.kind, `${o.flagged}/${o.expectedFlags}`, `${o.truePositives}/${o.raised}`, String(v), ok];
  });
  const header = ['story', 'kind', 'flagged', 'correct/raised', 'violations', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const details = outcomes.flatMap((o) => o.problems.map((p) => `  ${o.id}: ${p}`));
  return [
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    `precision ${summary.precision.toFixed(3)} (${summary.truePositives}/${summary.raised} raised conflicts correct)`,
    `recall    ${summary.recall.toFixed(3)} (${summary.flagged}/${summary.expectedFlags} expected flags found)`,
    `violated  no_flag ${summary.violations.no_flag}, current ${summary.violations.current}, retired ${summary.violations.retired}`,
    ...(details.length ? ['', 'Problems:', ...details] : []),
  ].join('\n');
}
