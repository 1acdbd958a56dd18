/**
 * The operator commands' way around a held embedded database. PGlite can be opened by one process
 * only: while `engram start` holds it, `engram member list|remove`, `token create|revoke`,
 * `workspace create` and `detection status|requeue` ask that server over HTTP instead.
 */
import type { Config } from '@engram/config';
import { createDb, DatabaseLockedError, type DbHandle } from '@engram/db';
import { localServerUrl } from '../local-server.ts';
import { localOperatorToken, resolveSecret } from '../local-state.ts';

/** A running server, called with one bearer token. */
export interface ServerClient {
  url: string;
  /** Sends a JSON request; a non-2xx answer throws with the server's message. */
  call: <T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => Promise<T>;
}

/** The configured database, or `undefined` when a running `engram start` holds the embedded one. */
export async function openUnlessHeld(config: Config): Promise<DbHandle | undefined> {
  try {
    return await createDb(config.database, { limits: config.databaseLimits });
  } catch (error) {
    if (error instanceof DatabaseLockedError) return undefined;
    throw error;
  }
}

/** The server at `url` (see {@link localServerUrl}), called as `token`. */
export function serverClient(url: string, token: string): ServerClient {
  return {
    url,
    call: async <T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> => {
      let response: Response;
      try {
        response = await fetch(`${url}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
          ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
        });
      } catch (error) {
        throw new Error(
          `The embedded database is open in a running engram start, which did not answer at ${url} (${(error as Error).message}). ` +
            'Pass --url with the address it printed, or stop it and run this again.',
          { cause: error },
        );
      }
      const answer = (await response.json().catch(() => ({}))) as T & { error?: { message?: string } };
      if (!response.ok) throw new Error(`${url}${path} answered ${response.status}: ${answer.error?.message ?? 'no details'}`);
      return answer;
    },
  };
}

/**
 * The running server, called with embedded mode's operator token (derived from the secret in
 * ENGRAM_DATA_DIR), which reaches every workspace of the embedded database through the admin API.
 */
export function operatorClient(config: Config, url: string | undefined): ServerClient {
  const server = serverClient(localServerUrl(config, url), localOperatorToken(resolveSecret(config)));
  process.stderr.write(`(The embedded database is open in the running server; asking it at ${server.url}.)\n`);
  return server;
}
