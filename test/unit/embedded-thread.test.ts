import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const FIXTURE = fileURLToPath(new URL('../fixtures/thread-young-generation.ts', import.meta.url));

describe('the embedded database thread', () => {
  it('gets a young generation of its own size although the process runs with --max-semi-space-size', async () => {
    const { stdout } = await run(process.execPath, ['--max-semi-space-size=16', FIXTURE], { env: { ...process.env, NODE_OPTIONS: '' } });
    const sizes = JSON.parse(stdout) as { small: number; main: number };
    // 6 MiB of young generation is 4 MiB of new space; the flag's 16 MiB semi-spaces are 32, which
    // the server's own heap keeps.
    expect(sizes.small).toBeLessThanOrEqual(4);
    expect(sizes.main).toBe(32);
  });
});
