/**
 * Which network addresses an outbound fetch on a stranger's behalf may reach (SSRF). A Client ID
 * Metadata Document URL is chosen by whoever opens the authorization page, without signing in, so
 * its host is resolved once, every address it resolves to is checked here, and the connection goes
 * to a checked address (see `fetchPinned`): no second resolution an attacker's DNS could answer
 * differently.
 *
 * An address is refused when it, or an IPv4 address it carries (IPv4-mapped, IPv4-compatible,
 * IPv4-translated, NAT64, 6to4, Teredo, ISATAP), is private, loopback, link-local, shared (CGNAT),
 * reserved, documentation, benchmarking or multicast; and an IPv6 address must be global unicast
 * (2000::/3) unless it is a translation of a public IPv4 address.
 */
import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

type Range = readonly [network: string, prefix: number, what: string];

// IANA's IPv4 special-purpose registry, less the ranges that are globally reachable (AS112, AMT).
const IPV4_RANGES: readonly Range[] = [
  ['0.0.0.0', 8, 'a "this network" address (0.0.0.0/8, which reaches this machine)'],
  ['10.0.0.0', 8, 'a private address (10.0.0.0/8)'],
  ['100.64.0.0', 10, 'a shared carrier-grade NAT address (100.64.0.0/10)'],
  ['127.0.0.0', 8, 'a loopback address (127.0.0.0/8)'],
  ['169.254.0.0', 16, 'a link-local address (169.254.0.0/16, where cloud metadata services live)'],
  ['172.16.0.0', 12, 'a private address (172.16.0.0/12)'],
  ['192.0.0.0', 24, 'an IETF protocol address (192.0.0.0/24)'],
  ['192.0.2.0', 24, 'a documentation address (192.0.2.0/24)'],
  ['192.88.99.0', 24, 'a 6to4 relay anycast address (192.88.99.0/24)'],
  ['192.168.0.0', 16, 'a private address (192.168.0.0/16)'],
  ['198.18.0.0', 15, 'a benchmarking address (198.18.0.0/15)'],
  ['198.51.100.0', 24, 'a documentation address (198.51.100.0/24)'],
  ['203.0.113.0', 24, 'a documentation address (203.0.113.0/24)'],
  ['224.0.0.0', 4, 'a multicast address (224.0.0.0/4)'],
  ['240.0.0.0', 4, 'a reserved address (240.0.0.0/4, with the broadcast address)'],
];

// Special-purpose IPv6 ranges inside or beside global unicast; everything else outside 2000::/3
// is refused by the global-unicast rule below.
const IPV6_RANGES: readonly Range[] = [
  ['::', 128, 'the unspecified address (::)'],
  ['::1', 128, 'the loopback address (::1)'],
  ['64:ff9b:1::', 48, 'a local-use NAT64 address (64:ff9b:1::/48)'],
  ['100::', 64, 'a discard-only address (100::/64)'],
  ['2001::', 23, 'an IETF protocol address (2001::/23)'],
  ['2001:db8::', 32, 'a documentation address (2001:db8::/32)'],
  ['3fff::', 20, 'a documentation address (3fff::/20)'],
  ['fc00::', 7, 'a unique-local address (fc00::/7)'],
  ['fe80::', 10, 'a link-local address (fe80::/10)'],
  ['fec0::', 10, 'a site-local address (fec0::/10)'],
  ['ff00::', 8, 'a multicast address (ff00::/8)'],
];

function blockLists(ranges: readonly Range[], family: 'ipv4' | 'ipv6') {
  return ranges.map(([network, prefix, what]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, what };
  });
}
const IPV4_BLOCKED = blockLists(IPV4_RANGES, 'ipv4');
const IPV6_BLOCKED = blockLists(IPV6_RANGES, 'ipv6');
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

