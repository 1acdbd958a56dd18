/**
 * One call of the detective on one batch, through the `openai` SDK (OpenAI or any compatible
 * server): temperature 0, structured output when the server supports it (else the reply is read
 * leniently). Transport failures — 408, 409, 429 after the server's `retry-after`, 5xx, timeouts,
 * lost connections — are retried by the SDK itself (`maxRetries`, with its exponential backoff); a
 * reply that is not the asked-for JSON is asked again here. Both share one budget of attempts per
 * batch, and every attempt has its own deadline. Whatever happens, the caller gets an outcome,
 * never an exception, and the tokens every attempt cost.
 */
import OpenAI from 'openai';
import { DetectiveReply, parseReply, REPLY_FORMAT, SYSTEM_PROMPT, userPrompt } from './prompt.ts';

export interface DetectiveCallOptions {
  model: string;
  /** Per attempt: an attempt that has not answered by then is abandoned (and retried while attempts remain). */
  timeoutMs: number;
  /** Requests per batch, the first included: the SDK's retries and the re-asks after a malformed reply alike. */
  attempts: number;
}

export interface CallOutcome {
  reply: DetectiveReply | null;
  /** Why the batch failed after its last attempt (null on success). */
  error: string | null;
  /** Requests sent for the batch, each of the SDK's retries included. */
  attempts: number;
  promptTokens: number;
  completionTokens: number;
}

class Malformed extends Error {}

/** Servers that rejected `response_format: json_schema` once are asked without it from then on. */
const withoutStructuredOutput = new WeakSet<OpenAI>();

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
  // The SDK retries out of sight: its fetch is where each of its requests can be counted.
  const counted = client.withOptions({
    fetch: (input, init) => {
      outcome.attempts++;
      return fetch(input, init);
    },
  });
  // Asking again without structured output, after a server said it has none, is not a retry.
  let unbudgeted = 0;
  const used = () => outcome.attempts - unbudgeted;
  for (;;) {
    const structured = !withoutStructuredOutput.has(client);
    try {
      const completion = await counted.chat.completions.create(
        {
          model: options.model,
          temperature: 0,
          messages: [
            { role: 'system', content: SYSTEM_PROMPT },
            { role: 'user', content: userPrompt(story) },
          ],
          ...(structured ? { response_format: REPLY_FORMAT } : {}),
        },
        { timeout: options.timeoutMs, maxRetries: Math.max(0, options.attempts - used() - 1) },
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
        unbudgeted++;
        continue;
      }
      // Anything but a malformed reply is final here: the SDK has already retried what it could.
      if (!(error instanceof Malformed) || used() >= options.attempts) {
        outcome.error = describe(error);
        return outcome;
      }
    }
  }
}
