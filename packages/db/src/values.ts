/**
 * Value encoding and decoding between JavaScript and hand-written SQL, in one place: timestamps,
 * text and uuid arrays, vectors. Both drivers (postgres.js, PGlite) go through these.
 */
import { sql } from 'drizzle-orm';

/** Postgres text-array literal (drizzle would expand a JS array into a parenthesised list). */
export const textArrayLiteral = (values: readonly string[]) =>
  `{${values.map((v) => `"${v.replace(/(["\\])/g, '\\$1')}"`).join(',')}}`;

/** Postgres uuid-array literal, for `= any(${uuidArrayLiteral(ids)}::uuid[])`. */
export const uuidArrayLiteral = (ids: readonly string[]) => `{${ids.join(',')}}`;

/**
 * A timestamp parameter. Drizzle's postgres.js driver turns off postgres.js's Date handling (it
 * maps dates itself for typed columns), so hand-written SQL passes ISO strings, cast explicitly.
 */
export const ts = (date: Date) => sql`${date.toISOString()}::timestamptz`;
export const tsOrNull = (date: Date | null) => (date ? ts(date) : sql`null::timestamptz`);

/**
 * pgvector's text form of a vector (cast to `halfvec` in SQL). Six significant digits: a half
 * float keeps about three, and a shortest double ("0.04419417382415922") is twice the text, sent
 * on every commit and query.
 */
export const vectorLiteral = (embedding: readonly number[]) => `[${embedding.map((x) => (x === 0 ? '0' : x.toPrecision(6))).join(',')}]`;

/** Parses Postgres' timestamptz text ("2026-11-22 00:43:33.132+00") or ISO text. */
export function parseTimestamp(text: string): Date {
  const iso = text.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) throw new Error(`unparseable timestamp from the database: ${text}`);
  return date;
}

/** A timestamp as either driver returns it (Date, or text), or null. */
export const toDate = (v: unknown): Date | null => (v instanceof Date ? v : typeof v === 'string' ? parseTimestamp(v) : null);
