/**
 * `engram check`: the workspace's facts that cite code, compared with a git checkout (locally: the
 * server sends the facts, git compares, no code leaves the machine). Reports each citation as
 * unchanged, changed (with the hunk) or gone, and a cited config value that disagrees with its
 * fact; exits 1 when any did. With `--report`, tells the server: unchanged facts are recorded as
 * verified, the others raise stale questions for people.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '@engram/config';
import { citedLines, type CheckReportInput, type CheckReportOutput, type CitedFact, type CitedFactsOutput } from '@engram/core';
import { configEntries, configFormatOf, valueMismatches, type ValueMismatch } from './check-config.ts';
import { compareCitation, fileAt, git, remoteIdentity, remotesOf, repositoryRoot, type CitationState } from './check-git.ts';
import { connection, failure } from './journal.ts';

const USAGE = 'Usage: engram check [--repo DIR] [--report] [--url URL] [--token TOKEN] [--json]';

/** Results sent per report request (the server's page size). */
const REPORT_BATCH = 500;

type Citation = CitedFact['citations'][number];

/** What became of one citation, with a config value that disagrees, if any. */
interface CitationResult {
  citation: Citation;
  outcome: CitationState;
  mismatches: ValueMismatch[];
  /** Why the config could not be read (a parse error), if it could not. */
  configProblem?: string;
}

/** One fact's verdict: the worst of its citations (gone, changed, mismatch), or unchanged, or skipped. */
export interface FactCheck {
  fact: CitedFact;
  state: 'unchanged' | 'changed' | 'gone' | 'mismatch' | 'skipped';
  citations: CitationResult[];
}

/** The keys the cited lines set at the cited commit (at the working tree without one); null: the whole file. */
function citedKeys(root: string, citation: Citation, format: NonNullable<ReturnType<typeof configFormatOf>>): Set<string> | null {
  if (!citation.start_line) return null;
  const text = citation.commit ? fileAt(root, citation.commit, citation.path) : fs.readFileSync(path.join(root, citation.path), 'utf8');
  if (text === null) return null;
  const end = citation.end_line ?? citation.start_line;
  return new Set(configEntries(text, format).filter((e) => e.line !== null && e.line >= citation.start_line! && e.line <= end).map((e) => e.key));
}

/** Compares one citation with the checkout, and its config values with the fact's. */
function checkCitation(root: string, fact: CitedFact, citation: Citation): CitationResult {
  const outcome = compareCitation(root, citation);
  const result: CitationResult = { citation, outcome, mismatches: [] };
  const format = configFormatOf(citation.path);
  if (!format || outcome.state === 'gone' || outcome.state === 'skipped') return result;
  try {
    const current = configEntries(fs.readFileSync(path.join(root, citation.path), 'utf8'), format);
    result.mismatches = valueMismatches(fact.content, citedKeys(root, citation, format), current);
  } catch (error) {
    result.configProblem = `${citation.path} could not be read as ${format}: ${error instanceof Error ? error.message : String(error)}`;
  }
  return result;
}

/** Checks one fact's citations: those of another repository are skipped. */
export function checkFact(root: string, remotes: ReadonlySet<string>, fact: CitedFact): FactCheck {
  const citations = fact.citations.map((citation): CitationResult => {
    const repo = citation.repo ? remoteIdentity(citation.repo) : null;
    if (repo && remotes.size > 0 && !remotes.has(repo)) {
      return { citation, outcome: { state: 'skipped', why: `it cites another repository (${citation.repo})` }, mismatches: [] };
    }
    return checkCitation(root, fact, citation);
  });
  const has = (state: CitationState['state']) => citations.some((c) => c.outcome.state === state);
  const state = has('gone')
    ? 'gone'
    : has('changed')
      ? 'changed'
      : citations.some((c) => c.mismatches.length > 0)
        ? 'mismatch'
        : has('unchanged')
          ? 'unchanged'
          : 'skipped';
  return { fact, state, citations };
}

/** The facts that cite code, every page. */
async function fetchCitedFacts(url: string, token: string): Promise<CitedFact[]> {
  const facts: CitedFact[] = [];
  let after: string | null = null;
  do {
    const response = await fetch(`${url}/api/v1/facts/cited${after ? `?after=${after}` : ''}`, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) throw await failure(response);
    const page = (await response.json()) as CitedFactsOutput;
    facts.push(...page.facts);
    after = page.next_after;
  } while (after);
  return facts;
}

/** What the server is told about one fact (no code: where, which lines, which key, since when). */
export function reportedResult(check: FactCheck): CheckReportInput['results'][number] | null {
  if (check.state === 'skipped') return null;
  const base = { fact_id: check.fact.fact_id, state: check.state };
  if (check.state === 'unchanged') return base;
  const culprit =
    check.state === 'mismatch'
      ? check.citations.find((c) => c.mismatches.length > 0)!
      : check.citations.find((c) => c.outcome.state === check.state)!;
  const lines = citedLines(culprit.citation);
  const changedIn = 'changedIn' in culprit.outcome ? culprit.outcome.changedIn : undefined;
  return {
    ...base,
    path: culprit.citation.path,
    ...(lines ? { lines } : {}),
    ...(check.state === 'mismatch' ? { key: culprit.mismatches[0]!.key } : {}),
    ...(changedIn ? { changed_in: changedIn } : {}),
  };
}

