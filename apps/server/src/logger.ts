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

// Engram's own credentials by shape (member tokens, invite keys, dashboard sessions and their CSRF
// tokens), and any long random-looking run (a foreign key), wherever they sit in a URL.
const CREDENTIAL_SHAPE = /\b(?:egm|egs|egc|ek)_[A-Za-z0-9_.-]{16,}/;
const RANDOM_RUN = /[A-Za-z0-9_+/=-]{32,}/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const looksRandom = (run: string) => !UUID.test(run) && /[a-z]/.test(run) && /[A-Z]/.test(run) && /[0-9]/.test(run);
// Query parameters whose values say nothing secret and help reading a log; every other value is
// replaced (a token in `?token=`, search text in `?q=`, an OAuth code, a key under any name).
const PLAIN_QUERY_PARAMETERS = new Set(['scope', 'limit', 'after', 'since', 'until', 'as_of', 'status', 'kind', 'offset', 'cursor', 'fact_type', 'include_history', 'before', 'agent_id', 'durability', 'within_days', 'days']);

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

const hasCredentialShape = (text: string, known: readonly string[] = []) => {
  const plain = decoded(text);
  return [text, plain].some((t) => CREDENTIAL_SHAPE.test(t) || (t.match(RANDOM_RUN) ?? []).some(looksRandom) || known.some((secret) => t.includes(secret)));
};

/**
 * A request URL fit for a log line: credentials (by shape, or the `known` secrets of this
 * deployment) replaced in the path, and every query value replaced except those of a few plain
 * parameters.
 */
export function redactUrl(url: string, known: readonly string[] = []): string {
  const mark = url.indexOf('?');
  const path = (mark === -1 ? url : url.slice(0, mark))
    .split('/')
    .map((segment) => (hasCredentialShape(segment, known) ? '[redacted]' : segment))
    .join('/');
  if (mark === -1) return path;
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return hasCredentialShape(pair, known) ? '[redacted]' : pair;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      return PLAIN_QUERY_PARAMETERS.has(decoded(name)) && !hasCredentialShape(value, known) ? pair : `${hasCredentialShape(name, known) ? '[redacted]' : name}=[redacted]`;
    });
  return `${path}?${query.join('&')}`;
}

/** Fastify's request serializer, with the URL redacted (`known`: this deployment's own secrets). */
const serializeRequest = (known: readonly string[]) => (request: { method?: string; url?: string; host?: string; ip?: string; socket?: { remotePort?: number } }) => {
  return {
    method: request.method,
    url: request.url === undefined ? undefined : redactUrl(request.url, known),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
};

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

/** What the logger reads of the configuration. */
export type LoggerConfig = Pick<Config, 'logLevel'> & Partial<Pick<Config, 'adminToken' | 'secret'>>;

/** pino options for Engram: redaction, error scrubbing, pretty output only on a terminal. */
export function loggerOptions(config: LoggerConfig, pretty = process.stdout.isTTY): LoggerOptions {
  // The operator token and the server secret have no shape to recognise: redacted by value.
  const known = [config.adminToken, config.secret].filter((s): s is string => typeof s === 'string' && s.length >= 8);
  const options: LoggerOptions = {
    level: config.logLevel,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError, req: serializeRequest(known) },
  };
  if (pretty && canResolve('pino-pretty')) {
    options.transport = { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } };
  }
  return options;
}

/** The process logger. */
export function createLogger(config: LoggerConfig, destination?: pino.DestinationStream): Logger {
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
