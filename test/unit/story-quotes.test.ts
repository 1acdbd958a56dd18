/**
 * The detection story files measure whether rules generalise only while no rule, word list or
 * comment quotes them. This test fails when product code, word lists or docs contain a sentence,
 * or 40 characters running from one, of any file under test/data/detection, or when a test, eval
 * or bench script quotes a held-out set (holdout, blind, test and sealed sets: the sealed ones are
 * read here by the machine, never by the people writing rules). Tests may use the dev sets'
 * examples, which the specification shares.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const STORIES = join(ROOT, 'test', 'data', 'detection');
/** Characters in a run quoted from a story: longer than a common phrase of the trade ("the payments service"), shorter than a clause. */
const WINDOW = 40;
/** A whole short sentence counts too from this length ("Sessions expire after 30 minutes."). */
const SHORTEST_SENTENCE = 24;

const normalise = (text: string) => text.toLowerCase().replace(/\s+/g, ' ');

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, keep));
    else if (keep(path)) out.push(path);
  }
  return out;
}

/** Sets that measure generalisation: nothing may quote them, tests included. */
const HELD_OUT = /holdout|blind|test-stories|sealed/;

/** Every fact text of a story file (stories and filler). */
function factTexts(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) factTexts(v, out);
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === 'content' && typeof v === 'string') out.push(v);
      else factTexts(v, out);
    }
  }
  return out;
}

/** What a source may not contain: each sentence of a fact (long enough), and every WINDOW-character run of it. */
function quotesOf(text: string): { sentences: string[]; windows: string[] } {
  const sentences = normalise(text)
    .split(/(?<=[.!?;])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length >= SHORTEST_SENTENCE);
  const windows: string[] = [];
  for (const s of sentences) for (let i = 0; i + WINDOW <= s.length; i++) windows.push(s.slice(i, i + WINDOW));
  return { sentences: sentences.filter((s) => s.length < WINDOW), windows };
}

describe('story files stay unquoted', () => {
  it('no source file contains a sentence, or 40 characters of one, from any detection story file', () => {
    const storyFiles = filesUnder(STORIES, (p) => p.endsWith('.json'));
    expect(storyFiles.some((p) => p.includes('sealed'))).toBe(true);
    // Each quote with the story file it comes from, and whether that file is held out.
    const windows = new Map<string, { file: string; heldOut: boolean }>();
    const sentences = new Map<string, { file: string; heldOut: boolean }>();
    for (const file of storyFiles) {
      const from = { file: relative(ROOT, file), heldOut: HELD_OUT.test(relative(STORIES, file)) };
      for (const text of factTexts(JSON.parse(readFileSync(file, 'utf8')))) {
        const quotes = quotesOf(text);
        for (const w of quotes.windows) if (!windows.get(w)?.heldOut) windows.set(w, from);
        for (const s of quotes.sentences) if (!sentences.get(s)?.heldOut) sentences.set(s, from);
      }
    }
    expect(windows.size).toBeGreaterThan(1000);

    const product = [
      ...['packages', 'apps'].flatMap((d) => filesUnder(join(ROOT, d), (p) => /\.(?:ts|tsx|json|md)$/.test(p))),
      ...filesUnder(join(ROOT, 'docs'), (p) => p.endsWith('.md')),
    ];
    const tests = filesUnder(join(ROOT, 'test'), (p) => /\.(?:ts|tsx)$/.test(p) && !p.startsWith(join(ROOT, 'test', 'data')));
    const found: string[] = [];
    for (const path of [...product, ...tests]) {
      const anyStory = product.includes(path);
      const text = normalise(readFileSync(path, 'utf8'));
      for (let i = 0; i + WINDOW <= text.length; i++) {
        const story = windows.get(text.slice(i, i + WINDOW));
        if (story && (anyStory || story.heldOut)) {
          found.push(`${relative(ROOT, path)} quotes ${story.file}: "${text.slice(i, i + WINDOW)}"`);
          i += WINDOW;
        }
      }
      for (const [sentence, story] of sentences) {
        if ((anyStory || story.heldOut) && text.includes(sentence)) found.push(`${relative(ROOT, path)} quotes ${story.file}: "${sentence}"`);
      }
    }
    expect(found).toEqual([]);
  });
});
