import { parseTimestamp } from '@engram/db';
import { describe, expect, it } from 'vitest';

/** What parseTimestamp did before it read the common form by position: normalise to ISO, then Date. */
function byDateParser(text: string): number | 'unparseable' {
  const iso = text.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const time = new Date(iso).getTime();
  return Number.isNaN(time) ? 'unparseable' : time;
}
const parsed = (text: string): number | 'unparseable' => {
  try {
    return parseTimestamp(text).getTime();
  } catch {
    return 'unparseable';
  }
};

/** A fixed pseudo-random sequence (mulberry32), so every run checks the same texts. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('timestamps read from the database', () => {
  it('reads every form Postgres writes a timestamptz in as Date reads its ISO form', () => {
    const next = random(7);
    const zones = ['+00', '-05', '+05:30', '-03:30', '+0545', 'Z', '+14', '-12', '+00:00'];
    for (let i = 0; i < 20_000; i++) {
      const iso = new Date(Math.floor(next() * 6e12) - 2e12).toISOString();
      const fraction = ['', `.${Math.floor(next() * 10)}`, `.${String(Math.floor(next() * 1e3)).padStart(3, '0')}`, `.${String(Math.floor(next() * 1e6)).padStart(6, '0')}`][i % 4];
      const text = `${iso.slice(0, 10)}${i % 2 ? ' ' : 'T'}${iso.slice(11, 19)}${fraction}${zones[i % zones.length]}`;
      expect(parsed(text), text).toBe(byDateParser(text));
    }
  });

  it('agrees with Date on the edges: leap days, impossible dates and times, other forms', () => {
    for (const text of [
      '2024-02-29 00:00:00+00', '2023-02-29 00:00:00+00', '1900-02-29 00:00:00+00', '2000-02-29 00:00:00+00', '2026-02-30 00:00:00+00',
      '2026-13-01 00:00:00+00', '2026-11-22 24:00:00+00', '2026-11-22 00:60:00+00', '2026-11-22 00:43:33.+00', '2026-11-22 00:43:33+0',
      '2026-11-22 00:43:33+000', '2026-11-22 00:43:33+ab', '2026-1a-22 00:43:33+00', '0099-01-01 00:00:00+00', '2026-11-22T00:43:33.999999999Z',
      'infinity', '-infinity', '2026-11-22 00:43:33 BC',
    ]) expect(parsed(text), text).toBe(byDateParser(text));
    expect(parseTimestamp('2026-11-22 00:43:33.132456+05:30').toISOString()).toBe('2026-11-21T19:13:33.132Z');
    expect(() => parseTimestamp('infinity')).toThrow(/unparseable timestamp from the database: infinity/);
  });
});