const shortSha = (sha: string) => (sha === 'working-tree' ? 'uncommitted changes' : sha.slice(0, 12));
const quote = (text: string) => (text.length > 100 ? `${text.slice(0, 97)}...` : text);

/** The human report, one block per fact that needs attention, then the counts. */
export function describeChecks(checks: readonly FactCheck[], root: string, head: string | null): string {
  const out: string[] = [`engram check: ${checks.length} fact(s) cite code; compared with ${root}${head ? ` at ${head.slice(0, 12)}` : ''}.`, ''];
  const counts = { unchanged: 0, changed: 0, gone: 0, mismatch: 0, skipped: 0 };
  for (const check of checks) {
    counts[check.state]++;
    if (check.state === 'unchanged') continue;
    out.push(`${check.state.toUpperCase()}  ${check.fact.fact_id}  (${check.fact.scope}) "${quote(check.fact.content)}"`);
    for (const { citation, outcome, mismatches, configProblem } of check.citations) {
      const where = `${citation.path}${citedLines(citation) ? ` ${citedLines(citation)}` : ''}${citation.commit ? ` @ ${citation.commit.slice(0, 12)}` : ''}`;
      if (outcome.state === 'changed') {
        out.push(`  ${where}: changed in ${shortSha(outcome.changedIn)}`);
        for (const hunk of outcome.hunks) out.push(...hunk.text.split('\n').map((l) => `    ${l}`));
      } else if (outcome.state === 'gone') {
        out.push(`  ${where}: the file is gone (${shortSha(outcome.changedIn)})`);
      } else if (outcome.state === 'skipped') {
        out.push(`  ${where}: not checked: ${outcome.why}`);
      } else {
        out.push(`  ${where}: unchanged${outcome.now && outcome.now.start !== citation.start_line ? ` (now lines ${outcome.now.start}-${outcome.now.end})` : ''}`);
      }
      for (const m of mismatches) out.push(`    ${m.key} is ${m.configValue} in the file; the fact says ${m.factValue}`);
      if (configProblem) out.push(`    ${configProblem}`);
    }
    out.push('');
  }
  out.push(`${counts.unchanged} unchanged, ${counts.changed} changed, ${counts.gone} gone, ${counts.mismatch} config value(s) disagreeing, ${counts.skipped} not checked.`);
  return out.join('\n');
}

/** `engram check`: exits 0 when every checked citation is unchanged and agrees, 1 otherwise. */
export async function checkCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      repo: { type: 'string' },
      report: { type: 'boolean', default: false },
      url: { type: 'string' },
      token: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length > 0) throw new Error(`Unexpected argument "${positionals[0]}". ${USAGE}`);
  const root = repositoryRoot(path.resolve(values.repo ?? process.cwd()));
  const head = git(root, ['rev-parse', 'HEAD'])?.trim() || null;
  const { url, token } = connection(config, values);
  const facts = await fetchCitedFacts(url, token);
  const remotes = remotesOf(root);
  const checks = facts.map((fact) => checkFact(root, remotes, fact));

  let report: CheckReportOutput | null = null;
  if (values.report) {
    const results = checks.map(reportedResult).filter((r): r is NonNullable<typeof r> => r !== null);
    report = { verified: 0, raised: 0, already_open: 0, facts: [] };
    for (let i = 0; i < results.length; i += REPORT_BATCH) {
      const response = await fetch(`${url}/api/v1/facts/check-report`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...(head ? { commit: head } : {}), results: results.slice(i, i + REPORT_BATCH) }),
      });
      if (!response.ok) throw await failure(response);
      const answer = (await response.json()) as CheckReportOutput;
      report.verified += answer.verified;
      report.raised += answer.raised;
      report.already_open += answer.already_open;
      report.facts.push(...answer.facts);
    }
  }

  if (values.json) {
    const shown = checks.map((c) => ({
      fact_id: c.fact.fact_id,
      state: c.state,
      citations: c.citations.map((r) => ({ ...r.citation, ...r.outcome, mismatches: r.mismatches, ...(r.configProblem ? { config_problem: r.configProblem } : {}) })),
    }));
    process.stdout.write(`${JSON.stringify({ root, head, facts: shown, ...(report ? { report } : {}) }, null, 2)}\n`);
  } else {
    process.stdout.write(`${describeChecks(checks, root, head)}\n`);
    if (report) {
      process.stdout.write(`Reported: ${report.verified} verified, ${report.raised} stale question(s) raised, ${report.already_open} already asked.\n`);
    }
  }
  return checks.some((c) => c.state === 'changed' || c.state === 'gone' || c.state === 'mismatch') ? 1 : 0;
}
