/**
 * Citations and verifications in the dashboard, in headless Chromium against the real server
 * (issue 57): the knowledge base links a fact's citation to its lines on the forge, says when it
 * was last checked in code and lists its verifications; the conflict queue shows what the fact of
 * a stale question cites. On the embedded database (the API behind it is tested on both engines
 * in citations.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CommitOutput, VerifyOutput } from '@engram/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard, staleReason } from '../../infra/dashboard-build.ts';
import { connectMcp, mustCall, provisionOverHttp, startTestServer } from '../support/mcp.ts';

const CHROMIUM = process.env.ENGRAM_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOTS = path.join(import.meta.dirname, '../artifacts/screenshots');
const SHA = '9f3c2a1b4d5e6f708192a3b4c5d6e7f809123456';

describe('citations in the dashboard (headless Chromium)', { timeout: 120_000 }, () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let browser: Browser;
  let page: Page;
  let agent: Client;
  let cited: CommitOutput;
  let stale: CommitOutput;
  const problems: string[] = [];

  beforeAll(async () => {
    if (staleReason()) await buildDashboard();
    if (!fs.existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: run infra/ensure-chromium.sh, or set ENGRAM_CHROMIUM to a Chromium binary.`);
    server = await startTestServer();
    const owner = await provisionOverHttp(server.baseUrl, { name: 'Citations team', owner_display_name: 'Ada' });
    agent = await connectMcp(`${server.baseUrl}/mcp`, owner.owner_token);
    const commit = (args: Record<string, unknown>) => mustCall<CommitOutput>(agent, 'engram_commit', { confidence: 1, ...args });
    cited = await commit({
      content: 'Webhooks are retried 3 times before they are dead-lettered.',
      scope: 'payments/webhooks',
      citations: [{ path: 'src/webhooks/retry.ts', start_line: 12, end_line: 14, commit: SHA, repo: 'git@github.com:acme/payments.git' }],
    });
    await mustCall<VerifyOutput>(agent, 'engram_verify', { fact_id: cited.fact_id, status: 'still_true', commit: SHA, evidence: 'retry.ts:13 sets MAX_RETRIES = 3.' });
    stale = await commit({
      content: 'Refunds are processed by the nightly batch job.',
      scope: 'payments/refunds',
      citations: [{ path: 'jobs/refunds.py', start_line: 40, commit: SHA }],
    });
    await mustCall<VerifyOutput>(agent, 'engram_verify', { fact_id: stale.fact_id, status: 'outdated', evidence: 'refunds.py now runs on every refund event.' });

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    await page.goto('/');
    await page.getByLabel('Member token').fill(owner.owner_token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Knowledge base' }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.close();
    await server?.stop();
  });

  it('links a citation to its lines on the forge, says when the fact was checked, and lists its verifications', async () => {
    const row = page.locator(`tr[data-fact-id="${cited.fact_id}"]`);
    const link = row.getByRole('link', { name: `src/webhooks/retry.ts:12-14 @ ${SHA.slice(0, 7)}` });
    expect(await link.getAttribute('href')).toBe(`https://github.com/acme/payments/blob/${SHA}/src/webhooks/retry.ts#L12-L14`);
    await row.getByText(/Checked in code/).waitFor();
    await row.getByText('Verifications').click();
    const verification = row.locator('[data-verification-status="still_true"]');
    await verification.waitFor();
    expect(await verification.textContent()).toMatch(/still true.*Ada.*at 9f3c2a1b4d5e.*retry\.ts:13 sets MAX_RETRIES = 3\./s);
    // A citation on no known forge is shown, not linked.
    const plain = page.locator(`tr[data-fact-id="${stale.fact_id}"]`);
    await plain.getByText(`jobs/refunds.py:40 @ ${SHA.slice(0, 7)}`).waitFor();
    expect(await plain.getByRole('link', { name: /jobs\/refunds\.py/ }).count()).toBe(0);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'knowledge-citations.png'), fullPage: true });
  });

  it('shows what the fact of a stale question cites in the conflict queue', async () => {
    await page.goto('/conflicts');
    const card = page.locator('article, section, li').filter({ hasText: 'An agent re-read the code this fact cites and found it outdated' }).first();
    await card.waitFor();
    await card.getByText(`jobs/refunds.py:40 @ ${SHA.slice(0, 7)}`).waitFor();
    await card.getByText('refunds.py now runs on every refund event.').waitFor();
  });

  it('reported no script errors and no Content-Security-Policy violations', () => {
    expect(problems).toEqual([]);
  });
});
