/**
 * A Client ID Metadata Document URL is chosen by whoever opens the authorization page, signed in
 * or not. With a public ENGRAM_PUBLIC_URL, no spelling of a loopback or private address, and no
 * name resolving to one, makes the server connect: a listener on 127.0.0.1 counts the attempts.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { ClientDirectory, OAuthError } from '@engram/core';
import type { DbHandle } from '@engram/db';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const PUBLIC_URL = 'https://engram.example.com';

describe('client metadata documents never reach private addresses', () => {
  let handle: DbHandle;
  let app: FastifyInstance;
  let listener: net.Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    handle = await testDatabases()[0]!.open();
    app = await testApp(handle, { publicUrl: PUBLIC_URL });
    listener = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => listener?.close(resolve));
    await app?.close();
    await handle?.close();
  });

  const SPELLINGS = [
    '127.0.0.1',
    '127.1',
    '2130706433',
    '0x7f000001',
    '0x7f.0.0.1',
    '0177.0.0.1',
    '0.0.0.0',
    'localhost',
    '[::1]',
    '[::]',
    '[::ffff:127.0.0.1]',
    '[0:0:0:0:0:ffff:7f00:1]',
    '[::ffff:7f00:1]',
    '[::127.0.0.1]',
    '[::ffff:0:127.0.0.1]',
    '[64:ff9b::127.0.0.1]',
    '[2002:7f00:1::]',
    '[2001:0:7f00:1::]',
  ];

  it.each(SPELLINGS)('refuses https://%s:PORT/cid without connecting', async (host) => {
    const clientId = `https://${host}:${port}/cid`;
    const res = await app.inject({
      url: `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: 'http://127.0.0.1:9999/callback', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', state: 's' }).toString()}`,
      headers: { host: 'engram.example.com' },
    });
    expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
    expect(res.body).toMatch(/does not fetch/);
    expect(connections).toBe(0);
  });

  it('refuses a name when any of its addresses is private, and resolves it once', async () => {
    let lookups = 0;
    const directory = new ClientDirectory(handle.db, {
      resolve: async () => {
        lookups++;
        return [
          { address: '8.8.8.8', family: 4 },
          { address: '::ffff:127.0.0.1', family: 6 },
        ];
      },
    });
    const attempt = directory.resolve(`https://mixed.example.com:${port}/cid`, { allowLoopback: false });
    await expect(attempt).rejects.toBeInstanceOf(OAuthError);
    await expect(attempt).rejects.toThrow(/::ffff:127\.0\.0\.1 is a loopback address/);
    expect(lookups).toBe(1);
    expect(connections).toBe(0);
  });

  it('connects only where the single resolution pointed, whatever the name resolves to afterwards', async () => {
    // A rebinding resolver: a public address when checked, loopback on any later question.
    let lookups = 0;
    const directory = new ClientDirectory(handle.db, {
      timeoutMs: 2_000,
      resolve: async () => (lookups++ === 0 ? [{ address: '192.88.98.1', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]),
    });
    await expect(directory.resolve(`https://rebind.example.com:${port}/cid`, { allowLoopback: false })).rejects.toThrow(/could not be fetched/);
    expect(lookups).toBe(1);
    expect(connections).toBe(0);
  });
});
