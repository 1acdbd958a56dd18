import path from 'node:path';
import { z } from 'zod';

/** Log levels accepted by `LOG_LEVEL`, as pino names them. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Typed configuration of an Engram process. Produced once by {@link loadConfig}. */
export interface Config {
  /** TCP port to listen on; 0 picks a free one. */
  port: number;
  /** Interface to bind. */
  host: string;
  /** Which database backs the service. */
  database:
    | { kind: 'postgres'; url: string }
    | { kind: 'pglite'; dataDir: string };
  /** Pool size and bounded waits for the database (see README, "Reliability"). */
  databaseLimits: DatabaseLimits;
  /** Directory for local state: the embedded database, the generated secret, the local owner token. */
  dataDir: string;
  /** Server secret that encrypts invite keys. Absent only in embedded mode, where one is generated into `dataDir`. */
  secret: string | undefined;
  /** Operator token for the admin API; the admin API is disabled without it. */
  adminToken: string | undefined;
  /** Public base URL (origin, no trailing slash) if set; otherwise derived from host and port at listen time. */
  publicUrl: string | undefined;
  /** Extra browser origins allowed to call the service, beyond the public URL's. */
  allowedOrigins: string[];
  /** Whether `engram_init` may create a workspace for a caller without a token. */
  openSignup: boolean;
  /** Whether the built-in OAuth 2.1 authorization server is on (ENGRAM_OAUTH, default on). */
  oauth: boolean;
  /** Trust X-Forwarded-* from the proxy in front (client addresses for anonymous rate limits). */
  trustProxy: boolean;
  /** Run a detection worker inside the service process (off when `engram worker` processes do it). */
  inProcessWorker: boolean;
  /** A detection run's lease, renewed every third of it: how soon a dead worker's run is taken over. */
  detectionLeaseMs: number;
  /** How long a dashboard sign-in lasts (it never outlives its member token). */
  sessionTtlMs: number;
  /** Limits for callers without a member token, counted per client address. */
  anonymousLimits: { requestsPerMinute: number; signupsPerHour: number };
  openai: {
    apiKey: string | undefined;
    baseUrl: string | undefined;
    detectiveModel: string;
    /** Most characters of story the detective reads per run (bounds the cost of a run). */
    detectiveStoryChars: number;
    /** Story batches sent to the model at once. */
    detectiveConcurrency: number;
  };
  /** Which embedder computes fact vectors: OpenAI(-compatible) when a key is set, else local. */
  embeddings: { provider: 'local' | 'openai'; model: string };
  logLevel: (typeof LOG_LEVELS)[number];
}

/** How long anything may wait on the database, and how many connections a process opens. */
export interface DatabaseLimits {
  /** Connections of the request pool (Postgres); auth/status and background work have small pools of their own. */
  poolSize: number;
  /** Most seconds a new Postgres connection may take. */
  connectTimeoutSeconds: number;
  /** statement_timeout of read-only work (queries, lists, the dashboard). */
  readTimeoutMs: number;
  /** statement_timeout of writes (commits, resolutions, management). */
  writeTimeoutMs: number;
  /** statement_timeout of detection runs and maintenance. */
  detectionTimeoutMs: number;
  /** lock_timeout of every request (migrations wait longer). */
  lockTimeoutMs: number;
  /** Most milliseconds a request may take before it is answered with a retryable error. */
  requestDeadlineMs: number;
  /** How long `engram start` waits for the database to accept connections before giving up. */
  startupWaitSeconds: number;
  /** Embedded database: writes are refused while the disk under the data directory has less free space. */
  minFreeDiskMb: number;
}

