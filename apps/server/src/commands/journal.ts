/**
 * `engram import FILE` and `engram export`: clients of the journal API, so they work against a
 * running server (embedded or hosted) with a member token, and go through the same checks as any
 * other client.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Config } from '@engram/config';
import { MAX_IMPORT_BATCH } from '@engram/core';
import { localOwnerToken, localServerUrl } from '../local-server.ts';

interface Connection {
  url: string;
  token: string;
}

/** Where and as whom: --url/--token, else this machine's server and its embedded owner token. */
export function connection(config: Config, values: { url?: string; token?: string }): Connection {
  const url = localServerUrl(config, values.url);
  const token = values.token ?? localOwnerToken(config.dataDir);
  if (!token) {
    throw new Error('No token: pass --token egm_... (or run this next to an embedded `engram start`, which records one).');
  }
  return { url, token };
}

export async function failure(response: Response): Promise<Error> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: { message?: string } };
    return new Error(`${response.status}: ${body.error?.message ?? text}`);
  } catch {
    return new Error(`${response.status}: ${text.slice(0, 500)}`);
  }
}

/** The facts of a file, each with where it is: its line (NDJSON) or its place in the array (JSON), from 1. */
export interface FactsFile {
  unit: 'line' | 'item';
  facts: { fact: Record<string, unknown>; at: number }[];
}

/** Facts from NDJSON (one per line, as `engram export` writes) or a JSON array / `{ facts: [...] }`. */
export function parseFactsFile(text: string): FactsFile {
  const trimmed = text.trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('{"facts"') || trimmed.startsWith('{ "facts"')) {
    const parsed = JSON.parse(trimmed) as unknown;
    const list = Array.isArray(parsed) ? parsed : (parsed as { facts?: unknown }).facts;
    if (!Array.isArray(list)) throw new Error('expected a JSON array of facts or {"facts": [...]}');
    return { unit: 'item', facts: (list as Record<string, unknown>[]).map((fact, i) => ({ fact, at: i + 1 })) };
  }
  const facts: FactsFile['facts'] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      facts.push({ fact: JSON.parse(line) as Record<string, unknown>, at: i + 1 });
    } catch {
      throw new Error(`line ${i + 1} is not valid JSON`);
    }
  });
  return { unit: 'line', facts };
}

/**
 * Bytes of JSON sent per request, a quarter of the server's MAX_IMPORT_BYTES: about 500 facts of
 * the longest content, 14 s of work for the embedded database on two cores (docs/performance.md;
 * the import deadline is 180 s), so a busy or slower server still answers each request in time.
 */
export const IMPORT_REQUEST_BYTES = 2 * 1024 * 1024;

/**
 * The facts split into requests in file order, each of at most `maxFacts` facts and `maxBytes` of
 * JSON (a fact larger than that alone goes alone, for the server to refuse).
 */
export function importRequests<T>(facts: readonly T[], limits: { maxFacts: number; maxBytes: number }): T[][] {
  const requests: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const fact of facts) {
    const size = Buffer.byteLength(JSON.stringify(fact)) + 1;
    if (current.length > 0 && (current.length >= limits.maxFacts || bytes + size > limits.maxBytes)) {
      requests.push(current);
      current = [];
      bytes = 0;
    }
    current.push(fact);
    bytes += size;
  }
  if (current.length > 0) requests.push(current);
  return requests;
}

// Journal lines carry fields the import does not take (ids, windows); keep what it accepts.
const IMPORT_FIELDS = ['content', 'scope', 'committed_at', 'agent_id', 'fact_type', 'confidence', 'provenance', 'citations'];
const importable = (fact: Record<string, unknown>) =>
  Object.fromEntries(IMPORT_FIELDS.filter((k) => fact[k] !== undefined && fact[k] !== null).map((k) => [k, fact[k]]));

type Problem = { field: string; message: string };
type Result = { id: string; duplicate: boolean } | { index: number; refused: true; problems: Problem[] };
type Reported = { id: string; duplicate: boolean } | { line: number; refused: true; problems: Problem[] } | { item: number; refused: true; problems: Problem[] };

/**
 * `engram import FILE`: the file's facts in requests the server takes (see importRequests), refused
 * facts named by their line. Exits 1 when any was refused (the others are stored).
 */
export async function importCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { url: { type: 'string' }, token: { type: 'string' }, json: { type: 'boolean', default: false }, batch: { type: 'string' } },
  });
  const file = positionals[0];
  if (!file) throw new Error('Usage: engram import FILE [--url URL] [--token TOKEN] [--batch N] [--json]');
  const maxFacts = values.batch === undefined ? MAX_IMPORT_BATCH : Number(values.batch);
  if (!Number.isInteger(maxFacts) || maxFacts < 1 || maxFacts > MAX_IMPORT_BATCH) {
    throw new Error(`--batch must be a whole number of facts per request from 1 to ${MAX_IMPORT_BATCH}`);
  }
  const parsed = parseFactsFile(fs.readFileSync(file, 'utf8'));
  const facts = parsed.facts.map((f) => ({ fact: importable(f.fact), at: f.at }));
  const { url, token } = connection(config, values);
  const results: Reported[] = [];
  for (const request of importRequests(facts, { maxFacts, maxBytes: IMPORT_REQUEST_BYTES })) {
    const response = await fetch(`${url}/api/v1/facts/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ facts: request.map((f) => f.fact) }),
    });
    if (!response.ok) {
      const error = await failure(response);
      const where = `${parsed.unit}s ${request[0]!.at}-${request.at(-1)!.at}`;
      const done = results.length > 0 ? ` The ${results.length} fact(s) before them were imported; run the import again to go on (facts already imported come back as duplicates).` : '';
      throw new Error(`${where}: ${error.message}${done}`);
    }
    const answer = (await response.json()) as { facts: Result[] };
    for (const [i, r] of answer.facts.entries()) {
      if (!('refused' in r)) {
        results.push(r);
        continue;
      }
      // The server names a field by its index in the request (`facts.3.content`); the file, by line.
      const problems = r.problems.map((p) => ({ ...p, field: p.field.replace(/^facts\.\d+\.?/, '') }));
      const at = request[i]!.at;
      results.push(parsed.unit === 'line' ? { line: at, refused: true, problems } : { item: at, refused: true, problems });
    }
  }
  const refused = results.filter((r) => 'refused' in r);
  const duplicates = results.filter((r) => 'duplicate' in r && r.duplicate).length;
  const stored = results.length - duplicates - refused.length;
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ stored, duplicates, refused: refused.length, facts: results }, null, 2)}\n`);
  } else {
    const lines = [`Imported ${stored} new fact(s); ${duplicates} were already known; ${refused.length} refused.`];
    for (const r of refused) {
      const at = 'line' in r ? `line ${r.line}` : `item ${r.item}`;
      for (const p of r.problems) lines.push(`  ${at}: ${p.field ? `${p.field} ` : ''}${p.message}`);
    }
    if (refused.length > 0) lines.push('Fix those and import the file again: the facts already imported come back as duplicates.');
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return refused.length > 0 ? 1 : 0;
}

export async function exportCommand(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      after: { type: 'string' },
      scope: { type: 'string' },
    },
  });
  const { url, token } = connection(config, values);
  const query = new URLSearchParams();
  if (values.after) query.set('after', values.after);
  if (values.scope) query.set('scope', values.scope);
  const response = await fetch(`${url}/api/v1/facts/since?${query.toString()}`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok || !response.body) throw await failure(response);
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) process.stdout.write(chunk);
}
