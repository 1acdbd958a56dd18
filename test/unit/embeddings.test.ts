import { cosine, embedLocally, LOCAL_EMBEDDING_MODEL, LocalEmbedder, uuidv7 } from '@engram/core';
import { EMBEDDING_DIMENSIONS, vectorLiteral } from '@engram/db';
import { describe, expect, it } from 'vitest';

describe('local embedder', () => {
  it('is deterministic, 512-dimensional and L2-normalized', async () => {
    const [a, b] = await new LocalEmbedder().embed(['Redis runs on port 6379', 'Redis runs on port 6379']);
    expect(a).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(a).toEqual(b);
    expect(cosine(a!, a!)).toBeCloseTo(1, 10);
    expect(new LocalEmbedder().model).toBe(LOCAL_EMBEDDING_MODEL);
  });

  it('puts paraphrases closer than unrelated facts', () => {
    const base = embedLocally('The auth service uses Redis for session caching');
    const paraphrase = embedLocally('Session caching for the auth service is done in Redis');
    const unrelated = embedLocally('The docs site is built with Docusaurus');
    expect(cosine(base, paraphrase)).toBeGreaterThan(0.6);
    expect(cosine(base, unrelated)).toBeLessThan(0.2);
  });

  it('weighs numbers lightly, so a changed value stays near its fact', () => {
    expect(cosine(embedLocally('Cache TTL is 300 seconds'), embedLocally('Cache TTL is 600 seconds'))).toBeGreaterThan(0.75);
  });

  it('embeds an empty text as the zero vector', () => {
    expect(embedLocally('')).toEqual(new Array(EMBEDDING_DIMENSIONS).fill(0));
  });
});

describe('uuidv7', () => {
  it('is a version-7 UUID ordered by time', () => {
    const early = uuidv7(1_700_000_000_000);
    const late = uuidv7(1_700_000_000_001);
    expect(early).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(early < late).toBe(true);
    // The first 48 bits are the milliseconds; the rest is random.
    expect(parseInt(early.replace(/-/g, '').slice(0, 12), 16)).toBe(1_700_000_000_000);
    const same = new Set(Array.from({ length: 1000 }, () => uuidv7(1_700_000_000_000)));
    expect(same.size).toBe(1000);
  });
});

describe('vector text sent to the database', () => {
  it('keeps more precision than a half float holds, in about half the text', () => {
    // Dense, as a hosted embedding model's are.
    const vector = Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => Math.sin(i + 1) / 16);
    const text = vectorLiteral(vector);
    const parsed = JSON.parse(text) as number[];
    expect(parsed).toHaveLength(vector.length);
    // A half float keeps 11 significant bits (a relative step of about 5e-4).
    parsed.forEach((x, i) => expect(Math.abs(x - vector[i]!)).toBeLessThanOrEqual(Math.abs(vector[i]!) * 1e-5));
    expect(text.length).toBeLessThan(`[${vector.join(',')}]`.length * 0.7);
    expect(vectorLiteral([0, 1, -0.25, 1e-9])).toBe('[0,1.00000,-0.250000,1.00000e-9]');
  });
});
