/**
 * The README is a user's page: one screenful per task, at most 250 lines, and every link in it and
 * in docs/ leads to a file of this repository (and, with a `#fragment`, to a heading of that file).
 * A link outside the repository breaks for everyone who clones it alone.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
/** The README's length bound, from the team's guide: what it is, start, connect, configure, deploy. */
const README_MAX_LINES = 250;

const pages = [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name)),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced || !/^#{1,6} /.test(line)) continue;
    const text = line.replace(/^#+ /, '').trim().toLowerCase();
    anchors.add(text.replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-'));
  }
  return anchors;
}

/** Markdown links `[text](target)` outside code fences and inline code. */
function linksOf(markdown: string): string[] {
  const links: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) links.push(match[1]!);
  }
  return links;
}

describe('documentation', () => {
  it(`keeps the README within ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  for (const page of pages) {
    const name = relative(ROOT, page);
    it(`${name}: every relative link leads to a file of the repository, and a fragment to its heading`, () => {
      const broken: string[] = [];
      for (const link of linksOf(readFileSync(page, 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto: — not a file of ours
        const [path, fragment] = link.split('#') as [string, string | undefined];
        const target = path === '' ? page : resolve(dirname(page), path);
        if (relative(ROOT, target).startsWith('..')) broken.push(`${link}: outside the repository`);
        else if (!existsSync(target)) broken.push(`${link}: no such file`);
        else if (fragment && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(fragment)) {
          broken.push(`${link}: no heading "${fragment}" in ${relative(ROOT, target)}`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
