/**
 * The MCP SDK made, for every request Engram answers, a transport's three callbacks and a
 * registered tool's accessor pair that V8 allocates in the old generation; each kept the
 * per-request server, its transport and the request alive through every young-generation GC
 * until a full one. The patch (patches/@modelcontextprotocol+server+2.4.0.patch) makes the
 * callbacks in locals and puts the tool's `outputSchemaJson` memo on a shared prototype; with the
 * driver's patch, 1,500 sequential engram_query calls promoted 30 MB instead of 52 MB.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const FIXTURE = fileURLToPath(new URL('../fixtures/sdk-closures.ts', import.meta.url));

describe('the MCP SDK, as patched', () => {
  it("makes a connected transport's callbacks in the young generation, and a tool's memo without accessors of its own", async () => {
    const { stdout } = await run(process.execPath, ['--allow-natives-syntax', FIXTURE], { env: { ...process.env, NODE_OPTIONS: '' } });
    expect(JSON.parse(stdout)).toEqual({
      onmessage: true,
      onclose: true,
      onerror: true,
      ownAccessor: false,
      // The memo still converts the output schema on first read, and still takes a value set on it.
      outputSchemaType: 'object',
      answered: { text: 'hi' },
      afterSet: { type: 'object', set: true },
    });
  });
});
