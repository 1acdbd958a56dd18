import { contentHash, extractEntities, normalizeContent, slotKey, subjectOf, type FactEntity } from '@engram/core';
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
    expect(one('The rate limit is 1,000 req/s', 'auth', 'rate')).toMatchObject({ slot: 'auth.rate_limit', normalized: 1000 });
    expect(one('Search allows 600 requests per minute', 'search', 'rate').normalized).toBe(10);
    expect(one('Error budget is 0.5% per month', 'sre', 'percentage')).toMatchObject({ value: 0.5, unit: '%' });
    expect(one('Max database connections is 50 connections', 'infra/db', 'count')).toMatchObject({
      slot: 'infra.max_database_connection',
      unit: 'connection',
      value: 50,
    });
    expect(one('The replica count is 3', 'infra', 'number')).toMatchObject({ slot: 'infra.replica_count', value: 3 });
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
    expect(one('The auth service uses Redis for session caching', 'auth', 'technology')).toEqual({
      slot: 'auth.cache',
      type: 'technology',
      value: 'redis',
    });
    const negated = extractEntities('The auth service does not use JWT tokens', 'auth');
    expect(find(negated, 'technology')[0]).toMatchObject({ value: 'jwt', negated: true });
    expect(find(negated, 'usage')[0]).toMatchObject({ slot: 'auth.uses.jwt', value: false });
    const replaced = find(extractEntities('We replaced Redis with Memcached for auth session caching', 'auth'), 'technology');
    expect(replaced).toEqual([
      { slot: 'auth.cache', type: 'technology', value: 'redis', previous: true },
      { slot: 'auth.cache', type: 'technology', value: 'memcached' },
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
    expect(subjectOf('Rate limit is 500 req/s', 'payments/webhooks')).toBe('payments');
    const prod = one('Port is 8080 in prod', 'deploy', 'port');
    const staging = one('Port is 9090 in staging', 'deploy', 'port');
    expect(slotKey(prod)).toBe('deploy.port@prod');
    expect(slotKey(staging)).not.toBe(slotKey(prod));
    expect(one('Auth timeout is 30 seconds', 'auth', 'duration').slot).not.toBe(
      one('Auth session timeout is 30 minutes', 'auth', 'duration').slot,
    );
  });

  it('finds nothing in a fact without values', () => {
    expect(extractEntities('Releases are tagged with semantic version numbers', 'release')).toEqual([]);
  });
});
