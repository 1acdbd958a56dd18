/**
 * One call of the detective on one batch, through the `openai` SDK (OpenAI or any compatible
 * server): temperature 0, structured output when the server supports it (else the reply is read
 * leniently), and its own retries — 429 after the server's `retry-after`, 5xx, timeouts, lost
 * connections and replies that are not the asked-for JSON — with exponential backoff. Whatever
 * happens, the caller gets an outcome, never an exception, and the tokens every attempt cost.
 */
import OpenAI from 'openai';
import { DetectiveReply, parseReply, REPLY_JSON_SCHEMA, SYSTEM_PROMPT, userPrompt } from './prompt.ts';

export interface DetectiveCallOptions {
  model: string;
  /** Per attempt. */
  timeoutMs: number;
  /** Attempts per batch, the first included. */
  attempts: number;
  /** First backoff; doubled per retry (with jitter). */
  backoffMs: number;
  /** Longest wait honoured from a `retry-after` header. */
  maxRetryAfterMs: number;
}

export interface CallOutcome {
  reply: DetectiveReply | null;
  /** Why the batch failed after its last attempt (null on success). */
  error: string | null;
  attempts: number;
  promptTokens: number;
  completionTokens: number;
}

class Malformed extends Error {}

/** Servers that rejected `response_format: json_schema` once are asked without it from then on. */
const withoutStructuredOutput = new WeakSet<OpenAI>();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a 429 or 503 asks us to wait, from `retry-after-ms` or `retry-after` (seconds or a date). */
function retryAfterMs(error: unknown): number | null {
  if (!(error instanceof OpenAI.APIError)) return null;
  const headers = (error as { headers?: Headers }).headers;
  if (!headers) return null;
  const ms = Number(headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const after = headers.get('retry-after');
  if (!after) return null;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

const retryable = (error: unknown) =>
  error instanceof Malformed ||
  error instanceof OpenAI.APIConnectionError || // includes timeouts
  (error instanceof OpenAI.APIError && (error.status === 429 || error.status === 408 || (error.status ?? 0) >= 500));

const describe = (error: unknown) =>
  error instanceof OpenAI.APIConnectionTimeoutError
    ? 'the model did not answer in time'
    : error instanceof OpenAI.APIError && error.status
      ? `the model server answered ${error.status}: ${error.message.slice(0, 200)}`
      : error instanceof Error
        ? error.message.slice(0, 200)
        : String(error);

const rejectsStructuredOutput = (error: unknown) =>
  error instanceof OpenAI.APIError && error.status === 400 && /response_format|json_schema|structured/i.test(error.message);

/** Asks the detective about one batch of story lines. */
export async function askDetective(client: OpenAI, story: string, options: DetectiveCallOptions): Promise<CallOutcome> {
  const outcome: CallOutcome = { reply: null, error: null, attempts: 0, promptTokens: 0, completionTokens: 0 };
  for (;;) {
    outcome.attempts++;
    const structured = !withoutStructuredOutput.has(client);
    try {
      const completion = await client.chat.completions.create(
        {
          model: options.model,
          temperature: 0,
          messages: [
            { role: 'system', content: SYSTEM_PROMPT },
            { role: 'user', content: userPrompt(story) },
          ],
          ...(structured ? { response_format: { type: 'json_schema' as const, json_schema: { ...REPLY_JSON_SCHEMA, schema: { ...REPLY_JSON_SCHEMA.schema } } } } : {}),
        },
        { timeout: options.timeoutMs, maxRetries: 0 },
      );
      outcome.promptTokens += completion.usage?.prompt_tokens ?? 0;
      outcome.completionTokens += completion.usage?.completion_tokens ?? 0;
      const text = completion.choices[0]?.message?.content ?? '';
      const strict = (() => {
        try {
          return DetectiveReply.safeParse(JSON.parse(text));
        } catch {
          return null;
        }
      })();
      const reply = strict?.success ? strict.data : parseReply(text);
      if (!reply) throw new Malformed(`the model's reply was not the asked-for JSON: ${JSON.stringify(text.slice(0, 120))}`);
      outcome.reply = reply;
      return outcome;
    } catch (error) {
      if (structured && rejectsStructuredOutput(error)) {
        withoutStructuredOutput.add(client);
        outcome.attempts--; // asking again without structured output is not a retry
        continue;
      }
      if (!retryable(error) || outcome.attempts >= options.attempts) {
        outcome.error = describe(error);
        return outcome;
      }
      const backoff = options.backoffMs * 2 ** (outcome.attempts - 1) * (1 + Math.random() * 0.25);
      const asked = retryAfterMs(error);
      await sleep(asked === null ? backoff : Math.min(options.maxRetryAfterMs, Math.max(asked, 0)));
    }
  }
}
