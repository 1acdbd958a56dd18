/**
 * The address classifier outbound fetches for strangers go through (client metadata documents):
 * every spelling of a private, loopback, link-local or otherwise special address is refused,
 * public ones pass; and a pinned fetch connects to the checked address, never to a new resolution.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { addressProblem, fetchPinned, ipv6Bytes, isLoopbackAddress } from '@engram/core';
import { afterEach, describe, expect, it } from 'vitest';

const REFUSED: [address: string, reason: RegExp][] = [
  ['127.0.0.1', /loopback/],
  ['127.255.255.254', /loopback/],
  ['0.0.0.0', /this network/],
  ['0.1.2.3', /this network/],
  ['10.1.2.3', /private/],
  ['172.16.0.1', /private/],
  ['172.31.255.255', /private/],
  ['192.168.1.1', /private/],
  ['100.64.0.1', /carrier-grade NAT/],
  ['100.127.255.255', /carrier-grade NAT/],
  ['169.254.169.254', /link-local/],
  ['192.0.0.8', /IETF protocol/],
  ['192.0.2.1', /documentation/],
  ['198.18.0.1', /benchmarking/],
  ['198.19.255.255', /benchmarking/],
  ['224.0.0.1', /multicast/],
  ['240.0.0.1', /reserved/],
  ['255.255.255.255', /reserved/],
  // IPv6 ranges of their own.
  ['::', /unspecified/],
  ['::1', /loopback/],
  ['0:0:0:0:0:0:0:1', /loopback/],
  ['fe80::1', /link-local/],
  ['fe80::1%eth0', /link-local/],
  ['febf:ffff::1', /link-local/],
  ['fc00::1', /unique-local/],
  ['fd12:3456:789a::1', /unique-local/],
  ['fec0::1', /site-local/],
  ['ff02::1', /multicast/],
  ['2001:db8::1', /documentation/],
  ['100::1', /discard/],
  ['64:ff9b:1::808:808', /local-use NAT64/],
  ['5f00::1', /outside global unicast/],
  ['4000::1', /outside global unicast/],
  // IPv4 carried inside IPv6, in hex and dotted spellings.
  ['::ffff:127.0.0.1', /loopback.*IPv4-mapped/],
  ['::ffff:7f00:1', /loopback.*IPv4-mapped/],
  ['0:0:0:0:0:ffff:7f00:1', /loopback.*IPv4-mapped/],
  ['::FFFF:7F00:0001', /loopback.*IPv4-mapped/],
  ['0000:0000:0000:0000:0000:ffff:127.0.0.1', /loopback.*IPv4-mapped/],
  ['::ffff:169.254.169.254', /link-local.*IPv4-mapped/],
  ['::ffff:a9fe:a9fe', /link-local.*IPv4-mapped/],
  ['::ffff:10.0.0.1', /private.*IPv4-mapped/],
  ['::ffff:0.0.0.0', /this network.*IPv4-mapped/],
  ['::127.0.0.1', /loopback.*IPv4-compatible/],
  ['::7f00:1', /loopback.*IPv4-compatible/],
  ['::ffff:0:127.0.0.1', /loopback.*IPv4-translated/],
  ['::ffff:0:7f00:1', /loopback.*IPv4-translated/],
  ['64:ff9b::127.0.0.1', /loopback.*NAT64/],
  ['64:ff9b::a00:1', /private.*NAT64/],
  ['64:ff9b::a9fe:a9fe', /link-local.*NAT64/],
  ['2002:7f00:1::', /loopback.*6to4/],
  ['2002:a00:1::1', /private.*6to4/],
  ['2002:c0a8:101::1', /private.*6to4/],
  ['2001:0:7f00:1::', /loopback.*Teredo server/],
  // Teredo keeps the client's address inverted: 80ff:fffe is 127.0.0.1.
  ['2001:0:808:808:0:0:80ff:fffe', /loopback.*Teredo client/],
  ['2600:1f18::5efe:10.0.0.1', /private.*ISATAP/],
  ['2600:1f18::200:5efe:7f00:1', /loopback.*ISATAP/],
  // Not an address at all.
  ['localhost', /not an IP address/],
  ['127.1', /not an IP address/],
];

const PUBLIC = ['8.8.8.8', '1.1.1.1', '93.184.215.14', '172.32.0.1', '100.128.0.1', '192.169.0.1', '198.20.0.1', '::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::808:808', '2606:4700:4700::1111', '2a00:1450:4001:82b::200e', '2002:808:808::1', '2600:1f18::5efe:8.8.8.8'];

describe('outbound address policy', () => {
  it.each(REFUSED)('refuses %s', (address, reason) => {
    expect(addressProblem(address)).toMatch(reason);
  });

  it.each(PUBLIC)('lets public %s through', (address) => {
    expect(addressProblem(address)).toBeNull();
  });

  it('reads every spelling of an IPv6 address to the same bytes', () => {
    const expected = [...ipv6Bytes('0:0:0:0:0:ffff:7f00:1')!];
    for (const spelling of ['::ffff:127.0.0.1', '::FFFF:7F00:1', '0000:0000:0000:0000:0000:FFFF:7F00:0001', '::ffff:7f00:0001', '0::ffff:127.0.0.1']) {
      expect([...ipv6Bytes(spelling)!], spelling).toEqual(expected);
    }
    expect([...ipv6Bytes('2001:db8::1')!]).toEqual([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Bytes('127.0.0.1')).toBeNull();
    expect(ipv6Bytes('::ffff:127.0.0.256')).toBeNull();
  });

  it('tells loopback addresses apart from the rest, in every spelling', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '0:0:0:0:0:ffff:7f00:1']) expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of ['10.0.0.1', '::', '::2', '::ffff:10.0.0.1', '8.8.8.8', 'localhost']) expect(isLoopbackAddress(address), address).toBe(false);
  });
});

describe('pinned fetch', () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function listen(handler: http.RequestListener) {
    const server = http.createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  it('connects to the checked address with the name in the Host header, without resolving the name', async () => {
    const hosts: (string | undefined)[] = [];
    const port = await listen((request, response) => {
      hosts.push(request.headers.host);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    // `.invalid` never resolves (RFC 6761): the answer can only come through the pinned address.
    const url = new URL(`http://cimd.invalid:${port}/client.json`);
    const response = await fetchPinned(url, [{ address: '127.0.0.1', family: 4 }], { timeoutMs: 30_000, maxBytes: 1024, accept: 'application/json' });
    expect(response).toEqual({ status: 200, body: '{"ok":true}' });
    expect(hosts).toEqual([`cimd.invalid:${port}`]);
  });

  it('does not follow a redirect, and stops reading past the size limit', async () => {
    let elsewhere = 0;
    const target = await listen((_request, response) => {
      elsewhere++;
      response.end('{}');
    });
    const port = await listen((request, response) => {
      if (request.url === '/big') return void response.end('x'.repeat(4096));
      response.writeHead(302, { location: `http://127.0.0.1:${target}/client.json` }).end();
    });
    const options = { timeoutMs: 30_000, maxBytes: 1024, accept: 'application/json' };
    const pinned = [{ address: '127.0.0.1', family: 4 }];
    expect(await fetchPinned(new URL(`http://cimd.invalid:${port}/client.json`), pinned, options)).toEqual({ status: 302, body: null });
    expect(await fetchPinned(new URL(`http://cimd.invalid:${port}/big`), pinned, options)).toEqual({ status: 200, body: null });
    expect(elsewhere).toBe(0);
  });
});
