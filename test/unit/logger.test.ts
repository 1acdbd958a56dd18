import { Writable } from 'node:stream';
import { createLogger } from '@engram/server';
import { redactUrl, scrubQueryParams } from '../../apps/server/src/logger.ts';
import { describe, expect, it } from 'vitest';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger({ logLevel: 'info' }, stream), text: () => lines.join('') };
}

describe('logger redaction', () => {
  it('never writes credentials or fact content', () => {
    const { logger, text } = capture();
    logger.info(
      {
        req: { headers: { authorization: 'Bearer egm_SECRET_TOKEN', cookie: 'session=SECRET_COOKIE' } },
        token: 'egm_TOP_LEVEL_TOKEN',
        result: { owner_token: 'egm_OWNER_TOKEN', invite_key: 'ek_INVITE_KEY' },
        fact: { content: 'SECRET_FACT_CONTENT' },
        body: { facts: [{ content: 'IMPORTED_FACT_CONTENT' }] },
        fact_id: 'kept-fact-id',
      },
      'something happened',
    );
    const out = text();
    for (const secret of [
      'SECRET_TOKEN',
      'SECRET_COOKIE',
      'TOP_LEVEL_TOKEN',
      'OWNER_TOKEN',
      'INVITE_KEY',
      'SECRET_FACT_CONTENT',
      'IMPORTED_FACT_CONTENT',
    ]) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('kept-fact-id');
    expect(out).toContain('[redacted]');
  });

  it('cuts query parameters out of logged database errors', () => {
    const { logger, text } = capture();
    const error = new Error('Failed query: select * from tokens where token_hash = $1\nparams: abcdef0123456789');
    logger.error({ err: error }, 'request failed');
    expect(text()).not.toContain('abcdef0123456789');
    expect(text()).toContain('Failed query: select * from tokens');
    expect(scrubQueryParams('x\nparams: 1,2\ny')).toBe('x\nparams: [redacted]\ny');
  });

  it('redacts a CSRF token in a URL path by its prefix, even one that happens to hold no digit', () => {
    // About one random token in 1,500 has no digit; without a prefix it did not look random enough.
    const token = `egc_${'aBcDeFgHiJkLmNoPqRsTuVwXyZ_-'.repeat(2).slice(0, 43)}`;
    expect(redactUrl(`/api/v1/csrf/${token}`)).toBe('/api/v1/csrf/[redacted]');
    expect(token).not.toMatch(/[0-9]/);
  });
});
