/**
 * Where this machine's Engram is and the owner token its embedded start recorded: what the CLI's
 * client commands and the developer tools (infra/mcp-tools.ts) need to reach it. Kept free of the
 * server's dependencies so a tool can import it without loading them.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '@engram/config';
import { z } from 'zod';

/** The embedded default workspace's record in the data directory (mode 0600). */
export const LOCAL_WORKSPACE_FILE = 'local-workspace.json';

export const RecordedWorkspace = z.object({ workspace_id: z.uuid(), engram_id: z.string(), owner_token: z.string() });
export type RecordedWorkspace = z.infer<typeof RecordedWorkspace>;

/** The record in `file`, or undefined when it is missing or unreadable. */
export function readRecordedWorkspace(file: string): RecordedWorkspace | undefined {
  try {
    return RecordedWorkspace.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch {
    return undefined;
  }
}

/** The owner token recorded in the data directory by an embedded start, if any. */
export function localOwnerToken(dataDir: string): string | undefined {
  return readRecordedWorkspace(path.join(dataDir, LOCAL_WORKSPACE_FILE))?.owner_token;
}

/** Where the server is: `url` (e.g. --url), else ENGRAM_PUBLIC_URL, else loopback on PORT; no trailing slash. */
export function localServerUrl(config: Pick<Config, 'publicUrl' | 'port'>, url?: string): string {
  return (url ?? config.publicUrl ?? `http://127.0.0.1:${config.port || 8080}`).replace(/\/+$/, '');
}
