/**
 * Citations (issue 57) without a server: what a citation may be, the links to forges, how a diff's
 * hunks meet a cited range, config files read and compared with what a fact states, and the boost
 * a verification gives in ranking.
 */
import { Citation, Citations, citationUrl, CommitInput, readFact, scoreCandidate, VERIFIED_WEIGHT, type ClaimEntity } from '@engram/core';
import { candidateOf } from '../support/candidate.ts';
import { describe, expect, it } from 'vitest';
import { configEntries, configFormatOf, valueAgrees, valueMismatches } from '../../apps/server/src/commands/check-config.ts';
import { parseHunks, shifted, touches } from '../../apps/server/src/commands/check-git.ts';

const SHA = '0123456789abcdef0123456789abcdef01234567';

const problems = (input: unknown) => {
  const parsed = Citation.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('a citation', () => {
  it('takes a relative path with lines, a commit sha and a remote URL', () => {
    expect(Citation.parse({ path: './src/retry.ts', start_line: 3, end_line: 5, commit: SHA.toUpperCase(), repo: 'git@github.com:acme/api.git' })).toEqual({
      path: 'src/retry.ts',
      start_line: 3,
      end_line: 5,
      commit: SHA,
      repo: 'git@github.com:acme/api.git',
    });
    expect(problems({ path: 'README.md' })).toEqual([]);
  });

  it.each([
    [{ path: '/etc/app.json' }, /path: must be relative to the repository root/],
    [{ path: 'C:/app/config.json' }, /path: must be relative/],
    [{ path: 'src/../../secrets' }, /path: must not contain "\.\."/],
    [{ path: 'src\\app.ts' }, /path: must use "\/"/],
    [{ path: '' }, /path: must not be empty/],
    [{ path: 'a.ts', start_line: 0 }, /start_line: must be at least 1/],
    [{ path: 'a.ts', start_line: 2.5 }, /start_line: must be a whole line number/],
    [{ path: 'a.ts', start_line: 9, end_line: 3 }, /end_line: must be at least start_line \(9\)/],
    [{ path: 'a.ts', end_line: 3 }, /start_line: is required with end_line/],
    [{ path: 'a.ts', commit: 'main' }, /commit: must be a commit sha/],
    [{ path: 'a.ts', commit: 'abc12' }, /commit: must be a commit sha/],
    [{ path: 'a.ts', repo: 'acme/api' }, /repo: must be the repository's remote URL/],
    [{ path: 'a.ts', line: 3 }, /Unrecognized key/],
  ])('refuses %j, saying what to change', (input, message) => {
    expect(problems(input).join('\n')).toMatch(message);
  });

  it('comes at most ten to a fact, and never as an empty list', () => {
    expect(Citations.safeParse(Array.from({ length: 10 }, (_, i) => ({ path: `f${i}.ts` }))).success).toBe(true);
    expect(Citations.safeParse(Array.from({ length: 11 }, (_, i) => ({ path: `f${i}.ts` }))).error?.issues[0]?.message).toMatch(/at most 10 citations/);
    expect(Citations.safeParse([]).error?.issues[0]?.message).toMatch(/must not be empty/);
    const commit = CommitInput.safeParse({ content: 'x', scope: 'a', confidence: 1, citations: [{ path: '../x' }] });
    expect(commit.error?.issues[0]?.path).toEqual(['citations', 0, 'path']);
  });
});

describe('a citation link', () => {
  it.each([
    [{ repo: 'https://github.com/acme/api.git', start_line: 3, end_line: 5 }, `https://github.com/acme/api/blob/${SHA}/src/a%20b.ts#L3-L5`],
    [{ repo: 'git@github.com:acme/api.git', start_line: 3 }, `https://github.com/acme/api/blob/${SHA}/src/a%20b.ts#L3`],
    [{ repo: 'https://gitlab.com/group/sub/api', start_line: 3, end_line: 5 }, `https://gitlab.com/group/sub/api/-/blob/${SHA}/src/a%20b.ts#L3-5`],
    [{ repo: 'ssh://git@bitbucket.org/acme/api.git', start_line: 3, end_line: 5 }, `https://bitbucket.org/acme/api/src/${SHA}/src/a%20b.ts#lines-3:5`],
    [{ repo: 'https://git.internal.example/acme/api', start_line: 3 }, null],
    [{ start_line: 3 }, null],
  ])('for %j is %s', (fields, url) => {
    expect(citationUrl({ path: 'src/a b.ts', commit: SHA, ...fields })).toBe(url);
  });

  it('points at HEAD when the citation names no commit', () => {
    expect(citationUrl({ path: 'a.ts', repo: 'https://github.com/acme/api' })).toBe('https://github.com/acme/api/blob/HEAD/a.ts');
  });
});

describe('a diff against a cited range', () => {
  const diff = [
    'diff --git a/f b/f',
    '@@ -2 +2 @@',
    '-const MAX_RETRIES = 3;',
    '+const MAX_RETRIES = 5;',
    '@@ -6,0 +7,2 @@',
    '+// added',
    '+// added too',
    '@@ -10,2 +12,0 @@',
    '-gone',
    '-gone too',
  ].join('\n');
  const hunks = parseHunks(diff);

  it('reads each hunk with its lines', () => {
    expect(hunks.map((h) => [h.oldStart, h.oldCount, h.newStart, h.newCount])).toEqual([[2, 1, 2, 1], [6, 0, 7, 2], [10, 2, 12, 0]]);
    expect(hunks[0]!.text).toContain('+const MAX_RETRIES = 5;');
  });

  it('touches a range when it replaces, removes or inserts within its lines', () => {
    expect(touches(hunks[0]!, 2, 2)).toBe(true);
    expect(touches(hunks[0]!, 3, 4)).toBe(false);
    expect(touches(hunks[1]!, 5, 8)).toBe(true); // inserted after line 6, inside 5-8
    expect(touches(hunks[1]!, 6, 6)).toBe(false); // after the last cited line
    expect(touches(hunks[1]!, 7, 9)).toBe(false); // before the first
    expect(touches(hunks[2]!, 11, 20)).toBe(true);
  });

  it('follows an untouched line to where it is now', () => {
    expect(shifted(hunks, 4)).toBe(4);
    expect(shifted(hunks, 8)).toBe(10);
    expect(shifted(hunks, 15)).toBe(15);
  });
});

describe('a config value against its fact', () => {
  const claimOf = (text: string) => readFact(text).find((e): e is ClaimEntity => e.type === 'claim')!;

  it('knows config files by name', () => {
    expect(['.env', 'deploy/.env.production', 'config/app.json', 'package.json', 'k8s/values.yaml', 'ci.yml', 'pyproject.toml', 'src/app.ts'].map(configFormatOf)).toEqual([
      'env', 'env', 'json', 'json', 'yaml', 'yaml', 'toml', null,
    ]);
  });

  it('reads every format into keys with the line that sets them', () => {
    expect(configEntries('# comment\nexport PORT=8080\nNAME="api" # the service\n', 'env')).toEqual([
      { key: 'PORT', value: '8080', line: 2 },
      { key: 'NAME', value: 'api', line: 3 },
    ]);
    expect(configEntries('{\n  "webhooks": {\n    "maxRetries": 3\n  }\n}\n', 'json')).toEqual([{ key: 'webhooks.maxRetries', value: '3', line: 3 }]);
    expect(configEntries('server:\n  port: 8080\n  timeout: 30s\n', 'yaml')).toEqual([
      { key: 'server.port', value: '8080', line: 2 },
      { key: 'server.timeout', value: '30s', line: 3 },
    ]);
    expect(configEntries('[pool]\nmax_connections = 20\n', 'toml')).toEqual([{ key: 'pool.max_connections', value: '20', line: 2 }]);
  });

  it('agrees when the value is the same however it is written', () => {
    expect(valueAgrees('1800', claimOf('The session timeout is 30 minutes, set by SESSION_TIMEOUT.'))).toBe(true);
    expect(valueAgrees('30m', claimOf('The session timeout is 30 minutes, set by SESSION_TIMEOUT.'))).toBe(true);
    expect(valueAgrees('3', claimOf('Webhooks retry 3 times (MAX_RETRIES).'))).toBe(true);
    expect(valueAgrees('^5.4.2', claimOf('package.json pins typescript to 5.4.2'))).toBe(true);
    expect(valueAgrees('900', claimOf('The session timeout is 30 minutes, set by SESSION_TIMEOUT.'))).toBe(false);
    expect(valueAgrees('5', claimOf('Webhooks retry 3 times (MAX_RETRIES).'))).toBe(false);
  });

  it('reports a key the fact names whose value differs, only among the cited keys', () => {
    const entries = configEntries('MAX_RETRIES=5\nTIMEOUT=30\n', 'env');
    const fact = 'Webhooks retry 3 times, set by MAX_RETRIES in .env.';
    expect(valueMismatches(fact, null, entries)).toEqual([{ key: 'MAX_RETRIES', configValue: '5', factValue: '3 times' }]);
    expect(valueMismatches(fact, new Set(['TIMEOUT']), entries)).toEqual([]);
    expect(valueMismatches('Webhooks retry 5 times, set by MAX_RETRIES in .env.', null, entries)).toEqual([]);
    // A fact that names no key of the file says nothing about it.
    expect(valueMismatches('Webhooks retry 3 times.', null, entries)).toEqual([]);
    const pkg = configEntries('{\n  "devDependencies": {\n    "typescript": "^5.6.0"\n  }\n}\n', 'json');
    expect(valueMismatches('package.json pins typescript to 5.4.2', null, pkg)).toEqual([{ key: 'devDependencies.typescript', configValue: '^5.6.0', factValue: '5.4.2' }]);
  });
});

describe('ranking a verified fact', () => {
  const reference = new Date('2026-06-01T00:00:00Z');
  const candidate = (verified_at: Date | null) => candidateOf({ verified_at, rrf: 0.02, vector_rank: 1, text_rank: 1, agent_total_commits: 0, agent_flagged_commits: 0 });

  it('adds at most VERIFIED_WEIGHT, fading with the verification\'s age, nothing for one made after the reference', () => {
    const base = scoreCandidate(candidate(null), reference);
    expect(scoreCandidate(candidate(reference), reference) - base).toBeCloseTo(VERIFIED_WEIGHT, 6);
    const weekOld = scoreCandidate(candidate(new Date(reference.getTime() - 7 * 86_400_000)), reference) - base;
    expect(weekOld).toBeGreaterThan(0);
    expect(weekOld).toBeLessThan(VERIFIED_WEIGHT);
    expect(scoreCandidate(candidate(new Date(reference.getTime() + 86_400_000)), reference)).toBe(base);
  });
});
