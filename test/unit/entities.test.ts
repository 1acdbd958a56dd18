import { contentHash, extractEntities, matchKeysOf, normalizeContent, slotKey, subjectOf, type FactEntity } from '@engram/core';
import { describe, expect, it } from 'vitest';

const find = (entities: FactEntity[], type: string) => entities.filter((e) => e.type === type);
const one = (content: string, scope: string, type: string) => {
  const found = find(extractEntities(content, scope), type);
  expect(found, `${type} in "${content}"`).toHaveLength(1);
  return found[0]!;
};

describe('normalized content hash', () => {
  it('ignores case, punctuation and spacing', () => {
    expect(normalizeContent('  Redis runs on PORT 6379.  ')).toBe('redis runs on port 6379');
    expect(contentHash('Redis runs on port 6379.')).toBe(contentHash('redis  runs on port 6379'));
    expect(contentHash('Redis runs on port 6379')).not.toBe(contentHash('Redis runs on port 6380'));
  });
});

describe('entity extraction', () => {
  it('normalizes durations to seconds', () => {
    expect(one('JWT access tokens expire after 1 hour', 'auth', 'duration')).toMatchObject({ value: 1, unit: 'h', normalized: 3600 });
    expect(one('The JWT expiry is 3600 seconds', 'auth', 'duration').normalized).toBe(3600);
    expect(one('Requests time out after 250ms', 'api', 'duration').normalized).toBeCloseTo(0.25);
    expect(one('Backups are kept for 30 days', 'infra', 'duration').normalized).toBe(2_592_000);
  });

  it('normalizes sizes to bytes (binary and decimal units)', () => {
    expect(one('The heap limit is 1 GiB', 'api', 'size').normalized).toBe(1024 ** 3);
    expect(one('The heap limit is 1024 MiB', 'api', 'size').normalized).toBe(1024 ** 3);
    expect(one('Uploads are capped at 25 MB', 'storage', 'size').normalized).toBe(25_000_000);
  });

  it('reads rates, percentages, counts and plain numbers', () => {
    expect(one('The rate limit is 1,000 req/s', 'auth', 'rate')).toMatchObject({ subject: 'auth', implicitSubject: true, attribute: ['max'], normalized: 1000 });
    expect(one('Search allows 600 requests per minute', 'search', 'rate').normalized).toBe(10);
    expect(one('Error budget is 0.5% per month', 'sre', 'percentage')).toMatchObject({ value: 0.5, unit: '%' });
    expect(one('Max database connections is 50 connections', 'infra/db', 'count')).toMatchObject({
      attribute: ['connection', 'max'],
      unit: 'connection',
      value: 50,
    });
    expect(one('The replica count is 3', 'infra', 'number')).toMatchObject({ attribute: ['replica'], value: 3 });
  });

  it('reads versions, ports, dates, regions and config keys', () => {
    expect(one('Postgres 14 is our database version', 'infra/db', 'version')).toMatchObject({ slot: 'infra.postgres.version', value: '14' });
    expect(one('CI runs Node.js v24.1.0', 'ci', 'version').value).toBe('24.1.0');
    expect(one('Redis runs on port 6379', 'infra/cache', 'port')).toMatchObject({ slot: 'redis.port', value: 6379 });
    expect(one('The API gateway listens on localhost:3000', 'api', 'port').value).toBe(3000);
    expect(one('The release freeze starts on 2026-12-20', 'release', 'date').value).toBe('2026-12-20');
    expect(one('Deployment target is us-east-1', 'deploy', 'region').value).toBe('us-east-1');
    expect(one('Limits come from AUTH_RATE_LIMIT in .env', 'auth', 'config_key')).toMatchObject({
      slot: 'config.AUTH_RATE_LIMIT',
      value: 'AUTH_RATE_LIMIT',
    });
  });

  it('records technologies by category, with negation and replaced values', () => {
    expect(one('The auth service uses Redis for session caching', 'auth', 'technology')).toMatchObject({
      slot: 'auth.cache',
      type: 'technology',
      value: 'redis',
      subject: 'auth',
      attribute: ['cache'],
    });
    const negated = extractEntities('The auth service does not use JWT tokens', 'auth');
    expect(find(negated, 'technology')[0]).toMatchObject({ value: 'jwt', negated: true });
    expect(find(negated, 'usage')[0]).toMatchObject({ slot: 'auth.uses.jwt', value: false });
    const replaced = find(extractEntities('We replaced Redis with Memcached for auth session caching', 'auth'), 'technology');
    expect(replaced.map((e) => [e.value, e.previous ?? false])).toEqual([
      ['redis', true],
      ['memcached', false],
    ]);
  });

  it('reads booleans, including negated ones', () => {
    expect(one('Debug mode is enabled in production', 'config', 'boolean')).toMatchObject({
      slot: 'config.debug_mode',
      value: true,
      qualifiers: ['prod'],
    });
    expect(one('Debug mode is disabled in production', 'config', 'boolean').value).toBe(false);
    expect(one('Request signing is not enabled', 'api', 'boolean')).toMatchObject({ slot: 'api.request_signing', value: false });
  });

  it('qualifies slots by subject and environment', () => {
    expect(subjectOf('The auth service rate limit is 1000 req/s', 'infra')).toBe('auth');
    expect(subjectOf('Auth allows 5,000 req/s per IP', 'infra')).toBe('auth');
    expect(subjectOf('The public API is REST-based', 'api')).toBe('api');
    expect(subjectOf('Service A listens on port 8080', 'backend')).toBe('service-a');
    expect(subjectOf('Module 3 is written in Go', 'backend')).toBe('module-3');
    expect(subjectOf('The worker retries the job 3 times', 'backend')).toBe('worker');
    expect(subjectOf('Rate limit is 500 req/s', 'payments/webhooks')).toBe('payment');
    const prod = one('Port is 8080 in prod', 'deploy', 'port');
    const staging = one('Port is 9090 in staging', 'deploy', 'port');
    expect(slotKey(prod)).toBe('deploy.port@prod');
    expect(slotKey(staging)).not.toBe(slotKey(prod));
    expect(one('Auth timeout is 30 seconds', 'auth', 'duration').slot).not.toBe(
      one('Auth session timeout is 30 minutes', 'auth', 'duration').slot,
    );
  });

  it('reads numbers the way people write them', () => {
    expect(one('Search API limit is 2k requests per minute', 'search', 'rate').normalized).toBeCloseTo(2000 / 60);
    expect(one('Idle sessions expire after half an hour', 'auth', 'duration')).toMatchObject({ normalized: 1800, attribute: ['idle', 'session', 'ttl'] });
    expect(one('The api deployment runs three replicas', 'infra', 'count').value).toBe(3);
    expect(one('Invoices are retained for 7 years', 'billing', 'duration')).toMatchObject({ attribute: ['invoice', 'retention'], unit: 'y' });
    expect(one('Memory limit for the api pods is 1Gi', 'infra/k8s', 'size')).toMatchObject({ subject: 'api', attribute: ['max', 'memory'], normalized: 1024 ** 3 });
    expect(one('worker pods: cpu request 500m', 'infra/k8s', 'count')).toMatchObject({ unit: 'cpu', normalized: 0.5 });
  });

  it('reads configuration identifiers as attribute names', () => {
    expect(one('orders queue: VisibilityTimeout=120s', 'queue', 'duration')).toMatchObject({ subject: 'order', attribute: ['ttl', 'visibility'] });
    expect(one('maxReceiveCount on the orders queue redrive policy is 3', 'queue', 'number')).toMatchObject({
      subject: 'order',
      attribute: ['max', 'receive'],
    });
    expect(one('orders messages go to the DLQ after 5 receives (maxReceiveCount)', 'queue', 'count').attribute).toEqual(['max', 'receive']);
    expect(one('Helm chart sets DB_POOL_SIZE=50 for the api deployment', 'infra', 'number').attribute).toEqual(['database', 'pool']);
  });

  it('names the same setting the same way however it is worded', () => {
    const attribute = (content: string, scope: string, type: string) => one(content, scope, type).attribute;
    expect(attribute('The payment gateway client times out after 30s', 'payments', 'duration')).toEqual(
      attribute('Payment gateway timeout: 10 seconds', 'payments', 'duration'),
    );
    expect(attribute('Uploads are capped at 512 MiB per file', 'uploads', 'size')).toEqual(attribute('Max upload size is 1 GiB per file', 'uploads', 'size'));
    expect(attribute('The public API rejects request bodies over 10MB', 'api', 'size')).toEqual(
      attribute('Max request body size for the public API is 1 MB', 'api', 'size'),
    );
    // ...and different settings differently.
    expect(attribute('worker HPA minReplicas: 3', 'infra', 'number')).not.toEqual(attribute('worker HPA maxReplicas is 30', 'infra', 'number'));
    expect(attribute('api container memory request is 256Mi', 'infra', 'size')).not.toEqual(attribute('api container memory limit is 512Mi', 'infra', 'size'));
  });

  it('reads versions from image tags and upgrades, and ports written as :9464', () => {
    expect(one('The api Dockerfile base image is node:22-alpine', 'platform', 'version')).toMatchObject({ value: '22', attribute: ['node'] });
    expect(find(extractEntities('Upgraded RDS Postgres from 14 to 16', 'infra/db'), 'version').map((e) => [e.value, e.previous ?? false])).toEqual([
      ['16', false],
      ['14', true],
    ]);
    expect(one('Prometheus scrapes our metrics endpoint on :9464', 'observability', 'port').value).toBe(9464);
  });

  it('reads absence: "no rate limiting", "without MFA", "no CDN", "isn\'t enforced"', () => {
    expect(one('There is no rate limiting on the public search endpoint', 'search', 'boolean')).toMatchObject({ attribute: ['limiting', 'rate'], value: false });
    expect(one('Admin accounts can log in without MFA', 'auth', 'boolean')).toMatchObject({ subject: 'admin', attribute: ['mfa'], value: false });
    expect(one("TOTP isn't enforced anywhere", 'auth', 'boolean').value).toBe(false);
    expect(one("We don't put a CDN in front of the web app", 'web', 'technology')).toMatchObject({ attribute: ['cdn'], value: 'none' });
  });

  it('treats "production traffic" as traffic, not as the production environment', () => {
    expect(one('The canary gets 20 percent of production traffic', 'deploy', 'percentage').qualifiers).toBeUndefined();
    expect(one('api runs 6 replicas in production', 'deploy', 'count').qualifiers).toEqual(['prod']);
  });

  it('gives facts about one slot a shared match key', () => {
    const keys = (content: string, scope: string) => matchKeysOf(extractEntities(content, scope));
    expect(keys('The auth service rate limit is 1000 req/s', 'auth')).toContain('rate:max');
    expect(keys('Auth allows 5,000 req/s per IP', 'infra')).toContain('rate:max');
    expect(keys('The API returns JSON responses', 'api')).toEqual(expect.arrayContaining(['technology:data_format', 'usage:json']));
  });

  it('finds no values in a fact without values, only the statement itself', () => {
    const entities = extractEntities('Releases are tagged with semantic version numbers', 'release');
    expect(entities.map((e) => e.type)).toEqual(['assertion', 'concepts', 'statement']);
    expect(entities[0]).toMatchObject({ value: true, label: 'Releases are tagged with semantic version numbers' });
  });

  it('reads a statement and its negation as one statement with opposite values', () => {
    const [stated] = find(extractEntities('The mobile app uses certificate pinning for API calls', 'mobile'), 'assertion');
    const [denied] = find(extractEntities('The mobile app does not use certificate pinning for API calls', 'mobile'), 'assertion');
    expect(denied!.attribute).toEqual(stated!.attribute);
    expect([stated!.value, denied!.value]).toEqual([true, false]);
    const [noLonger] = find(extractEntities('The auth service no longer sends one-time passcodes by SMS; they go out by email', 'auth'), 'assertion');
    expect(noLonger!.attribute).toEqual(find(extractEntities('The auth service sends one-time passcodes by SMS', 'auth'), 'assertion')[0]!.attribute);
  });
});
