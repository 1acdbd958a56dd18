/**
 * compose.yaml, checked where no Docker daemon runs: parsed as YAML, its variables interpolated the
 * way `docker compose` does, and held against the Dockerfile (port, command, user, health check)
 * and against the configuration schema (every variable it sets exists and parses; the combination
 * loads as a configuration; the secrets have no committed default).
 */
import fs from 'node:fs';
import path from 'node:path';
import { EnvSchema, loadConfig } from '@engram/config';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../support/cli.ts';

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  user?: string;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
}
interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const COMPOSE_TEXT = fs.readFileSync(path.join(REPO_ROOT, 'compose.yaml'), 'utf8');
const DOCKERFILE = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
const CLI_SOURCE = fs.readFileSync(path.join(REPO_ROOT, 'apps/server/src/cli.ts'), 'utf8');

/** What an operator puts in `.env` (URL-safe password, as compose.yaml asks). */
const OPERATOR_ENV = {
  POSTGRES_PASSWORD: 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00',
  ENGRAM_SECRET: 'Q'.repeat(64),
};

/**
 * Compose's interpolation: `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`,
 * `${VAR?error}` and `$$`. Throws the `?` message when a required variable is missing, as compose does.
 */
function interpolate(text: string, env: Record<string, string | undefined>): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g, (match, name: string, colon: string, op: string, arg: string) => {
    if (match === '$$') return '$';
    const value = env[name];
    const missing = colon ? value === undefined || value === '' : value === undefined;
    if (!missing) return value!;
    if (op === '-') return arg;
    if (op === '?') throw new Error(`required variable ${name} is missing a value: ${arg}`);
    return '';
  });
}

function compose(env: Record<string, string | undefined> = OPERATOR_ENV): ComposeFile {
  // Compose interpolates values, not comments; the YAML parser drops comments first.
  const raw = parse(COMPOSE_TEXT, { merge: true }) as unknown;
  return JSON.parse(interpolate(JSON.stringify(raw), env)) as ComposeFile;
}

