/**
 * A local HTTP server that speaks the OpenAI wire format (`/v1/embeddings`, `/v1/chat/completions`)
 * so tests exercise the real `openai` SDK end to end. Replies are scripted per test; every request
 * is recorded.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { embedLocally } from '@engram/core';
import { getEncoding } from 'js-tiktoken';

/** gpt-4o-mini's tokenizer, so token counts in tests and benchmarks are the real ones. */
const encoding = getEncoding('o200k_base');
export const countTokens = (text: string) => encoding.encode(text).length;

/** Prompt tokens of a chat request as OpenAI counts them (content plus a few per message). */
export function promptTokensOf(body: Record<string, unknown>): number {
  const messages = (body.messages as { content?: string }[] | undefined) ?? [];
  return messages.reduce((n, m) => n + countTokens(m.content ?? '') + 3, 3);
}

/** A chat completion reply with `content`, and usage counted from the request. */
export function chatReply(body: Record<string, unknown>, content: string, extra: Partial<ScriptedReply> = {}): ScriptedReply {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: promptTokensOf(body),
        completion_tokens: countTokens(content),
        total_tokens: promptTokensOf(body) + countTokens(content),
      },
    },
    ...extra,
  };
}

/** The story between <story> tags of a detective request. */
export function storyOf(body: Record<string, unknown>): string[] {
  const messages = (body.messages as { role?: string; content?: string }[] | undefined) ?? [];
  const user = messages.findLast((m) => m.role === 'user')?.content ?? '';
  return (/<story>\n([\s\S]*?)\n<\/story>/.exec(user)?.[1] ?? '').split('\n').filter(Boolean);
}

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** When it arrived (ms since the epoch). */
  at: number;
}

export interface ScriptedReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
  /** Close the connection instead of answering (a transport failure). */
  drop?: boolean;
}

export interface FakeOpenAI {
  /** Base URL to use as OPENAI_BASE_URL (ends in /v1). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Replies for /v1/embeddings, used in order; when empty, deterministic embeddings of the input. */
  embeddingReplies: ScriptedReply[];
  /** Replies for /v1/chat/completions, used in order; when empty, `defaultChat` (else a 500). */
  chatReplies: (ScriptedReply | ((body: Record<string, unknown>) => ScriptedReply))[];
  defaultChat?: (body: Record<string, unknown>) => ScriptedReply;
  /** Chat requests being answered right now, and the most there ever were at once. */
  inFlight: number;
  maxInFlight: number;
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
  const fake: Omit<FakeOpenAI, 'baseUrl' | 'close'> = { requests: [], embeddingReplies: [], chatReplies: [], inFlight: 0, maxInFlight: 0 };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      const path = (req.url ?? '').split('?')[0] ?? '';
      fake.requests.push({ path, headers: req.headers, body, at: Date.now() });
      let reply: ScriptedReply;
      if (path.endsWith('/embeddings')) {
        reply = fake.embeddingReplies.shift() ?? { status: 200, body: embeddingsFor(body) };
      } else if (path.endsWith('/chat/completions')) {
        const next = fake.chatReplies.shift();
        try {
          reply =
            typeof next === 'function'
              ? next(body)
              : (next ?? fake.defaultChat?.(body) ?? { status: 500, body: { error: { message: 'no scripted reply' } } });
        } catch (error) {
          // A script that cannot answer (say, a fact it expected is not in the story) is a 500 the test sees.
          reply = { status: 500, body: { error: { message: `test script failed: ${String(error)}` } } };
        }
        fake.inFlight++;
        fake.maxInFlight = Math.max(fake.maxInFlight, fake.inFlight);
        res.on('close', () => fake.inFlight--);
      } else {
        reply = { status: 404, body: { error: { message: `unknown path ${path}` } } };
      }
      const send = () => {
        if (res.destroyed) return;
        if (reply.drop) {
          req.socket.destroy();
          return;
        }
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
