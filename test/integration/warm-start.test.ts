/**
 * A started server loads the language model itself, so the first commit after a start does not
 * wait for it. On its own file: the model is loaded once per process, and nothing else here reads a fact.
 */
import { languageModelLoaded } from '@engram/core';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.ts';

describe('server start', () => {
  let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
  afterAll(async () => server?.stop());

  it('loads the language model once it listens, before any fact is committed', async () => {
    expect(languageModelLoaded()).toBe(false);
    server = await startTestServer();
    // Waited for on state: the load runs in a turn of the loop after listening, however busy the machine.
    while (!languageModelLoaded()) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(languageModelLoaded()).toBe(true);
  });
});
