/**
 * `engram import FILE` and `engram export`: clients of the journal API, so they work against a
 * running server (embedded or hosted) with a member token, and go through the same checks as any
 * other client.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Config } from '@engram/config';
import { MAX_IMPORT_BATCH } from '@engram/core';
import { localOwnerToken } from '../local-state.ts';

interface Connection {
  url: string;
  token: string;
}

/** Where and as whom: --url/--token, else this machine's server and its embedded owner token. */
function connection(config: Config, values: { url?: string; token?: string }): Connection {
  const url = (values.url ?? config.publicUrl ?? `http://127.0.0.1:${config.port || 8080}`).replace(/\/+$/, '');
  const token = values.token ?? localOwnerToken(config.dataDir);
  if (!token) {
    throw new Error('No token: pass --token egm_... (or run this next to an embedded `engram start`, which records one).');
  }
  return { url, token };
}

async function failure(response: Response): Promise<Error> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: { message?: string } };
    return new Error(`${response.status}: ${body.error?.message ?? text}`);
  } catch {
    return new Error(`${response.status}: ${text.slice(0, 500)}`);
  }
}

/** Facts from NDJSON (one per line, as `engram export` writes) or a JSON array / `{ facts: [...] }`. */
export function parseFactsFile(text: string): Record<string, unknown>[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('{"facts"') || trimmed.startsWith('{ "facts"')) {
    const parsed = JSON.parse(trimmed) as unknown;
    const list = Array.isArray(parsed) ? parsed : (parsed as { facts?: unknown }).facts;
    if (!Array.isArray(list)) throw new Error('expected a JSON array of facts or {"facts": [...]}');
    return list as Record<string, unknown>[];
  }
  return trimmed
    .split('\n')
    .filter((line) => line.trim())
    .map((line, i) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`line ${i + 1} is not valid JSON`);
      }
    });
}

// Journal lines carry fields the import does not take (ids, windows); keep what it accepts.
const IMPORT_FIELDS = ['content', 'scope', 'committed_at', 'agent_id', 'fact_type', 'confidence', 'provenance'];
const importable = (fact: Record<string, unknown>) =>
  Object.fromEntries(IMPORT_FIELDS.filter((k) => fact[k] !== undefined && fact[k] !== null).map((k) => [k, fact[k]]));

export async function importCommand(config: Config, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { url: { type: 'string' }, token: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const file = positionals[0];
  if (!file) throw new Error('Usage: engram import FILE [--url URL] [--token TOKEN] [--json]');
  const facts = parseFactsFile(fs.readFileSync(file, 'utf8')).map(importable);
  const { url, token } = connection(config, values);
  const results: { id: string; duplicate: boolean }[] = [];
  for (let start = 0; start < facts.length; start += MAX_IMPORT_BATCH) {
    const response = await fetch(`${url}/api/v1/facts/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ facts: facts.slice(start, start + MAX_IMPORT_BATCH) }),
    });
    if (!response.ok) throw await failure(response);
    results.push(...((await response.json()) as { facts: { id: string; duplicate: boolean }[] }).facts);
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ facts: results }, null, 2)}\n`);
    return;
  }
  const duplicates = results.filter((r) => r.duplicate).length;
  process.stdout.write(`Imported ${results.length - duplicates} new fact(s); ${duplicates} were already known.\n`);
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
