/** Whether a build output is older than its sources (the dashboard's and the MCP App's builds). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));

/** The newest modification time under `target` (a file, or a directory walked whole); 0 if missing. */
function newestMtime(target: string): number {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/**
 * Why `output` is out of date — missing, or older than one of `sources` or the lockfile — or null
 * when it is current.
 */
export function staleSince(output: string, sources: readonly string[]): string | null {
  const built = fs.statSync(output, { throwIfNoEntry: false });
  if (!built) return 'not built yet';
  const changed = [...sources, path.join(repo, 'package-lock.json')].find((s) => newestMtime(s) > built.mtimeMs);
  return changed ? `${path.relative(repo, changed)} changed since the last build` : null;
}
