/**
 * Units Engram understands in fact text, each with its family and its factor to the family's base
 * unit (seconds, bytes, requests per second, percent), so "1 h" and "3600 s" compare equal.
 */

export type UnitFamily = 'duration' | 'size' | 'rate' | 'percentage';

interface UnitDef {
  family: UnitFamily;
  /** Multiply by this to get the base unit. */
  factor: number;
  /** Canonical spelling recorded on the entity. */
  canonical: string;
}

const DURATION: [string[], number, string][] = [
  [['ns', 'nanosecond', 'nanoseconds'], 1e-9, 'ns'],
  [['us', 'µs', 'microsecond', 'microseconds'], 1e-6, 'us'],
  [['ms', 'msec', 'msecs', 'millisecond', 'milliseconds'], 1e-3, 'ms'],
  [['s', 'sec', 'secs', 'second', 'seconds'], 1, 's'],
  [['m', 'min', 'mins', 'minute', 'minutes'], 60, 'min'],
  [['h', 'hr', 'hrs', 'hour', 'hours'], 3600, 'h'],
  [['d', 'day', 'days'], 86_400, 'd'],
  [['w', 'wk', 'wks', 'week', 'weeks'], 604_800, 'w'],
  [['mo', 'mos', 'month', 'months'], 2_592_000, 'mo'],
  [['y', 'yr', 'yrs', 'year', 'years'], 31_536_000, 'y'],
];

const SIZE: [string[], number, string][] = [
  [['b', 'byte', 'bytes'], 1, 'B'],
  [['kb', 'kilobyte', 'kilobytes'], 1e3, 'KB'],
  [['kib', 'ki', 'kibibyte', 'kibibytes'], 1024, 'KiB'],
  [['mb', 'megabyte', 'megabytes'], 1e6, 'MB'],
  [['mib', 'mi', 'mebibyte', 'mebibytes'], 1024 ** 2, 'MiB'],
  [['gb', 'gigabyte', 'gigabytes'], 1e9, 'GB'],
  [['gib', 'gi', 'gibibyte', 'gibibytes'], 1024 ** 3, 'GiB'],
  [['tb', 'terabyte', 'terabytes'], 1e12, 'TB'],
  [['tib', 'ti', 'tebibyte', 'tebibytes'], 1024 ** 4, 'TiB'],
];

const RATE: [string[], number, string][] = [
  [['req/s', 'reqs/s', 'requests/s', 'rps', 'qps', 'r/s', '/s', 'requests per second', 'req per second', 'reqs per second', 'queries per second', 'per second', 'req/sec', 'requests/sec'], 1, 'req/s'],
  [['req/min', 'reqs/min', 'requests/min', 'rpm', 'requests per minute', 'req per minute', 'per minute', '/min', 'req/m'], 1 / 60, 'req/min'],
  [['req/h', 'reqs/h', 'requests/h', 'requests per hour', 'req per hour', 'per hour', '/h', 'req/hr', '/hr'], 1 / 3600, 'req/h'],
  [['req/day', 'requests per day', 'per day', '/day'], 1 / 86_400, 'req/day'],
];

const PERCENT: [string[], number, string][] = [[['%', 'percent', 'pct'], 1, '%']];

const UNITS = new Map<string, UnitDef>();
for (const [family, table] of [
  ['duration', DURATION],
  ['size', SIZE],
  ['rate', RATE],
  ['percentage', PERCENT],
] as const) {
  for (const [spellings, factor, canonical] of table) {
    for (const spelling of spellings) UNITS.set(spelling, { family, factor, canonical });
  }
}

/** Unit spellings, longest first, for building the value regex. */
export const UNIT_SPELLINGS: readonly string[] = [...UNITS.keys()].sort((a, b) => b.length - a.length);

/** Looks up a unit spelling (case-insensitive except `m`/`M` ambiguity is resolved as minutes/MB by case). */
export function lookupUnit(spelling: string): UnitDef | undefined {
  const exact = spelling.trim();
  // "M" alone is mega in sizes written like "512M"; "m" is minutes.
  if (exact === 'M') return UNITS.get('mb');
  if (exact === 'G') return UNITS.get('gb');
  if (exact === 'K') return UNITS.get('kb');
  return UNITS.get(exact.toLowerCase().replace(/\s+/g, ' '));
}

/** The value in the family's base unit (seconds, bytes, req/s, percent). */
export function toBase(value: number, unit: UnitDef): number {
  const base = value * unit.factor;
  // Round away float noise (0.1 h → 360.00000000000006 s).
  return Math.round(base * 1e9) / 1e9;
}
