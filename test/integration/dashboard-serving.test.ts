/**
 * How the server serves the dashboard build (routes/home.ts), through inject(): the app for every
 * dashboard path that asks for HTML, hashed assets with long caching and pre-compressed variants,
 * and never in place of the API, MCP, health or well-known answers. Without a build: a page that
 * says how to make one.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { AuditLog, LocalEmbedder, RateLimiter, silentLogger, TokenCache } from '@engram/core';
import type { DbHandle } from '@engram/db';
import { buildApp, createLogger } from '@engram/server';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET, testConfig } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const INDEX = '<!doctype html><html><head><script type="module" src="/assets/app-1a2b3c.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});\n`;
const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', host: '127.0.0.1' };

async function appServing(db: DbHandle, dashboardDir: string): Promise<FastifyInstance> {
  const config = testConfig();
  const audit = new AuditLog(db.db, silentLogger, { flushMs: 50 });
  const limits = new RateLimiter(db.db, { syncMs: 50 });
  const app = await buildApp(
    { config, db, secret: TEST_SECRET, embedder: new LocalEmbedder(), tokens: new TokenCache(), audit, limits },
    { logger: createLogger(config), dashboardDir },
  );
  app.addHook('onClose', async () => {
    await audit.close();
    await limits.close();
  });
  return app;
}

describe('serving the dashboard build', () => {
  let db: DbHandle;
  let dir: string;
  let app: FastifyInstance;
  let unbuilt: FastifyInstance;

  beforeAll(async () => {
    db = await testDatabases()[0]!.open();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-dashboard-'));
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
    fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    fs.writeFileSync(path.join(dir, 'assets/app-1a2b3c.js'), SCRIPT);
    fs.writeFileSync(path.join(dir, 'assets/app-1a2b3c.js.gz'), zlib.gzipSync(SCRIPT));
    fs.writeFileSync(path.join(dir, '.env'), 'SECRET=1');
    app = await appServing(db, dir);
    unbuilt = await appServing(db, path.join(dir, 'does-not-exist'));
  });
  afterAll(async () => {
    await app?.close();
    await unbuilt?.close();
    await db?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers / and deep links with index.html and a strict Content-Security-Policy', async () => {
    for (const url of ['/', '/conflicts', '/members?tab=invites', '/join']) {
      const res = await app.inject({ method: 'GET', url, headers: html });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toBe(INDEX);
      expect(res.headers['cache-control']).toBe('no-cache');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('serves hashed assets for a year, pre-compressed when the client accepts it', async () => {
    const plain = await app.inject({ method: 'GET', url: '/assets/app-1a2b3c.js', headers: { host: '127.0.0.1' } });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toMatch(/javascript/);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.body).toBe(SCRIPT);

    const gz = await app.inject({ method: 'GET', url: '/assets/app-1a2b3c.js', headers: { host: '127.0.0.1', 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.rawPayload.length).toBeLessThan(SCRIPT.length / 10);
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(SCRIPT);

    const favicon = await app.inject({ method: 'GET', url: '/favicon.svg', headers: { host: '127.0.0.1' } });
    expect(favicon.statusCode).toBe(200);
  });

  it('never answers with the app for API, MCP, health, well-known or missing asset paths', async () => {
    const notFound = async (url: string) => {
      const res = await app.inject({ method: 'GET', url, headers: html });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^application\/json/);
      expect(res.json().error.code, url).toBe('not_found');
    };
    await notFound('/api/v1/no-such-route');
    await notFound('/api');
    await notFound('/.well-known/no-such-thing');
    await notFound('/assets/missing-123.js');
    await notFound('/healthz/extra');

    expect((await app.inject({ method: 'GET', url: '/healthz', headers: html })).json()).toMatchObject({ status: 'ok' });
    expect((await app.inject({ method: 'GET', url: '/mcp', headers: html })).statusCode).toBe(405);
    const wellKnown = await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource', headers: html });
    expect(wellKnown.json()).toMatchObject({ resource: expect.stringMatching(/\/mcp$/) });
    // A client that wants JSON (a script, a typo in an API path) gets the JSON 404, not the app.
    const json = await app.inject({ method: 'GET', url: '/conflicts', headers: { host: '127.0.0.1', accept: 'application/json' } });
    expect(json.statusCode).toBe(404);
    expect((await app.inject({ method: 'POST', url: '/conflicts', headers: html })).statusCode).toBe(404);
  });

  it('does not serve files outside the build or hidden ones', async () => {
    for (const url of ['/assets/../.env', '/assets/..%2f.env', '/assets/%2e%2e/%2e%2e/package.json', '/assets/.env']) {
      const res = await app.inject({ method: 'GET', url, headers: { host: '127.0.0.1' } });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, url).toBeLessThan(500);
      expect(res.body).not.toContain('SECRET=1');
    }
  });

  it('without a build, explains how to make one and how to connect an agent', async () => {
    const res = await unbuilt.inject({ method: 'GET', url: '/', headers: html });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('npm run build:dashboard');
    expect(res.body).toContain('http://127.0.0.1/mcp');
    expect(res.body).toContain('claude mcp add --transport http engram');
    // Its one inline style block is allowed by hash; no script may run.
    const csp = String(res.headers['content-security-policy']);
    const style = /<style>([\s\S]*?)<\/style>/.exec(res.body)![1]!;
    expect(csp).toContain(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(csp).toContain("default-src 'none'");
    const deep = await unbuilt.inject({ method: 'GET', url: '/conflicts', headers: html });
    expect(deep.body).toContain('npm run build:dashboard');
  });
});
