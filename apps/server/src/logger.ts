import { createRequire } from 'node:module';
import type { Config } from '@engram/config';
import pino, { type Logger, type LoggerOptions } from 'pino';

/**
 * Paths pino replaces with "[redacted]": credentials and fact content never reach a log line,
 * whoever logs them. Fastify's request serializer already leaves headers and bodies out; these
 * cover anything logged explicitly.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-csrf-token"]',
  'headers["set-cookie"]',
  'cookie',
  '*.cookie',
  'cookies',
  '*.cookies',
  'csrf_token',
  '*.csrf_token',
  'csrfToken',
  '*.csrfToken',
  'sessionId',
  '*.sessionId',
  'authorization',
  '*.authorization',
  'token',
  '*.token',
  'owner_token',
  '*.owner_token',
  'invite_key',
  '*.invite_key',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'apiKey',
  '*.apiKey',
  'adminToken',
  '*.adminToken',
  'content',
  '*.content',
  'facts[*].content',
  '*.facts[*].content',
];

/**
 * Drizzle reports a failed query as "Failed query: <sql>\nparams: <values>"; the values can be a
 * token hash or a fact's content, so they are cut before an error is logged.
 */
export function scrubQueryParams(text: string | undefined): string | undefined {
  return text?.replace(/\nparams: .*$/gm, '\nparams: [redacted]');
}

// Error properties that carry query parameters (drizzle, postgres.js, PGlite): never logged.
const PARAMETER_KEYS = ['params', 'parameters', 'args', 'values'];

function scrubError(serialized: Record<string, unknown>, depth = 0): Record<string, unknown> {
  for (const key of PARAMETER_KEYS) if (key in serialized) serialized[key] = '[redacted]';
  for (const key of ['message', 'stack'] as const) {
    if (typeof serialized[key] === 'string') serialized[key] = scrubQueryParams(serialized[key]);
  }
  const cause = serialized.cause;
  if (cause && typeof cause === 'object' && depth < 5) serialized.cause = scrubError({ ...(cause as Record<string, unknown>) }, depth + 1);
  return serialized;
}

function serializeError(error: Error): Record<string, unknown> {
  return scrubError(pino.stdSerializers.err(error));
}

/** pino options for Engram: redaction, error scrubbing, pretty output only on a terminal. */
export function loggerOptions(config: Pick<Config, 'logLevel'>, pretty = process.stdout.isTTY): LoggerOptions {
  const options: LoggerOptions = {
    level: config.logLevel,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError },
  };
  if (pretty && canResolve('pino-pretty')) {
    options.transport = { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } };
  }
  return options;
}

/** The process logger. */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  return destination ? pino(loggerOptions(config, false), destination) : pino(loggerOptions(config));
}

function canResolve(specifier: string): boolean {
  try {
    createRequire(import.meta.url).resolve(specifier);
    return true;
  } catch {
    return false;
  }
}
