/**
 * Credentials never reach the request log, wherever a client puts them: header, cookie, path or
 * query string. Every credential kind: member token, invite key, operator token, dashboard
 * session and its CSRF token.
 */
import { provisionWorkspace } from '@engram/core';
import type { DbHandle } from '@engram/db';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../../apps/server/src/logger.ts';
import { TEST_ADMIN_TOKEN, TEST_SECRET, testApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const HOST = 'localhost:8080';

describe('request URLs in logs', () => {
  it('keep plain parameters and replace every other value and credential-shaped path segment', () => {
    const token = `egm_${'a'.repeat(43)}`;
    expect(redactUrl(`/api/v1/facts?scope=auth&limit=5&q=the+db+password&token=${token}`)).toBe('/api/v1/facts?scope=auth&limit=5&q=[redacted]&token=[redacted]');
    expect(redactUrl(`/x/${token}/y`)).toBe('/x/[redacted]/y');
    expect(redactUrl(`/x?scope=${token}`)).toBe('/x?scope=[redacted]');
    expect(redactUrl(`/x?${token}`)).toBe('/x?[redacted]');
    expect(redactUrl('/api/v1/week_summary_report_2026')).toBe('/api/v1/week_summary_report_2026');
  });
});

describe.each(testDatabases())('request log on $name', (engine) => {
  let db: DbHandle;
  let app: FastifyInstance;
  const lines: string[] = [];
  beforeAll(async () => {
    db = await engine.open();
    app = await testApp(db, { logLevel: 'info' }, lines);
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  it('holds no credential of any kind, wherever the client put it', async () => {
    const ws = await provisionWorkspace(db.db, TEST_SECRET, {});
    const signIn = await app.inject({ method: 'POST', url: '/api/v1/session', headers: { host: HOST }, payload: { token: ws.ownerToken } });
    expect(signIn.statusCode).toBe(200);
    const sessionId = signIn.cookies.find((c) => c.name === 'engram_session')!.value;
    const csrf = signIn.json<{ csrf_token: string }>().csrf_token;
    const credentials = { member: ws.ownerToken, invite: ws.inviteKey, operator: TEST_ADMIN_TOKEN, session: sessionId, csrf };

    for (const [kind, value] of Object.entries(credentials)) {
      const encoded = encodeURIComponent(value);
      for (const url of [
        `/api/v1/workspace?token=${encoded}`,
        `/api/v1/workspace?access_token=${encoded}&scope=kept-scope`,
        `/api/v1/facts?q=${encoded}`,
        `/api/v1/${kind}/${encoded.slice(0, 90)}`,
        `/mcp?key=${encoded}`,
        `/.well-known/oauth-protected-resource?code=${encoded}`,
      ]) {
        await app.inject({ method: 'GET', url, headers: { host: HOST } });
      }
      await app.inject({
        method: 'GET',
        url: '/api/v1/workspace',
        headers: { host: HOST, authorization: `Bearer ${value}`, cookie: `engram_session=${value}`, 'x-csrf-token': value },
      });
    }
    await app.inject({ method: 'POST', url: '/api/v1/join', headers: { host: HOST }, payload: { invite_key: ws.inviteKey, role: 'a\u0000' } });

    const log = lines.join('');
    expect(log).toContain('"url":"/api/v1/workspace?access_token=[redacted]&scope=kept-scope"');
    for (const [kind, value] of Object.entries(credentials)) {
      // A long-enough piece of each credential, raw or percent-encoded, appears nowhere.
      for (const form of [value, encodeURIComponent(value)]) {
        expect(log.includes(form.slice(0, 24)), `${kind} credential in the log`).toBe(false);
        expect(log.includes(form.slice(-24)), `${kind} credential in the log`).toBe(false);
      }
    }
  });
});