/** The 16 bytes of a valid IPv6 address (hex groups, `::`, a dotted IPv4 tail; a zone is dropped). */
export function ipv6Bytes(address: string): Uint8Array | null {
  const text = address.replace(/%.*$/, '').toLowerCase();
  if (isIP(text) !== 6) return null;
  const bytes = new Uint8Array(16);
  let head = text;
  const lastColon = text.lastIndexOf(':');
  const dotted = text.slice(lastColon + 1);
  if (dotted.includes('.')) {
    dotted.split('.').forEach((octet, i) => (bytes[12 + i] = Number(octet)));
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [left = '', right] = head.split('::');
  const leftGroups = left ? left.split(':') : [];
  const rightGroups = right ? right.split(':') : [];
  const groups = right === undefined ? leftGroups : [...leftGroups, ...Array<string>(8 - leftGroups.length - rightGroups.length).fill('0'), ...rightGroups];
  groups.forEach((group, i) => {
    // The dotted tail already filled bytes 12–15; its placeholder groups are zero.
    if (dotted.includes('.') && i >= 6) return;
    const value = Number.parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 0xff;
  });
  return bytes;
}

const v4 = (b: Uint8Array, at: number, xor = 0) => [0, 1, 2, 3].map((i) => (b[at + i]! ^ xor).toString()).join('.');
const zero = (b: Uint8Array, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
const startsWith = (b: Uint8Array, prefix: readonly number[]) => prefix.every((x, i) => b[i] === x);

/** The IPv4 addresses an IPv6 address carries, with the name of the form that carries each. */
export function embeddedIPv4(bytes: Uint8Array): { form: string; address: string }[] {
  const found: { form: string; address: string }[] = [];
  if (zero(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) found.push({ form: 'IPv4-mapped (::ffff:0:0/96)', address: v4(bytes, 12) });
  // `::` and `::1` are themselves, not IPv4 0.0.0.0 and 0.0.0.1.
  else if (zero(bytes, 0, 12) && !(zero(bytes, 12, 15) && bytes[15]! <= 1)) found.push({ form: 'IPv4-compatible (::/96)', address: v4(bytes, 12) });
  else if (zero(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zero(bytes, 10, 12)) found.push({ form: 'IPv4-translated (::ffff:0:0:0/96)', address: v4(bytes, 12) });
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b]) && zero(bytes, 4, 12)) found.push({ form: 'NAT64 (64:ff9b::/96)', address: v4(bytes, 12) });
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01])) found.push({ form: 'local-use NAT64 (64:ff9b:1::/48)', address: v4(bytes, 12) });
  if (startsWith(bytes, [0x20, 0x02])) found.push({ form: '6to4 (2002::/16)', address: v4(bytes, 2) });
  if (startsWith(bytes, [0x20, 0x01, 0x00, 0x00])) {
    found.push({ form: 'Teredo server (2001::/32)', address: v4(bytes, 4) });
    found.push({ form: 'Teredo client (2001::/32)', address: v4(bytes, 12, 0xff) });
  }
  if ((bytes[8] === 0x00 || bytes[8] === 0x02) && bytes[9] === 0x00 && bytes[10] === 0x5e && bytes[11] === 0xfe) found.push({ form: 'ISATAP (::5efe:0:0/96)', address: v4(bytes, 12) });
  return found;
}

function ipv4Problem(address: string): string | null {
  return IPV4_BLOCKED.find(({ list }) => list.check(address, 'ipv4'))?.what ?? null;
}

/**
 * Why an outbound fetch must not connect to `address` (a resolved IPv4 or IPv6 address, any
 * spelling), or null when it is a public address.
 */
export function addressProblem(address: string): string | null {
  const bare = address.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return ipv4Problem(bare);
  const bytes = family === 6 ? ipv6Bytes(bare) : null;
  if (!bytes) return `"${address.slice(0, 60)}" is not an IP address`;
  const carried = embeddedIPv4(bytes);
  for (const { form, address: inner } of carried) {
    const problem = ipv4Problem(inner);
    if (problem) return `${problem}, written in its ${form} form`;
  }
  const special = IPV6_BLOCKED.find(({ list }) => list.check(bare, 'ipv6'));
  if (special) return special.what;
  const translatesPublicIPv4 = carried.some(({ form }) => form.startsWith('IPv4-mapped') || form.startsWith('NAT64'));
  if (!GLOBAL_UNICAST.check(bare, 'ipv6') && !translatesPublicIPv4) return 'an IPv6 address outside global unicast (2000::/3)';
  return null;
}

/** Whether `address` is this machine's loopback (127.0.0.0/8 or ::1, in any spelling). */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/%.*$/, '');
  if (isIP(bare) === 4) return bare.startsWith('127.');
  const bytes = ipv6Bytes(bare);
  if (!bytes) return false;
  if (zero(bytes, 0, 15) && bytes[15] === 1) return true;
  return embeddedIPv4(bytes).some(({ form, address: inner }) => form.startsWith('IPv4-mapped') && inner.startsWith('127.'));
}

/** A resolved address, as `dns.lookup(…, { all: true })` gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all its addresses (an IP literal resolves to itself). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, as the rest of the process sees names). */
export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** What a pinned fetch got: the status, and the body of a 2xx answer (null when over the limit). */
export interface PinnedResponse {
  status: number;
  body: string | null;
}

/**
 * GETs `url` over a connection to one of `addresses` (already checked), never resolving the name
 * again: the name still goes in the Host header and in TLS's SNI and certificate check. Redirects
 * are not followed (a 3xx is returned as it is); only a 2xx body is read, up to `maxBytes`.
 */
export async function fetchPinned(url: URL, addresses: readonly ResolvedAddress[], options: { timeoutMs: number; maxBytes: number; accept: string }): Promise<PinnedResponse> {
  if (addresses.length === 0) throw new Error('no address to connect to');
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    const usable = addresses.filter((a) => !lookupOptions.family || a.family === lookupOptions.family);
    const chosen = usable.length > 0 ? usable : addresses;
    if (lookupOptions.all) callback(null, chosen.map((a) => ({ address: a.address, family: a.family })));
    else callback(null, chosen[0]!.address, chosen[0]!.family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const signal = AbortSignal.timeout(options.timeoutMs);
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = send(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        headers: { accept: options.accept },
        // A connection of its own: a pooled socket would not go through `lookup`.
        agent: false,
        lookup: pinned,
        signal,
      },
      resolve,
    );
    request.on('error', reject);
    request.end();
  });
  const status = response.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    response.destroy();
    return { status, body: null };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > options.maxBytes) {
      response.destroy();
      return { status, body: null };
    }
    chunks.push(chunk);
  }
  return { status, body: Buffer.concat(chunks).toString('utf8') };
}
