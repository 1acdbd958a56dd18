/**
 * One thread of the concurrency benchmark's clients (test/bench/concurrency.ts starts it as a
 * worker): each client is the SDK's MCP client with its own member token, issuing `engram_commit`
 * and `engram_query` in turn (or the stack ceiling's `floor_commit` and `floor_query`, with the
 * same texts), one call at a time, from `startAt` until `endAt`. Only the SDK is loaded here, so a
 * thread costs little besides the calls it makes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { watchEventLoopDelay } from './stats.ts';
import { factText, QUERY_TOPICS } from './story.ts';

/** What a client thread is given. */
export interface ClientThreadInput {
  mcpUrl: string;
  /** Call the stack ceiling's tools (stack-ceiling.ts), which name the client's workspace, instead of Engram's. */
  ceiling?: boolean;
  clients: { token: string; workspaceId: string; agentId: string; serialBase: number; commitFirst: boolean }[];
}

/** Main thread → client thread: the window to run in (epoch milliseconds). */
export interface GoMessage {
  type: 'go';
  startAt: number;
  endAt: number;
}

/** Client thread → main thread. */
export type ClientThreadMessage =
  | { type: 'ready' }
  | {
      type: 'done';
      commitMs: number[];
      queryMs: number[];
      commitErrors: number;
      queryErrors: number;
      /** A few distinct error messages, to say what failed. */
      errorSamples: string[];
      /** When the last call of the window ended (epoch ms). */
      lastEnd: number;
      /** This thread's own event-loop delay during the window: if it is high, the client side is lagging. */
      loopDelayP99Ms: number;
      loopDelayMaxMs: number;
    };

const epochNow = () => performance.timeOrigin + performance.now();

async function connect(mcpUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'engram-bench-concurrency', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

async function run(input: ClientThreadInput, port: NonNullable<typeof parentPort>): Promise<void> {
  const clients = await Promise.all(input.clients.map((c) => connect(input.mcpUrl, c.token)));
  const commitMs: number[] = [];
  const queryMs: number[] = [];
  let commitErrors = 0;
  let queryErrors = 0;
  const errorSamples = new Set<string>();
  let measuring = false;

  const call = async (client: Client, spec: ClientThreadInput['clients'][number], i: number, commit: boolean) => {
    const topic = QUERY_TOPICS[i % QUERY_TOPICS.length]!;
    const args = input.ceiling
      ? commit
        ? { ...factText(spec.serialBase + i), workspace_id: spec.workspaceId }
        : { topic, workspace_id: spec.workspaceId }
      : commit
        ? { ...factText(spec.serialBase + i), confidence: 0.9, agent_id: spec.agentId }
        : { topic, limit: 10 };
    const name = `${input.ceiling ? 'floor' : 'engram'}_${commit ? 'commit' : 'query'}`;
    const started = performance.now();
    let failure: string | undefined;
    try {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) failure = (result.content as { text?: string }[]).map((c) => c.text ?? '').join(' ');
    } catch (error) {
      failure = (error as Error).message;
    }
    const elapsed = performance.now() - started;
    if (!measuring) return;
    if (failure === undefined) (commit ? commitMs : queryMs).push(elapsed);
    else {
      if (commit) commitErrors++;
      else queryErrors++;
      if (errorSamples.size < 5) errorSamples.add(`${name}: ${failure.slice(0, 200)}`);
    }
  };

  // One commit and one query each before the window: connections open, the server has seen every token.
  await Promise.all(clients.map(async (client, k) => {
    await call(client, input.clients[k]!, 0, true);
    await call(client, input.clients[k]!, 1, false);
  }));
  port.postMessage({ type: 'ready' } satisfies ClientThreadMessage);

  const go = await new Promise<GoMessage>((resolve) => port.once('message', resolve));
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, go.startAt - Date.now())));
  const loop = watchEventLoopDelay();
  measuring = true;
  let lastEnd = epochNow();
  await Promise.all(
    clients.map(async (client, k) => {
      const spec = input.clients[k]!;
      for (let i = 2; epochNow() < go.endAt; i++) {
        await call(client, spec, i, (i % 2 === 0) === spec.commitFirst);
      }
      lastEnd = Math.max(lastEnd, epochNow());
    }),
  );
  const delay = loop.stop();
  port.postMessage({
    type: 'done',
    commitMs,
    queryMs,
    commitErrors,
    queryErrors,
    errorSamples: [...errorSamples],
    lastEnd,
    loopDelayP99Ms: delay.p99,
    loopDelayMaxMs: delay.max,
  } satisfies ClientThreadMessage);
  await Promise.all(clients.map((c) => c.close()));
}

if (parentPort) await run(workerData as ClientThreadInput, parentPort);
