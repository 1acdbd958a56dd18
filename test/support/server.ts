import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Config } from '@engram/config';
import { createLogger, startServer, type RunningServer } from '@engram/server';
import { testConfig } from './app.ts';

/** A real server on a random port, over a fresh embedded database in a temporary directory. */
export async function startTestServer(
  overrides: Partial<Config> = {},
): Promise<RunningServer & { dataDir: string; stop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-e2e-'));
  const config = testConfig({ dataDir, database: { kind: 'pglite', dataDir: 'memory://' }, ...overrides });
  const server = await startServer(config, createLogger(config));
  return {
    ...server,
    dataDir,
    stop: async () => {
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
