import { callerErrorOf, EngramError, InvalidInputError } from '@engram/core';
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { ToolLogger } from './tool.ts';

/**
 * A failed `resources/read` or `prompts/get` as the JSON-RPC error the client receives. Unlike a
 * tool, neither has an `isError` result, so a domain error keeps its message on the wire (what to
 * change) under the nearest JSON-RPC code; anything else is logged and reported without internals
 * (the SDK would otherwise send a thrown error's message as is).
 */
export function protocolErrorFor(thrown: unknown, subject: { uri: string } | { prompt: string }, log: ToolLogger): Error {
  if (thrown instanceof ProtocolError) return thrown;
  const error = callerErrorOf(thrown) ?? thrown;
  if (error instanceof EngramError) {
    if (error.code === 'not_found' && 'uri' in subject) return new ResourceNotFoundError(subject.uri, error.message);
    const code = error.code === 'invalid_input' || error.code === 'not_found' ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InvalidRequest;
    return new ProtocolError(code, `${error.message} (code: ${error.code})`);
  }
  log.error({ err: error, ...subject }, 'MCP request failed');
  const what = 'uri' in subject ? `read ${subject.uri}` : `get the prompt ${subject.prompt}`;
  return new ProtocolError(ProtocolErrorCode.InternalError, `Engram could not ${what} because of an internal error. Try again shortly.`);
}

/** `value` parsed by `schema`, or an invalid-input error that names `field` and what it must be. */
export function parseArgument<S extends z.ZodType>(schema: S, value: unknown, field: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidInputError([{ field, message: parsed.error.issues[0]?.message ?? 'is invalid' }]);
  return parsed.data;
}
