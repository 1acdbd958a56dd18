/**
 * Citations (issue 57): the places in the code a fact was verified against. Validated once at the
 * boundary (commit, import), stored with the fact, and shown wherever the fact is, with a link to
 * the file at the cited commit when the repository is on a forge we know.
 */
import type { FactCitation } from '@engram/db';
import { z } from 'zod';
import type { ShownCitation } from '../responses.ts';

/** Most citations one fact carries: enough for a claim spread over a few files, not a whole tree. */
export const MAX_CITATIONS = 10;
/** Longest cited path; repository paths are far shorter. */
const MAX_PATH_LENGTH = 500;

/** A commit sha, abbreviated (7) up to full (40). */
export const COMMIT_SHA = /^[0-9a-f]{7,40}$/;

/** A remote as git prints it: a URL (https, ssh, git) or scp-like `user@host:owner/repo.git`. */
const REMOTE_URL = /^(?:(?:https?|ssh|git):\/\/[^\s/]+(?:\/\S*)?|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:\S+)$/;

const CitationPath = z
  .string({ error: 'is required: the file\'s path relative to the repository root, e.g. "src/config.ts"' })
  .trim()
  .min(1, { error: 'must not be empty: the file\'s path relative to the repository root, e.g. "src/config.ts"' })
  .max(MAX_PATH_LENGTH, { error: `must be at most ${MAX_PATH_LENGTH} characters` })
  .transform((p) => p.replace(/^(\.\/)+/, ''))
  .refine((p) => !p.includes('\\'), { error: 'must use "/" between folders, e.g. "src/config.ts"' })
  .refine((p) => !p.startsWith('/') && !/^[A-Za-z]:/.test(p), {
    error: 'must be relative to the repository root, e.g. "src/config.ts" rather than an absolute path',
  })
  .refine((p) => !p.split('/').includes('..'), { error: 'must not contain "..": give the path from the repository root' })
  .refine((p) => ![...p].some((c) => c.charCodeAt(0) < 0x20), { error: 'must not contain control characters' });

const Line = (what: string) =>
  z
    .number({ error: `must be a line number (1 for the first line): the ${what} line cited` })
    .int({ error: 'must be a whole line number' })
    .min(1, { error: 'must be at least 1 (lines are numbered from 1)' })
    .max(10_000_000, { error: 'must be at most 10000000' });

/** One cited place: a file, optionally lines of it, at a commit of a repository. */
export const Citation = z
  .object({
    path: CitationPath.describe('File path relative to the repository root, e.g. "src/webhooks/retry.ts".'),
    start_line: Line('first').optional().describe('First line you read (from 1).'),
    end_line: Line('last').optional().describe('Last line you read; omit for one line.'),
    commit: z
      .string({ error: 'must be a commit sha (7 to 40 hex characters), e.g. from `git rev-parse HEAD`' })
      .trim()
      .toLowerCase()
      .regex(COMMIT_SHA, { error: 'must be a commit sha: 7 to 40 hex characters, e.g. from `git rev-parse HEAD`' })
      .optional()
      .describe('The commit you read (`git rev-parse HEAD`).'),
    repo: z
      .string({ error: 'must be the repository\'s remote URL, e.g. "https://github.com/acme/api"' })
      .trim()
      .max(500, { error: 'must be at most 500 characters' })
      .regex(REMOTE_URL, { error: 'must be the repository\'s remote URL, e.g. "https://github.com/acme/api" or "git@github.com:acme/api.git"' })
      .optional()
      .describe('The repository\'s remote URL (`git remote get-url origin`).'),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.end_line !== undefined && c.start_line === undefined) {
      ctx.addIssue({ code: 'custom', path: ['start_line'], message: 'is required with end_line: the first line of the cited range' });
    }
    if (c.start_line !== undefined && c.end_line !== undefined && c.end_line < c.start_line) {
      ctx.addIssue({ code: 'custom', path: ['end_line'], message: `must be at least start_line (${c.start_line})` });
    }
  });

/** A fact's citations: 1 to MAX_CITATIONS places. */
export const Citations = z
  .array(Citation, { error: 'must be an array of {path, start_line?, end_line?, commit?, repo?}' })
  .min(1, { error: 'must not be empty: omit citations when you cite nothing' })
  .max(MAX_CITATIONS, { error: `must hold at most ${MAX_CITATIONS} citations: cite the places that back the claim most directly` });


/**
 * The host and the repository path (`acme/api`, no `.git`) of a remote as git prints it: a URL or
 * scp-like `git@host:owner/repo.git`; null for anything else.
 */
export function remoteHostPath(repo: string): { host: string; path: string } | null {
  const scp = /^[^@\s/]+@([^:\s]+):(.+)$/.exec(repo);
  let host: string;
  let path: string;
  if (scp) {
    host = scp[1]!;
    path = scp[2]!;
  } else {
    try {
      const url = new URL(repo);
      host = url.hostname;
      path = url.pathname;
    } catch {
      return null;
    }
  }
  return { host: host.toLowerCase(), path: path.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '') };
}

/** `https://host/owner/repo` of a remote on a forge we link to, or null. */
function forgeOf(repo: string): { kind: 'github' | 'gitlab' | 'bitbucket'; base: string } | null {
  const remote = remoteHostPath(repo);
  if (!remote || !/^[\w.-]+(?:\/[\w.-]+)+$/.test(remote.path)) return null;
  const { host, path } = remote;
  const kind = host === 'github.com' ? 'github' : host === 'gitlab.com' ? 'gitlab' : host === 'bitbucket.org' ? 'bitbucket' : null;
  return kind ? { kind, base: `https://${host}/${path}` } : null;
}

/** The cited file (and lines) at the cited commit on GitHub, GitLab or Bitbucket; null for another host. */
export function citationUrl(c: FactCitation): string | null {
  if (!c.repo) return null;
  const forge = forgeOf(c.repo);
  if (!forge) return null;
  const ref = c.commit ?? 'HEAD';
  const file = c.path.split('/').map(encodeURIComponent).join('/');
  const end = c.end_line ?? c.start_line;
  switch (forge.kind) {
    case 'github':
      return `${forge.base}/blob/${ref}/${file}${c.start_line ? `#L${c.start_line}${end !== c.start_line ? `-L${end}` : ''}` : ''}`;
    case 'gitlab':
      return `${forge.base}/-/blob/${ref}/${file}${c.start_line ? `#L${c.start_line}${end !== c.start_line ? `-${end}` : ''}` : ''}`;
    case 'bitbucket':
      return `${forge.base}/src/${ref}/${file}${c.start_line ? `#lines-${c.start_line}${end !== c.start_line ? `:${end}` : ''}` : ''}`;
  }
}

/** Citations as shown with their fact: each with its forge link, when there is one. */
export function showCitations(citations: readonly FactCitation[] | null | undefined): ShownCitation[] | undefined {
  if (!citations?.length) return undefined;
  return citations.map((c) => {
    const url = citationUrl(c);
    return { ...c, ...(url ? { url } : {}) };
  });
}

/** `lines 3-5`, `line 3`, or nothing: how a citation's range reads in a sentence. */
export function citedLines(c: Pick<FactCitation, 'start_line' | 'end_line'>): string {
  if (!c.start_line) return '';
  return c.end_line && c.end_line !== c.start_line ? `lines ${c.start_line}-${c.end_line}` : `line ${c.start_line}`;
}
