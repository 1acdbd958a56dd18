import type { Config } from '@engram/config';
import type { DbHandle } from '@engram/db';

/** What the app needs to serve requests; built once at start (or per test). */
export interface AppContext {
  config: Config;
  db: DbHandle;
  /** Server secret that seals invite keys (ENGRAM_SECRET, or the embedded mode's generated one). */
  secret: string;
}
