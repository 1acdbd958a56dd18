/**
 * What `engram check` asks git, locally: whether a cited range of lines at its commit is the same
 * in the working tree, and if not, the hunks that touch it and the commit that changed it. Nothing
 * read here leaves the machine.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { remoteHostPath } from '@engram/core';

/** Most bytes of output one git command may print (a diff of one file, a file's contents). */
const GIT_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Runs git in `repo`; null when it fails (an unknown commit, a path not in it). */
export function git(repo: string, args: readonly string[]): string | null {
  try {
    return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: GIT_OUTPUT_BYTES });
  } catch {
    return null;
  }
}

/** The top of the checkout holding `dir`, or an error that says what to change. */
export function repositoryRoot(dir: string): string {
  const root = git(dir, ['rev-parse', '--show-toplevel'])?.trim();
  if (!root) throw new Error(`${dir} is not inside a git checkout: run engram check in your repository, or pass --repo DIR`);
  return root;
}

/** `host/owner/repo` of a remote URL (https, ssh or scp-like), lowercased, without `.git`. */
export function remoteIdentity(url: string): string | null {
  const remote = remoteHostPath(url);
  return remote ? `${remote.host}/${remote.path}`.toLowerCase() : null;
}

/** The identities of the checkout's remotes. */
export function remotesOf(root: string): Set<string> {
  const names = (git(root, ['remote']) ?? '').split('\n').filter(Boolean);
  const ids = names.map((n) => git(root, ['remote', 'get-url', n])?.trim()).map((u) => (u ? remoteIdentity(u) : null));
  return new Set(ids.filter((id): id is string => id !== null));
}

/** One hunk of a zero-context diff: lines `oldStart..` (count `oldCount`) became `newCount` lines. */
export interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  text: string;
}

/** The hunks of `git diff -U0` output, each with its header and lines. */
export function parseHunks(diff: string): Hunk[] {
  const hunks: Hunk[] = [];
  let current: Hunk | null = null;
  for (const line of diff.split('\n')) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (header) {
      current = {
        oldStart: Number(header[1]),
        oldCount: header[2] === undefined ? 1 : Number(header[2]),
        newStart: Number(header[3]),
        newCount: header[4] === undefined ? 1 : Number(header[4]),
        text: line,
      };
      hunks.push(current);
    } else if (current && (line.startsWith('+') || line.startsWith('-') || line.startsWith('\\'))) {
      current.text += `\n${line}`;
    }
  }
  return hunks;
}

/**
 * Does the hunk change a line of [start, end] (old numbering)? A deletion or replacement touches
 * the lines it removes; an insertion (no old lines, placed after `oldStart`) touches the range
 * when it lands between two of its lines.
 */
export function touches(h: Hunk, start: number, end: number): boolean {
  if (h.oldCount === 0) return h.oldStart >= start && h.oldStart < end;
  return h.oldStart <= end && h.oldStart + h.oldCount - 1 >= start;
}

/** Where line `line` (old numbering, untouched) is now: shifted by the hunks above it. */
export function shifted(hunks: readonly Hunk[], line: number): number {
  let delta = 0;
  for (const h of hunks) {
    const lastOld = h.oldCount === 0 ? h.oldStart : h.oldStart + h.oldCount - 1;
    if (lastOld < line) delta += h.newCount - h.oldCount;
  }
  return line + delta;
}

/** What became of one citation in this checkout. */
export type CitationState =
  | { state: 'unchanged'; now?: { start: number; end: number } }
  | { state: 'changed'; hunks: Hunk[]; changedIn: string }
  | { state: 'gone'; changedIn: string }
  | { state: 'skipped'; why: string };

/** The latest commit after `since` that touched `file`, or `working-tree` when only uncommitted edits did. */
function changedIn(root: string, since: string, file: string, committed: boolean): string {
  if (!committed) return 'working-tree';
  return git(root, ['log', '-1', '--format=%H', `${since}..HEAD`, '--', file])?.trim() || 'working-tree';
}

/** Does a path stay inside the checkout (no symlink or `..` tricks outside it)? */
function inside(root: string, file: string): boolean {
  const resolved = path.resolve(root, file);
  return resolved === root || resolved.startsWith(`${root}${path.sep}`);
}

/**
 * Compares a cited range at its commit with the working tree. Without a commit there is nothing to
 * compare lines with: only whether the file is still there.
 */
export function compareCitation(root: string, citation: { path: string; start_line?: number; end_line?: number; commit?: string }): CitationState {
  const file = citation.path;
  if (!inside(root, file)) return { state: 'skipped', why: 'the path leads outside the checkout' };
  const exists = fs.existsSync(path.join(root, file));
  if (!citation.commit) return exists ? { state: 'unchanged' } : { state: 'gone', changedIn: 'working-tree' };
  const commit = citation.commit;
  if (git(root, ['cat-file', '-e', `${commit}^{commit}`]) === null) {
    return { state: 'skipped', why: `commit ${commit.slice(0, 12)} is not in this clone (a shallow clone? fetch the full history, e.g. fetch-depth: 0)` };
  }
  if (git(root, ['cat-file', '-e', `${commit}:${file}`]) === null) {
    return { state: 'skipped', why: `${file} is not in commit ${commit.slice(0, 12)}` };
  }
  if (!exists) {
    const deletedInHead = git(root, ['cat-file', '-e', `HEAD:${file}`]) === null;
    return { state: 'gone', changedIn: changedIn(root, commit, file, deletedInHead) };
  }
  const hunks = parseHunks(git(root, ['diff', '--no-ext-diff', '--no-color', '-U0', commit, '--', file]) ?? '');
  const start = citation.start_line ?? 1;
  const end = citation.start_line ? (citation.end_line ?? citation.start_line) : Number.MAX_SAFE_INTEGER;
  const touching = hunks.filter((h) => touches(h, start, end));
  if (touching.length === 0) {
    return citation.start_line ? { state: 'unchanged', now: { start: shifted(hunks, start), end: shifted(hunks, end) } } : { state: 'unchanged' };
  }
  // Committed when HEAD already differs from the cited commit in those lines.
  const committed = parseHunks(git(root, ['diff', '--no-ext-diff', '--no-color', '-U0', commit, 'HEAD', '--', file]) ?? '').some((h) => touches(h, start, end));
  return { state: 'changed', hunks: touching, changedIn: changedIn(root, commit, file, committed) };
}

/** The file as it was at `commit` (null when it was not there). */
export function fileAt(root: string, commit: string, file: string): string | null {
  return git(root, ['show', `${commit}:${file}`]);
}
