/** Display formats (the browser's locale and time zone). */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const instant = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const integer = new Intl.NumberFormat();

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

/** To the second, for the point-in-time view (whose moments are a second apart). */
export function formatInstant(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : instant.format(d);
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateOnly.format(d);
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** "in 3 days", "5 minutes ago". */
export function formatRelative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const diff = new Date(iso).getTime() - now;
  if (Number.isNaN(diff)) return iso;
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms) return relative.format(Math.round(diff / ms), unit);
  }
  return relative.format(Math.round(diff / 1000), 'second');
}

export function formatNumber(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : integer.format(n);
}

/** A 0–1 rate as a percentage ("12.5%"). */
export function formatPercent(rate: number | null | undefined): string {
  if (rate === null || rate === undefined || Number.isNaN(rate)) return '—';
  const pct = rate * 100;
  return `${pct >= 10 || pct === 0 ? pct.toFixed(0) : pct.toFixed(1)}%`;
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** `2026-03-01` → start of that day in local time, as ISO (for date filters). */
export function startOfDayIso(date: string): string {
  return new Date(`${date}T00:00:00`).toISOString();
}

/** `2026-03-01` → end of that day in local time, as ISO. */
export function endOfDayIso(date: string): string {
  return new Date(`${date}T23:59:59.999`).toISOString();
}

export const KIND_LABELS: Record<string, string> = {
  reversal: 'Reversal',
  ambiguity: 'Ambiguity',
  stale: 'Stale claim',
  value_mismatch: 'Value mismatch',
  cross_scope: 'Across scopes',
  probable_update: 'Probable update',
};

export const DETECTOR_LABELS: Record<string, string> = {
  narrative_llm: 'narrative detective (LLM)',
  tier0_entity: 'same setting, different value',
  tier2_numeric: 'numeric rule',
  tier2b_cross_scope: 'same setting across scopes',
  narrative_rules: 'timeline rules',
  citation_check: 'cited code changed (engram check)',
  agent_verify: 'an agent re-read the cited code',
};
