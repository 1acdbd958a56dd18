/**
 * Value encoding and decoding between JavaScript and SQL, in one place: timestamps, text and uuid
 * arrays, vectors, and the builder that renders queries for TenantDb. Both drivers (postgres.js,
 * PGlite) go through these.
 */
import { getTableColumns, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { QueryBuilder, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';

/**
 * Builds select queries without a database. A built query runs through a TenantDb (`read`, `rows`)
 * or `queryRows` like a hand-written one: in the tenant's confined transaction (a read in one
 * round trip), its rows as the driver returns them, keyed by the columns' SQL names (see
 * {@link columnsNamed}).
 */
export const qb = new QueryBuilder();

/**
 * A selection of `table`'s columns keyed by their SQL names (`lineage_id`), so a built query's
 * rows have the keys a hand-written `select f.lineage_id` would give them.
 */
export function columnsNamed<const K extends string>(table: PgTable, names: readonly K[]): Record<K, PgColumn> {
  const byName = new Map(Object.values(getTableColumns(table)).map((column) => [column.name, column]));
  return Object.fromEntries(
    names.map((name) => {
      const column = byName.get(name);
      if (!column) throw new Error(`no column ${name} in the table`);
      return [name, column];
    }),
  ) as Record<K, PgColumn>;
}

/** Postgres text-array literal (drizzle would expand a JS array into a parenthesised list). */
export const textArrayLiteral = (values: readonly string[]) =>
  `{${values.map((v) => `"${v.replace(/(["\\])/g, '\\$1')}"`).join(',')}}`;

/** Postgres uuid-array literal, for `= any(${uuidArrayLiteral(ids)}::uuid[])`. */
export const uuidArrayLiteral = (ids: readonly string[]) => `{${ids.join(',')}}`;

/**
 * `column = any('{...}'::uuid[])`: the ids as one parameter, whatever their number (`inArray`
 * sends one parameter per id, and each count is a statement of its own to prepare and plan).
 */
export const anyUuid = (column: SQLWrapper, ids: readonly string[]): SQL => sql`${column} = any(${uuidArrayLiteral(ids)}::uuid[])`;

/** `column + by` (`by` may be negative, or another column): an update's counter step, which has no builder. */
export const increment = (column: SQLWrapper, by: number | SQLWrapper = 1): SQL => sql`${column} + ${by}`;

/** The database's clock (`now()`: the transaction's start), where a condition or a value must not take the caller's. */
export const databaseNow = sql`now()`;

/** `coalesce(value, otherwise)`: the first that is not null (a select is a scalar subquery); no builder has it. */
export const coalesce = <T>(value: SQLWrapper, otherwise: SQLWrapper | T): SQL<T> => sql<T>`coalesce(${value}, ${otherwise})`;

/** `count(*) filter (where condition)`: aggregate filters have no builder. */
export const countWhere = (condition: SQL): SQL<number> => sql`count(*) filter (where ${condition})`.mapWith(Number);

/**
 * A timestamp parameter. Drizzle's postgres.js driver turns off postgres.js's Date handling (it
 * maps dates itself for typed columns), so hand-written SQL passes ISO strings, cast explicitly.
 */
export const ts = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/**
 * pgvector's text form of a vector (cast to `halfvec` in SQL). Six significant digits: a half
 * float keeps about three, and a shortest double ("0.04419417382415922") is twice the text, sent
 * on every commit and query.
 */
export const vectorLiteral = (embedding: readonly number[]) => `[${embedding.map((x) => (x === 0 ? '0' : x.toPrecision(6))).join(',')}]`;

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The digits at text[from, from + count) as a number, or -1 if any is not a digit. */
function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

/**
 * Postgres' timestamptz text ("2026-11-22 00:43:33.132456+00", "+05:30", "-0330") or ISO text
 * ("...Z"), read by position; undefined for any other form.
 */
function fastTimestamp(text: string): Date | undefined {
  const sep = text[10];
  if (text.length < 20 || text[4] !== '-' || text[7] !== '-' || (sep !== ' ' && sep !== 'T') || text[13] !== ':' || text[16] !== ':') return undefined;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (year < 100 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
  let i = 19;
  let ms = 0;
  if (text[i] === '.') {
    const start = ++i;
    while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
    if (i === start) return undefined;
    // Sub-millisecond digits are cut, as Date's parser does.
    ms = digitsAt(`${text.slice(start, Math.min(i, start + 3))}00`, 0, 3);
  }
  let offset = 0;
  const zone = text.slice(i);
  if (zone !== 'Z') {
    const sign = zone[0] === '+' ? 1 : zone[0] === '-' ? -1 : 0;
    const hours = digitsAt(zone, 1, 2);
    const minutes = zone.length === 3 ? 0 : zone.length === 6 && zone[3] === ':' ? digitsAt(zone, 4, 2) : zone.length === 5 ? digitsAt(zone, 3, 2) : -1;
    if (sign === 0 || hours < 0 || minutes < 0) return undefined;
    offset = sign * (hours * 60 + minutes) * 60_000;
  }
  // "2026-02-30" is no date: Date.UTC would roll it over, where Date's parser refuses it.
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (day > (month === 2 && leap ? 29 : MONTH_DAYS[month - 1]!)) return undefined;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - offset);
}

/**
 * Parses Postgres' timestamptz text ("2026-11-22 00:43:33.132+00") or ISO text. Read rows carry up
 * to four timestamps each and a query reads 60 rows: the common form is read by position, anything
 * else goes through `Date`'s parser.
 */
export function parseTimestamp(text: string): Date {
  const fast = fastTimestamp(text);
  if (fast) return fast;
  const iso = text.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) throw new Error(`unparseable timestamp from the database: ${text}`);
  return date;
}

/** A timestamp as either driver returns it (Date, or text), or null. */
export const toDate = (v: unknown): Date | null => (v instanceof Date ? v : typeof v === 'string' ? parseTimestamp(v) : null);
