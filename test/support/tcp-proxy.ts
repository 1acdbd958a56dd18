import net from 'node:net';

/**
 * A TCP proxy in front of a database, for fault tests: `up` forwards, `down` closes every
 * connection and stops listening (new connects are refused, as when the server has crashed),
 * `stall` keeps connections open but forwards nothing (a hung network or server), `full` keeps
 * the open connections working and answers new ones as a Postgres server with no free slots does.
 */
export class TcpProxy {
  readonly #target: { host: string; port: number };
  #server: net.Server | undefined;
  #port = 0;
  #mode: 'up' | 'down' | 'stall' | 'full' = 'up';
  readonly #pairs = new Set<[net.Socket, net.Socket | undefined]>();

  constructor(target: { host: string; port: number }) {
    this.#target = target;
  }

  get port(): number {
    return this.#port;
  }

  /** `url` with its host and port replaced by this proxy's. */
  via(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.#port);
    return proxied.toString();
  }

  async start(): Promise<void> {
    await this.#listen(0);
  }

  /** Connections accepted so far and still open. */
  get connections(): number {
    return this.#pairs.size;
  }

  async up(): Promise<void> {
    this.#mode = 'up';
    for (const [client, upstream] of this.#pairs) {
      client.resume();
      upstream?.resume();
    }
    if (!this.#server) await this.#listen(this.#port);
  }

  /** Drops every connection and refuses new ones. */
  async down(): Promise<void> {
    this.#mode = 'down';
    const server = this.#server;
    this.#server = undefined;
    for (const [client, upstream] of this.#pairs) {
      client.destroy();
      upstream?.destroy();
    }
    this.#pairs.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Keeps connections open, forwards nothing, and accepts new ones that go nowhere. */
  stall(): void {
    this.#mode = 'stall';
    for (const [client, upstream] of this.#pairs) {
      client.pause();
      upstream?.pause();
    }
  }

  /** Open connections keep working; new ones get FATAL 53300 "too many clients" after their startup message. */
  full(): void {
    this.#mode = 'full';
  }

  async close(): Promise<void> {
    await this.down();
  }

  async #listen(port: number): Promise<void> {
    const server = net.createServer((client) => this.#accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.#server = server;
    this.#port = (server.address() as net.AddressInfo).port;
  }

  #accept(client: net.Socket): void {
    client.on('error', () => {});
    if (this.#mode === 'full') {
      // Postgres decides at the startup message: one that arrives after `up` is served.
      client.once('data', (startup: Buffer) => {
        if (this.#mode === 'full') client.end(tooManyClients());
        else this.#forward(client, startup);
      });
      return;
    }
    if (this.#mode === 'stall') {
      const pair: [net.Socket, net.Socket | undefined] = [client, undefined];
      this.#pairs.add(pair);
      client.pause();
      client.once('close', () => this.#pairs.delete(pair));
      return;
    }
    this.#forward(client);
  }

  /** Connects `client` to the target, sending `first` (bytes already read from it) ahead. */
  #forward(client: net.Socket, first?: Buffer): void {
    const upstream = net.connect(this.#target.port, this.#target.host);
    if (first) upstream.write(first);
    upstream.on('error', () => client.destroy());
    const pair: [net.Socket, net.Socket | undefined] = [client, upstream];
    this.#pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.once('close', end);
    upstream.once('close', end);
  }
}

/** The ErrorResponse a Postgres server sends a connection it has no slot for. */
function tooManyClients(): Buffer {
  const fields = [
    ['S', 'FATAL'],
    ['V', 'FATAL'],
    ['C', '53300'],
    ['M', 'sorry, too many clients already'],
  ];
  const body = Buffer.concat([...fields.map(([code, text]) => Buffer.from(`${code}${text}\0`)), Buffer.from([0])]);
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}
