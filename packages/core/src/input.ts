/**
 * Input every boundary (REST and MCP alike) refuses before it reaches the database: text Postgres
 * cannot store, and instants outside what a `timestamptz` column takes.
 */
import { z } from 'zod';
import type { FieldProblem } from './errors.ts';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why Postgres cannot store `text`, or null when it can. */
export function unstorableText(text: string): string | null {
  if (text.includes('\u0000')) return 'contains a NUL character (\\u0000); remove it';
  if (LONE_SURROGATE.test(text)) return 'contains half of a UTF-16 surrogate pair, which is not text; send valid UTF-8';
  return null;
}

/**
 * Every string (and object key) in a parsed JSON value that Postgres could not store, by field
 * path. Walks without recursion, so a deeply nested value cannot overflow the stack.
 */
export function unstorableTextProblems(value: unknown, root = ''): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const stack: { value: unknown; path: string }[] = [{ value, path: root }];
  while (stack.length > 0 && problems.length < 10) {
    const { value: current, path } = stack.pop()!;
    if (typeof current === 'string') {
      const problem = unstorableText(current);
      if (problem) problems.push({ field: path, message: problem });
    } else if (Array.isArray(current)) {
      current.forEach((item, i) => stack.push({ value: item, path: path ? `${path}.${i}` : String(i) }));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current as Record<string, unknown>)) {
        const field = path ? `${path}.${key}` : key;
        const keyProblem = unstorableText(key);
        if (keyProblem) problems.push({ field: path, message: `has a field name that ${keyProblem}` });
        else stack.push({ value: item, path: field });
      }
    }
  }
  return problems;
}

/** Years a Postgres `timestamptz` reads back as written (it has no year 0; JS dates do). */
const FIRST_YEAR = 1;
const LAST_YEAR = 9999;

/** An ISO 8601 instant with an offset, within years 0001–9999 (UTC). */
export const Instant = z.iso
  // `abort`: a value that is not a timestamp at all (e.g. a relative day) gets this message alone,
  // not also the range check below, which cannot read it.
  .datetime({ offset: true, error: 'must be an ISO 8601 timestamp, e.g. 2026-03-01T12:00:00Z', abort: true })
  .refine(
    (value) => {
      const year = new Date(value).getUTCFullYear();
      return year >= FIRST_YEAR && year <= LAST_YEAR;
    },
    { error: 'must be between the years 0001 and 9999 (UTC)' },
  );