/** The final stage of the Dockerfile: ENV (continued lines joined), EXPOSE, USER, CMD, HEALTHCHECK. */
function runtimeStage() {
  const lines = DOCKERFILE.replace(/\\\n\s*/g, ' ').split('\n');
  const stage = lines.slice(lines.findLastIndex((l) => l.startsWith('FROM ')));
  const env: Record<string, string> = {};
  for (const line of stage.filter((l) => l.startsWith('ENV '))) {
    for (const [, name, quoted, bare] of line.slice(4).matchAll(/([A-Z_][A-Z0-9_]*)=(?:"([^"]*)"|(\S+))/g)) env[name!] = quoted ?? bare!;
  }
  const directive = (name: string) => stage.find((l) => l.startsWith(`${name} `))?.slice(name.length + 1).trim();
  return {
    env,
    expose: directive('EXPOSE'),
    user: directive('USER'),
    cmd: JSON.parse(directive('CMD')!) as string[],
    healthcheck: directive('HEALTHCHECK'),
  };
}

describe('compose.yaml', () => {
  const file = compose();
  const { db, engram, worker } = file.services;
  const docker = runtimeStage();

  it('runs Postgres with pgvector, the service and a detection worker', () => {
    expect(Object.keys(file.services).sort()).toEqual(['db', 'engram', 'worker']);
    expect(db!.image).toMatch(/^pgvector\/pgvector:pg1[5-9]$/);
    expect(engram!.build).toBe('.');
    // The worker runs the service's own image, not one pulled from a registry.
    expect(worker!.image).toBe(engram!.image);
    expect(worker!.build).toBe('.');
  });

  it('keeps the database on a named volume', () => {
    expect(db!.volumes).toEqual(['pgdata:/var/lib/postgresql/data']);
    expect(Object.keys(file.volumes ?? {})).toEqual(['pgdata']);
  });

  it('publishes the port the image listens on and runs the image command as the image user', () => {
    expect(docker.expose).toBe(docker.env.PORT);
    expect(engram!.ports).toEqual([`8080:${docker.env.PORT}`]);
    expect(compose({ ...OPERATOR_ENV, ENGRAM_PORT: '9000' }).services.engram!.ports).toEqual([`9000:${docker.env.PORT}`]);
    expect(engram!.command).toEqual(docker.cmd);
    // No service overrides the image's unprivileged user.
    expect(docker.user).toBe('node');
    for (const service of Object.values(file.services)) expect(service.user).toBeUndefined();
  });

  it('runs the worker with the CLI command that exists for it', () => {
    expect(worker!.command!.slice(0, 3)).toEqual([...docker.cmd.slice(0, 2), 'worker']);
    expect(CLI_SOURCE).toMatch(/case 'worker':\s*return workerCommand/);
    const concurrency = Number(worker!.command![worker!.command!.indexOf('--concurrency') + 1]);
    expect(concurrency).toBeGreaterThanOrEqual(1);
    expect(concurrency).toBeLessThanOrEqual(32);
    expect(worker!.ports).toBeUndefined();
  });

  it('starts each service once what it needs is healthy, and checks health where there is something to check', () => {
    expect(db!.healthcheck!.test).toEqual(['CMD-SHELL', 'pg_isready -U engram -d engram']);
    expect(engram!.depends_on).toEqual({ db: { condition: 'service_healthy' } });
    // The service's check asks /readyz on the port the image sets (database up and migrated).
    const check = engram!.healthcheck!.test!;
    expect(check.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    expect(check[3]).toContain(`http://127.0.0.1:${docker.env.PORT}/readyz`);
    expect(docker.healthcheck).toContain('/healthz');
    // The worker serves no HTTP: the image's check would mark it unhealthy, so it is off.
    expect(worker!.healthcheck).toEqual({ disable: true });
    expect(worker!.depends_on).toEqual({ engram: { condition: 'service_healthy' } });
  });

  it('sets only variables the configuration schema knows, each with a value that parses', () => {
    const known = new Set(Object.keys(EnvSchema.shape));
    for (const name of ['engram', 'worker'] as const) {
      const environment = file.services[name]!.environment!;
      expect(Object.keys(environment).filter((v) => !known.has(v)), name).toEqual([]);
      for (const [variable, value] of Object.entries(environment)) {
        const parsed = EnvSchema.shape[variable as keyof typeof EnvSchema.shape].safeParse(value);
        expect(parsed.success, `${name}: ${variable}=${value}: ${parsed.error?.message ?? ''}`).toBe(true);
      }
    }
  });

  it('loads as the configuration of a hosted service whose worker runs apart', () => {
    for (const name of ['engram', 'worker'] as const) {
      // What the process sees: the image's ENV, then the service's environment over it.
      const config = loadConfig({ ...docker.env, ...file.services[name]!.environment }, '/app');
      expect(config.database).toEqual({ kind: 'postgres', url: `postgres://engram:${OPERATOR_ENV.POSTGRES_PASSWORD}@db:5432/engram` });
      expect(config).toMatchObject({ host: '0.0.0.0', port: 8080, secret: OPERATOR_ENV.ENGRAM_SECRET, inProcessWorker: false, publicUrl: 'http://localhost:8080' });
      // An empty optional secret means "not set", not an invalid value.
      expect(config.adminToken).toBeUndefined();
      expect(config.openai.apiKey).toBeUndefined();
    }
    expect(loadConfig({ ...docker.env, ...compose({ ...OPERATOR_ENV, ENGRAM_ADMIN_TOKEN: 'A'.repeat(64) }).services.engram!.environment }).adminToken).toBe('A'.repeat(64));
  });

  it('points DATABASE_URL at the db service with its user, database and password', () => {
    const url = new URL(engram!.environment!.DATABASE_URL!);
    expect(url.hostname).toBe('db');
    expect(url.port).toBe('5432');
    expect(url.username).toBe(db!.environment!.POSTGRES_USER);
    expect(url.pathname).toBe(`/${db!.environment!.POSTGRES_DB}`);
    expect(decodeURIComponent(url.password)).toBe(db!.environment!.POSTGRES_PASSWORD);
  });

  it('commits no password or secret: compose refuses to start until each is set', () => {
    for (const missing of ['POSTGRES_PASSWORD', 'ENGRAM_SECRET'] as const) {
      const env: Record<string, string | undefined> = { ...OPERATOR_ENV, [missing]: undefined };
      expect(() => compose(env), missing).toThrow(new RegExp(`required variable ${missing} is missing a value: set ${missing} in \\.env`));
      expect(() => compose({ ...OPERATOR_ENV, [missing]: '' }), `${missing} empty`).toThrow(/required variable/);
    }
    // Every secret-bearing value is a variable: required (`:?`), or optional and empty (`:-`).
    const raw = parse(COMPOSE_TEXT, { merge: true }) as ComposeFile;
    const secrets = Object.values(raw.services).flatMap((service) =>
      Object.entries(service.environment ?? {}).filter(([name]) => /PASSWORD|SECRET|TOKEN|KEY/.test(name)),
    );
    expect(secrets.map(([name]) => name)).toEqual(expect.arrayContaining(['POSTGRES_PASSWORD', 'ENGRAM_SECRET', 'ENGRAM_ADMIN_TOKEN', 'OPENAI_API_KEY']));
    for (const [name, value] of secrets) expect(value, name).toMatch(new RegExp(`^\\$\\{${name}(:\\?[^}]+|:-)\\}$`));
    expect(raw.services.engram!.environment!.DATABASE_URL).toMatch(/^postgres:\/\/engram:\$\{POSTGRES_PASSWORD:\?[^}]+\}@db:5432\/engram$/);
  });
});
