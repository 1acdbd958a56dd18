/** `engram import FILE`: where each fact of a file is, and the requests a large file is split into. */
import { describe, expect, it } from 'vitest';
import { importRequests, parseFactsFile } from '../../apps/server/src/commands/journal.ts';

describe('engram import FILE', () => {
  it('numbers NDJSON facts by their line in the file, blank lines included', () => {
    const file = parseFactsFile('{"content":"a"}\n\n{"content":"b"}\n   \n{"content":"c"}\n');
    expect(file).toEqual({
      unit: 'line',
      facts: [
        { fact: { content: 'a' }, at: 1 },
        { fact: { content: 'b' }, at: 3 },
        { fact: { content: 'c' }, at: 5 },
      ],
    });
    expect(() => parseFactsFile('{"content":"a"}\n\nnot json\n')).toThrow(/line 3 is not valid JSON/);
  });

  it('numbers the facts of a JSON array by their place in it', () => {
    expect(parseFactsFile('{"facts": [{"content":"a"}, {"content":"b"}]}')).toEqual({
      unit: 'item',
      facts: [
        { fact: { content: 'a' }, at: 1 },
        { fact: { content: 'b' }, at: 2 },
      ],
    });
  });

  it('splits the facts into requests by count and by bytes, in file order', () => {
    const facts = Array.from({ length: 7 }, (_, i) => ({ content: `fact ${i}` }));
    expect(importRequests(facts, { maxFacts: 3, maxBytes: 1_000_000 }).map((r) => r.length)).toEqual([3, 3, 1]);

    const size = Buffer.byteLength(JSON.stringify(facts[0])) + 1;
    const bySize = importRequests(facts, { maxFacts: 1000, maxBytes: size * 2 });
    expect(bySize.map((r) => r.length)).toEqual([2, 2, 2, 1]);
    expect(bySize.flat()).toEqual(facts);

    // Text of several bytes a character counts by its bytes; a fact larger than a request goes alone.
    const wide = [{ content: 'é'.repeat(10) }, { content: 'é'.repeat(10) }, { content: 'x'.repeat(50) }, { content: 'a' }, { content: 'b' }];
    expect(importRequests(wide, { maxFacts: 1000, maxBytes: 60 }).map((r) => r.map((f) => f.content.length))).toEqual([[10], [10], [50], [1, 1]]);
  });
});
