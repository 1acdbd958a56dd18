/**
 * A local HTTP server that speaks the OpenAI wire format (`/v1/embeddings`, `/v1/chat/completions`)
 * so tests exercise the real `openai` SDK end to end. Replies are scripted per test; every request
 * is recorded.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { embedLocally } from '@engram/core';

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface ScriptedReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
}

export interface FakeOpenAI {
  /** Base URL to use as OPENAI_BASE_URL (ends in /v1). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Replies for /v1/embeddings, used in order; when empty, deterministic embeddings of the input. */
  embeddingReplies: ScriptedReply[];
  /** Replies for /v1/chat/completions, used in order; when empty, a 500. */
  chatReplies: (ScriptedReply | ((body: Record<string, unknown>) => ScriptedReply))[];
  close(): Promise<void>;
}

function embeddingsFor(body: Record<string, unknown>): unknown {
  const input = body.input;
  const texts = Array.isArray(input) ? (input as string[]) : [String(input)];
  const dimensions = typeof body.dimensions === 'number' ? body.dimensions : 1536;
  return {
    object: 'list',
    model: body.model,
    data: texts.map((t, index) => ({ object: 'embedding', index, embedding: embedLocally(`openai:${t}`, dimensions) })),
    usage: { prompt_tokens: texts.join(' ').split(/\s+/).length, total_tokens: texts.join(' ').split(/\s+/).length },
  };
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const fake: Omit<FakeOpenAI, 'baseUrl' | 'close'> = { requests: [], embeddingReplies: [], chatReplies: [] };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      const path = (req.url ?? '').split('?')[0] ?? '';
      fake.requests.push({ path, headers: req.headers, body });
      let reply: ScriptedReply;
      if (path.endsWith('/embeddings')) {
        reply = fake.embeddingReplies.shift() ?? { status: 200, body: embeddingsFor(body) };
      } else if (path.endsWith('/chat/completions')) {
        const next = fake.chatReplies.shift();
        reply = typeof next === 'function' ? next(body) : (next ?? { status: 500, body: { error: { message: 'no scripted reply' } } });
      } else {
        reply = { status: 404, body: { error: { message: `unknown path ${path}` } } };
      }
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
        res.end(JSON.stringify(reply.body));
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
