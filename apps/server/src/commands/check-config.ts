/**
 * Values against config, for `engram check`: when a fact cites a config file (.env, JSON, YAML,
 * TOML, package.json) and states a typed value for a key the cited lines set, the value the file
 * sets now is compared with the fact's. The fact is read by the language module (@engram/core), so
 * "30 minutes" agrees with `SESSION_TIMEOUT=1800` and "3" with `"maxRetries": 3`.
 */
import { familyOf, readFact, type ClaimEntity } from '@engram/core';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';

export type ConfigFormat = 'env' | 'json' | 'yaml' | 'toml';

/** The format of a config file by its name, or null for a file that is not one. */
export function configFormatOf(file: string): ConfigFormat | null {
  const name = file.split('/').at(-1)!.toLowerCase();
  if (name === '.env' || name.startsWith('.env.') || name.endsWith('.env')) return 'env';
  if (name.endsWith('.json')) return 'json';
  if (name.endsWith('.yaml') || name.endsWith('.yml')) return 'yaml';
  if (name.endsWith('.toml')) return 'toml';
  return null;
}

/** One key a config file sets: its dotted path, its value as text, and the line that sets it (from 1). */
export interface ConfigEntry {
  key: string;
  value: string;
  line: number | null;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The first line at or after `from` (0-based) that sets `name` (`name:`, `"name":`, `name =`). */
function lineSetting(lines: readonly string[], name: string, from: number): number | null {
  const pattern = new RegExp(`(^|[\\s"'{,\\[])${escape(name)}["']?\\s*[:=]`);
  for (let i = Math.max(0, from); i < lines.length; i++) if (pattern.test(lines[i]!)) return i;
  return null;
}

/** Every scalar of a parsed document as a dotted key, with the line that sets it (searched in order). */
function flatten(value: unknown, lines: readonly string[]): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  const walk = (v: unknown, prefix: string, from: number) => {
    if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
        const line = Array.isArray(v) ? from : lineSetting(lines, k, from);
        walk(child, prefix ? `${prefix}.${k}` : k, line ?? from);
      }
      return;
    }
    if (!prefix) return;
    const name = prefix.split('.').at(-1)!;
    const line = /^\d+$/.test(name) ? from : lineSetting(lines, name, from);
    entries.push({ key: prefix, value: v instanceof Date ? v.toISOString() : String(v), line: line === null ? null : line + 1 });
  };
  walk(value, '', 0);
  return entries;
}

/** The keys a config file sets, or an error that names the file's format. */
export function configEntries(text: string, format: ConfigFormat): ConfigEntry[] {
  const lines = text.split('\n');
  if (format === 'env') {
    const entries: ConfigEntry[] = [];
    lines.forEach((raw, i) => {
      const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$/.exec(raw);
      if (!m) return;
      let value = m[2]!;
      const quoted = /^(["'])(.*?)\1(?:\s+#.*)?$/.exec(value);
      value = quoted ? quoted[2]! : value.replace(/\s+#.*$/, '');
      entries.push({ key: m[1]!, value, line: i + 1 });
    });
    return entries;
  }
  const parsed: unknown = format === 'json' ? JSON.parse(text) : format === 'yaml' ? parseYaml(text) : parseToml(text);
  return flatten(parsed, lines);
}

/** A name as keys and facts both spell it: `maxRetries`, `MAX_RETRIES` and `max-retries` are one. */
const plain = (s: string) => s.toLowerCase().replace(/[^a-z0-9.]/g, '');

/** What a claim names that a config key could be: its components, and a version's product. */
function namesOf(claim: ClaimEntity): Set<string> {
  const names = [...claim.components, ...(claim.kind === 'version' ? [claim.of ?? '', ...claim.anchors] : [])];
  return new Set(names.filter(Boolean).map(plain));
}

/** Does the config key name what the claim names (its whole dotted path, or its last segment)? */
function keyMatches(key: string, names: ReadonlySet<string>): boolean {
  return names.has(plain(key)) || names.has(plain(key.split('.').at(-1)!));
}

const bare = (v: string) => v.trim().replace(/^["']|["']$/g, '').toLowerCase();

/** Does the config's value agree with one the claim states? Compared as text, as numbers, and as read by the language module. */
export function valueAgrees(configValue: string, claim: ClaimEntity): boolean {
  const value = bare(configValue);
  const stated = new Set([...claim.values, ...claim.display].map(bare));
  if (stated.has(value)) return true;
  const asVersion = value.replace(/^[\^~>=<v\s]+/, '');
  if (claim.kind === 'version' && [...stated].some((s) => s.replace(/^v/, '') === asVersion)) return true;
  const number = Number(value);
  if (value !== '' && Number.isFinite(number) && claim.values.some((v) => Number(v) === number)) return true;
  // "1800" for "30 minutes", "30m" for "1800 seconds": the value read as the claim's measure.
  const read = readFact(`The ${claim.measure || 'value'} is ${configValue.trim()}.`);
  return read.some(
    (e): e is ClaimEntity => e.type === 'claim' && familyOf(e.kind) === familyOf(claim.kind) && e.values.some((v) => claim.values.includes(v)),
  );
}

/** A config value that disagrees with its fact. */
export interface ValueMismatch {
  key: string;
  configValue: string;
  factValue: string;
}

/**
 * The keys the cited lines set (`citedKeys`; every key of the file when null) whose value now
 * (`current`) disagrees with the value the fact states for them.
 */
export function valueMismatches(content: string, citedKeys: ReadonlySet<string> | null, current: readonly ConfigEntry[]): ValueMismatch[] {
  const claims = readFact(content).filter(
    (e): e is ClaimEntity => e.type === 'claim' && !e.mode && !e.negated && e.values.length > 0,
  );
  const mismatches: ValueMismatch[] = [];
  for (const claim of claims) {
    const names = namesOf(claim);
    if (names.size === 0) continue;
    for (const entry of current) {
      if (citedKeys && !citedKeys.has(entry.key)) continue;
      if (!keyMatches(entry.key, names) || valueAgrees(entry.value, claim)) continue;
      mismatches.push({ key: entry.key, configValue: entry.value, factValue: claim.display.join(', ') });
    }
  }
  return mismatches.filter((m, i, all) => all.findIndex((o) => o.key === m.key) === i);
}