/** Raised when the environment does not describe a valid configuration; the message lists every problem. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const blankToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());

// `abort` stops at a value that is not a URL at all: the refinements after it parse the value
// with `new URL`, which would otherwise throw a bare "Invalid URL" that names no variable.
const httpUrl = (name: string, example: string) =>
  z.url({
    protocol: /^https?$/,
    error: `${name} must be an http(s) URL with its scheme, e.g. ${name}=${example}`,
    abort: true,
  });

const booleanFlag = (name: string) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], {
      error: `${name} must be true or false, e.g. ${name}=true`,
    })
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

const positiveInt = (name: string, fallback: number) =>
  z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: `${name} must be a whole number of at least 1, e.g. ${name}=${fallback}` })
      .int({ error: `${name} must be a whole number of at least 1, e.g. ${name}=${fallback}` })
      .min(1, { error: `${name} must be a whole number of at least 1, e.g. ${name}=${fallback}` })
      .default(fallback),
  );

/**
 * The environment variables Engram reads, with the message shown when one is malformed.
 * Secret-bearing variables never echo their value in an error.
 */
export const EnvSchema = z
  .object({
    PORT: z.preprocess(
      blankToUndefined,
      z.coerce
        .number({ error: 'PORT must be an integer from 0 to 65535, e.g. PORT=8080' })
        .int({ error: 'PORT must be an integer from 0 to 65535, e.g. PORT=8080' })
        .min(0, { error: 'PORT must be an integer from 0 to 65535, e.g. PORT=8080' })
        .max(65535, { error: 'PORT must be an integer from 0 to 65535, e.g. PORT=8080' })
        .default(8080),
    ),
    HOST: z.preprocess(
      blankToUndefined,
      z
        .string()
        .regex(/^[A-Za-z0-9.:[\]-]+$/, {
          error: 'HOST must be an interface address or hostname, e.g. HOST=0.0.0.0 or HOST=127.0.0.1',
        })
        .default('127.0.0.1'),
    ),
    DATABASE_URL: optional(
      z.url({
        protocol: /^postgres(ql)?$/,
        error: 'DATABASE_URL must be a PostgreSQL URL, e.g. DATABASE_URL=postgres://user:password@host:5432/engram',
      }),
    ),
    ENGRAM_DATA_DIR: z.preprocess(blankToUndefined, z.string().default('./.engram')),
    ENGRAM_SECRET: optional(
      z.string().min(32, {
        error: 'ENGRAM_SECRET must be at least 32 characters; generate one with `openssl rand -base64 48`',
      }),
    ),
    ENGRAM_ADMIN_TOKEN: optional(
      z.string().min(32, {
        error: 'ENGRAM_ADMIN_TOKEN must be at least 32 characters; generate one with `openssl rand -base64 48`',
      }),
    ),
    ENGRAM_PUBLIC_URL: optional(
      httpUrl('ENGRAM_PUBLIC_URL', 'https://engram.example.com').refine((v) => new URL(v).pathname === '/', {
        error: 'ENGRAM_PUBLIC_URL must be an origin without a path, e.g. ENGRAM_PUBLIC_URL=https://engram.example.com',
      }),
    ),
    ENGRAM_ALLOWED_ORIGINS: optional(
      z
        .string()
        .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
        .pipe(
          z.array(
            httpUrl('ENGRAM_ALLOWED_ORIGINS', 'https://app.example.com,http://localhost:6274').refine(
              (v) => new URL(v).origin === v.replace(/\/$/, ''),
              {
                error:
                  'ENGRAM_ALLOWED_ORIGINS must list origins only (scheme://host[:port], no path), comma-separated',
              },
            ),
          ),
        ),
    ),
    ENGRAM_OPEN_SIGNUP: optional(booleanFlag('ENGRAM_OPEN_SIGNUP')),
    ENGRAM_OAUTH: optional(booleanFlag('ENGRAM_OAUTH')),
    ENGRAM_TRUST_PROXY: optional(booleanFlag('ENGRAM_TRUST_PROXY')),
    ENGRAM_IN_PROCESS_WORKER: optional(booleanFlag('ENGRAM_IN_PROCESS_WORKER')),
    ENGRAM_DETECTION_LEASE_SECONDS: positiveInt('ENGRAM_DETECTION_LEASE_SECONDS', 15),
    ENGRAM_DB_POOL_SIZE: positiveInt('ENGRAM_DB_POOL_SIZE', 10),
    ENGRAM_DB_CONNECT_TIMEOUT_SECONDS: positiveInt('ENGRAM_DB_CONNECT_TIMEOUT_SECONDS', 5),
    ENGRAM_DB_READ_TIMEOUT_MS: positiveInt('ENGRAM_DB_READ_TIMEOUT_MS', 5_000),
    ENGRAM_DB_WRITE_TIMEOUT_MS: positiveInt('ENGRAM_DB_WRITE_TIMEOUT_MS', 10_000),
    ENGRAM_DB_DETECTION_TIMEOUT_MS: positiveInt('ENGRAM_DB_DETECTION_TIMEOUT_MS', 60_000),
    ENGRAM_DB_LOCK_TIMEOUT_MS: positiveInt('ENGRAM_DB_LOCK_TIMEOUT_MS', 2_000),
    ENGRAM_REQUEST_DEADLINE_MS: positiveInt('ENGRAM_REQUEST_DEADLINE_MS', 15_000),
    ENGRAM_DB_STARTUP_WAIT_SECONDS: positiveInt('ENGRAM_DB_STARTUP_WAIT_SECONDS', 60),
    ENGRAM_MIN_FREE_DISK_MB: positiveInt('ENGRAM_MIN_FREE_DISK_MB', 64),
    ENGRAM_SESSION_HOURS: positiveInt('ENGRAM_SESSION_HOURS', 12),
    ENGRAM_ANON_REQUESTS_PER_MINUTE: positiveInt('ENGRAM_ANON_REQUESTS_PER_MINUTE', 60),
    ENGRAM_SIGNUPS_PER_HOUR: positiveInt('ENGRAM_SIGNUPS_PER_HOUR', 5),
    OPENAI_API_KEY: optional(z.string()),
    OPENAI_BASE_URL: optional(httpUrl('OPENAI_BASE_URL', 'http://localhost:11434/v1')),
    ENGRAM_DETECTIVE_MODEL: z.preprocess(blankToUndefined, z.string().default('gpt-4o-mini')),
    ENGRAM_DETECTIVE_STORY_CHARS: positiveInt('ENGRAM_DETECTIVE_STORY_CHARS', 48_000),
    ENGRAM_DETECTIVE_CONCURRENCY: positiveInt('ENGRAM_DETECTIVE_CONCURRENCY', 4),
    ENGRAM_EMBEDDINGS: z.preprocess(
      (v) => (typeof v === 'string' ? blankToUndefined(v.toLowerCase()) : v),
      z
        .enum(['auto', 'local', 'openai'], {
          error: 'ENGRAM_EMBEDDINGS must be auto, local or openai, e.g. ENGRAM_EMBEDDINGS=local',
        })
        .default('auto'),
    ),
    ENGRAM_EMBEDDING_MODEL: z.preprocess(blankToUndefined, z.string().default('text-embedding-3-small')),
    LOG_LEVEL: z.preprocess(
      (v) => (typeof v === 'string' ? blankToUndefined(v.toLowerCase()) : v),
      z
        .enum(LOG_LEVELS, { error: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, e.g. LOG_LEVEL=info` })
        .default('info'),
    ),
  });

/**
 * Rules across variables, checked on the raw environment so they are reported together with any
 * per-variable problem.
 */
function crossVariableProblems(env: Record<string, string | undefined>): string[] {
  const set = (name: string) => (blankToUndefined(env[name]) as string | undefined) !== undefined;
  const problems: string[] = [];
  // A hosted deployment must not fall back to a generated secret: every instance needs the same
  // one, and invite keys must survive a redeploy.
  if (set('DATABASE_URL') && !set('ENGRAM_SECRET')) {
    problems.push(
      'ENGRAM_SECRET is required when DATABASE_URL is set (all instances must share it); generate one with `openssl rand -base64 48`',
    );
  }
  if ((blankToUndefined(env.ENGRAM_EMBEDDINGS) as string | undefined)?.toLowerCase() === 'openai' && !set('OPENAI_API_KEY')) {
    problems.push('ENGRAM_EMBEDDINGS=openai needs OPENAI_API_KEY; set the key or use ENGRAM_EMBEDDINGS=local');
  }
  return problems;
}

/** Variables whose value must never appear in an error message. */
const SECRET_VARIABLES = new Set(['ENGRAM_SECRET', 'ENGRAM_ADMIN_TOKEN', 'OPENAI_API_KEY', 'DATABASE_URL']);

/**
 * Parses the environment once into a {@link Config}. Throws {@link ConfigError} naming every
 * variable that is missing or malformed and what it must look like.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Config {
  const parsed = EnvSchema.safeParse(env);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => {
        const variable = String(issue.path[0] ?? '');
        const raw = env[variable];
        const shown = SECRET_VARIABLES.has(variable) || raw === undefined ? '' : ` (got ${JSON.stringify(raw)})`;
        return `${issue.message}${shown}`;
      });
  problems.push(...crossVariableProblems(env));
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;
  const dataDir = path.resolve(cwd, e.ENGRAM_DATA_DIR);
  return {
    port: e.PORT,
    host: e.HOST,
    database: e.DATABASE_URL
      ? { kind: 'postgres', url: e.DATABASE_URL }
      : { kind: 'pglite', dataDir: path.join(dataDir, 'pgdata') },
    databaseLimits: {
      poolSize: e.ENGRAM_DB_POOL_SIZE,
      connectTimeoutSeconds: e.ENGRAM_DB_CONNECT_TIMEOUT_SECONDS,
      readTimeoutMs: e.ENGRAM_DB_READ_TIMEOUT_MS,
      writeTimeoutMs: e.ENGRAM_DB_WRITE_TIMEOUT_MS,
      detectionTimeoutMs: e.ENGRAM_DB_DETECTION_TIMEOUT_MS,
      lockTimeoutMs: e.ENGRAM_DB_LOCK_TIMEOUT_MS,
      requestDeadlineMs: e.ENGRAM_REQUEST_DEADLINE_MS,
      startupWaitSeconds: e.ENGRAM_DB_STARTUP_WAIT_SECONDS,
      minFreeDiskMb: e.ENGRAM_MIN_FREE_DISK_MB,
    },
    dataDir,
    secret: e.ENGRAM_SECRET,
    adminToken: e.ENGRAM_ADMIN_TOKEN,
    publicUrl: e.ENGRAM_PUBLIC_URL?.replace(/\/+$/, ''),
    allowedOrigins: (e.ENGRAM_ALLOWED_ORIGINS ?? []).map((o) => new URL(o).origin),
    openSignup: e.ENGRAM_OPEN_SIGNUP ?? false,
    oauth: e.ENGRAM_OAUTH ?? true,
    trustProxy: e.ENGRAM_TRUST_PROXY ?? false,
    inProcessWorker: e.ENGRAM_IN_PROCESS_WORKER ?? true,
    detectionLeaseMs: e.ENGRAM_DETECTION_LEASE_SECONDS * 1_000,
    sessionTtlMs: e.ENGRAM_SESSION_HOURS * 3_600_000,
    anonymousLimits: { requestsPerMinute: e.ENGRAM_ANON_REQUESTS_PER_MINUTE, signupsPerHour: e.ENGRAM_SIGNUPS_PER_HOUR },
    openai: {
      apiKey: e.OPENAI_API_KEY,
      baseUrl: e.OPENAI_BASE_URL,
      detectiveModel: e.ENGRAM_DETECTIVE_MODEL,
      detectiveStoryChars: e.ENGRAM_DETECTIVE_STORY_CHARS,
      detectiveConcurrency: e.ENGRAM_DETECTIVE_CONCURRENCY,
    },
    embeddings: {
      provider:
        e.ENGRAM_EMBEDDINGS === 'openai' || (e.ENGRAM_EMBEDDINGS === 'auto' && e.OPENAI_API_KEY) ? 'openai' : 'local',
      model: e.ENGRAM_EMBEDDING_MODEL,
    },
    logLevel: e.LOG_LEVEL,
  };
}

/** The database limits when nothing is configured (tests and tools that open a database directly). */
export const defaultDatabaseLimits = (): DatabaseLimits => loadConfig({}).databaseLimits;

/**
 * A configuration for tests and tools: defaults, with the given fields replaced.
 * Goes through the same parsing as production so defaults cannot drift.
 */
export function configFor(overrides: Partial<Config>, env: Record<string, string | undefined> = {}): Config {
  return { ...loadConfig(env), ...overrides };
}
