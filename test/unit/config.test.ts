import path from 'node:path';
import { ConfigError, loadConfig } from '@engram/config';
import { describe, expect, it } from 'vitest';

const SECRET = 'a'.repeat(40);

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env, '/srv/engram');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('defaults to the embedded database in ./.engram and a loopback listener', () => {
    const config = loadConfig({}, '/srv/engram');
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      database: { kind: 'pglite', dataDir: path.join('/srv/engram/.engram', 'pgdata') },
      dataDir: '/srv/engram/.engram',
      secret: undefined,
      adminToken: undefined,
      publicUrl: undefined,
      allowedOrigins: [],
      openSignup: false,
      openai: { apiKey: undefined, baseUrl: undefined, detectiveModel: 'gpt-4o-mini' },
      embeddings: { provider: 'local', model: 'text-embedding-3-small' },
      logLevel: 'info',
    });
  });

  it('uses Postgres when DATABASE_URL is set', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/engram', ENGRAM_SECRET: SECRET });
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://u:p@db:5432/engram' });
  });

  it('treats blank variables as unset', () => {
    const config = loadConfig({ PORT: '', DATABASE_URL: '  ', LOG_LEVEL: '' }, '/x');
    expect(config.port).toBe(8080);
    expect(config.database.kind).toBe('pglite');
    expect(config.logLevel).toBe('info');
  });

  it('resolves ENGRAM_DATA_DIR against the working directory', () => {
    expect(loadConfig({ ENGRAM_DATA_DIR: 'state' }, '/srv/engram').dataDir).toBe('/srv/engram/state');
  });

  it('names a malformed PORT and echoes what it got', () => {
    expect(problemsOf({ PORT: 'eighty' })).toEqual([
      'PORT must be an integer from 0 to 65535, e.g. PORT=8080 (got "eighty")',
    ]);
    expect(problemsOf({ PORT: '70000' })[0]).toMatch(/^PORT must be an integer/);
  });

  it('requires ENGRAM_SECRET with DATABASE_URL', () => {
    const [problem] = problemsOf({ DATABASE_URL: 'postgres://db/engram' });
    expect(problem).toMatch(/^ENGRAM_SECRET is required when DATABASE_URL is set/);
  });

  it('never echoes secret values in errors', () => {
    const problems = problemsOf({
      ENGRAM_SECRET: 'short-secret-value',
      ENGRAM_ADMIN_TOKEN: 'tiny-admin-value',
      DATABASE_URL: 'mysql://root:hunter2@db/engram',
    });
    const text = problems.join('\n');
    expect(text).toMatch(/ENGRAM_SECRET must be at least 32 characters/);
    expect(text).toMatch(/ENGRAM_ADMIN_TOKEN must be at least 32 characters/);
    expect(text).toMatch(/DATABASE_URL must be a PostgreSQL URL/);
    expect(text).not.toContain('short-secret-value');
    expect(text).not.toContain('tiny-admin-value');
    expect(text).not.toContain('hunter2');
  });

  it('reports every problem at once', () => {
    expect(problemsOf({ PORT: 'x', LOG_LEVEL: 'loud', ENGRAM_OPEN_SIGNUP: 'maybe' })).toHaveLength(3);
  });

  it('accepts log levels case-insensitively and lists the allowed ones otherwise', () => {
    expect(loadConfig({ LOG_LEVEL: 'DEBUG' }).logLevel).toBe('debug');
    expect(problemsOf({ LOG_LEVEL: 'loud' })[0]).toBe(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, e.g. LOG_LEVEL=info (got "loud")',
    );
  });

  it('parses ENGRAM_OPEN_SIGNUP as a boolean', () => {
    expect(loadConfig({ ENGRAM_OPEN_SIGNUP: 'true' }).openSignup).toBe(true);
    expect(loadConfig({ ENGRAM_OPEN_SIGNUP: '0' }).openSignup).toBe(false);
    expect(problemsOf({ ENGRAM_OPEN_SIGNUP: 'maybe' })[0]).toMatch(/^ENGRAM_OPEN_SIGNUP must be true or false/);
  });

  it('takes ENGRAM_PUBLIC_URL as an origin and rejects a path', () => {
    expect(loadConfig({ ENGRAM_PUBLIC_URL: 'https://engram.example.com/' }).publicUrl).toBe(
      'https://engram.example.com',
    );
    expect(problemsOf({ ENGRAM_PUBLIC_URL: 'https://example.com/engram' })[0]).toMatch(
      /^ENGRAM_PUBLIC_URL must be an origin without a path/,
    );
    expect(problemsOf({ ENGRAM_PUBLIC_URL: 'ftp://example.com' })[0]).toMatch(/^ENGRAM_PUBLIC_URL must be an http\(s\) URL/);
  });

  it('answers a URL without its scheme with the variable, the value given and a valid example', () => {
    // The path check after the URL check must not run on a value that is not a URL at all: it
    // threw a bare "Invalid URL" that named nothing.
    expect(problemsOf({ ENGRAM_PUBLIC_URL: 'engram.example.com' })).toEqual([
      'ENGRAM_PUBLIC_URL must be an http(s) URL with its scheme, e.g. ENGRAM_PUBLIC_URL=https://engram.example.com (got "engram.example.com")',
    ]);
    expect(problemsOf({ ENGRAM_ALLOWED_ORIGINS: 'https://a.example,app.example.com' })).toEqual([
      'ENGRAM_ALLOWED_ORIGINS must be an http(s) URL with its scheme, e.g. ENGRAM_ALLOWED_ORIGINS=https://app.example.com,http://localhost:6274 (got "https://a.example,app.example.com")',
    ]);
    expect(problemsOf({ OPENAI_BASE_URL: 'localhost:11434/v1' })[0]).toMatch(/^OPENAI_BASE_URL must be an http\(s\) URL with its scheme, e\.g\. OPENAI_BASE_URL=http/);
  });

  it('splits ENGRAM_ALLOWED_ORIGINS and rejects entries that are not origins', () => {
    expect(loadConfig({ ENGRAM_ALLOWED_ORIGINS: 'https://a.example, http://localhost:6274' }).allowedOrigins).toEqual([
      'https://a.example',
      'http://localhost:6274',
    ]);
    expect(problemsOf({ ENGRAM_ALLOWED_ORIGINS: 'https://a.example/path' })[0]).toMatch(
      /^ENGRAM_ALLOWED_ORIGINS must list origins only/,
    );
  });

  it('chooses the embedder: OpenAI when a key is set, unless told otherwise', () => {
    expect(loadConfig({}).embeddings).toEqual({ provider: 'local', model: 'text-embedding-3-small' });
    expect(loadConfig({ OPENAI_API_KEY: 'sk-x' }).embeddings.provider).toBe('openai');
    expect(loadConfig({ OPENAI_API_KEY: 'sk-x', ENGRAM_EMBEDDINGS: 'local' }).embeddings.provider).toBe('local');
    expect(loadConfig({ ENGRAM_EMBEDDING_MODEL: 'nomic-embed-text', OPENAI_API_KEY: 'k' }).embeddings.model).toBe('nomic-embed-text');
    expect(problemsOf({ ENGRAM_EMBEDDINGS: 'openai' })[0]).toMatch(/^ENGRAM_EMBEDDINGS=openai needs OPENAI_API_KEY/);
    expect(problemsOf({ ENGRAM_EMBEDDINGS: 'bert' })[0]).toMatch(/^ENGRAM_EMBEDDINGS must be auto, local or openai/);
  });

  it('reads the dashboard session lifetime in hours', () => {
    expect(loadConfig({}).sessionTtlMs).toBe(12 * 3_600_000);
    expect(loadConfig({ ENGRAM_SESSION_HOURS: '2' }).sessionTtlMs).toBe(2 * 3_600_000);
    expect(problemsOf({ ENGRAM_SESSION_HOURS: '0' })[0]).toMatch(/^ENGRAM_SESSION_HOURS/);
  });

  it('reads the OpenAI settings', () => {
    const config = loadConfig({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: 'http://localhost:11434/v1',
      ENGRAM_DETECTIVE_MODEL: 'llama3',
      ENGRAM_DETECTIVE_STORY_CHARS: '20000',
    });
    expect(config.openai).toEqual({
      apiKey: 'sk-test',
      baseUrl: 'http://localhost:11434/v1',
      detectiveModel: 'llama3',
      detectiveStoryChars: 20_000,
      detectiveConcurrency: 4,
    });
    expect(loadConfig({}).openai).toMatchObject({ apiKey: undefined, detectiveStoryChars: 48_000, detectiveConcurrency: 4 });
    expect(problemsOf({ OPENAI_BASE_URL: 'localhost:11434' })[0]).toMatch(/^OPENAI_BASE_URL must be an http\(s\) URL/);
    expect(problemsOf({ ENGRAM_DETECTIVE_CONCURRENCY: '0' })[0]).toMatch(/^ENGRAM_DETECTIVE_CONCURRENCY/);
  });
});
