/**
 * People in the dashboard, in headless Chromium against the real server (issue 55): the member's
 * name beside each fact (knowledge base, conflicts), renaming oneself and others in place (a taken
 * name refused with the server's words), invite labels, the new invite key brought into view, the
 * knowledge table at 1280 px (every column in view, and a visible sign when a narrower window hides
 * some), conflict explanations naming each value once, and a consent page that speaks to people.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard, staleReason } from '../../infra/dashboard-build.ts';
import { connectMcp, isolatedServerEngines, mustCall, provisionOverHttp, startTestServer } from '../support/mcp.ts';

const CHROMIUM = process.env.ENGRAM_CHROMIUM ?? '/usr/bin/chromium';
const LAPTOP = { width: 1280, height: 800 };
/** Wide enough to keep the sidebar (the phone layout starts at 860 px), too narrow for every column. */
const NARROW = { width: 960, height: 800 };

/** The in-page geometry this file reads (the test's own lib has no DOM types). */
interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}
interface Measured {
  getBoundingClientRect(): Box;
  scrollWidth: number;
  clientWidth: number;
  scrollLeft: number;
  textContent: string | null;
  querySelectorAll(selector: string): ArrayLike<Measured>;
}

const engine = isolatedServerEngines().at(-1)!;

describe(`people in the dashboard, in headless Chromium on ${engine.name}`, () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let cleanup = async () => {};
  let browser: Browser;
  let page: Page;
  let owner: Awaited<ReturnType<typeof provisionOverHttp>>;
  let alice: Client;
  let bob: Client;
  const problems: string[] = [];

  const heading = (name: string, p: Page = page) => p.getByRole('heading', { level: 1, name });
  const open = async (pathname: string, title: string) => {
    await page.goto(pathname);
    await heading(title).waitFor();
  };
  const rest = async <T,>(pathname: string, init: { method?: string; body?: unknown; token?: string } = {}): Promise<T> => {
    const res = await fetch(`${server.baseUrl}${pathname}`, {
      method: init.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    });
    if (!res.ok) throw new Error(`${pathname}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const commit = (client: Client, content: string, scope: string, agent: string) =>
    mustCall(client, 'engram_commit', { content, scope, confidence: 0.9, agent_id: agent });

  /** The knowledge table's geometry: each header's box against the scrolling box, and what overflows. */
  const tableGeometry = () =>
    page.locator('.table-wrap').first().evaluate((wrap: Measured) => {
      const box = wrap.getBoundingClientRect();
      const headers = Array.from(wrap.querySelectorAll('thead th')).map((th) => {
        const r = th.getBoundingClientRect();
        return { text: th.textContent ?? '', inView: r.left >= box.left - 1 && r.right <= box.right + 1, clipped: th.scrollWidth > th.clientWidth + 1 };
      });
      return { headers, overflows: wrap.scrollWidth > wrap.clientWidth + 1 };
    });

  beforeAll(async () => {
    if (staleReason()) await buildDashboard();
    if (!fs.existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: run infra/ensure-chromium.sh, or set ENGRAM_CHROMIUM to a Chromium binary.`);
    const prepared = await engine.prepare();
    cleanup = () => prepared.cleanup();
    server = await startTestServer({ ...prepared.overrides, inProcessWorker: true });
    owner = await provisionOverHttp(server.baseUrl, { name: 'Billing team', owner_display_name: 'Alice' });
    const joined = await rest<{ token: string }>('/api/v1/join', { method: 'POST', body: { invite_key: owner.invite_key, display_name: 'Bob' } });
    alice = await connectMcp(owner.mcp_url, owner.owner_token);
    bob = await connectMcp(owner.mcp_url, joined.token);
    await commit(alice, 'The billing service timeout is 30 seconds', 'billing', 'agent-1d77f581');
    await commit(alice, 'Billing service timeout: 30 s', 'billing', 'agent-1d77f581');
    await commit(bob, 'The billing service timeout is 60 seconds', 'billing', 'agent-9c2e0b14');
    await commit(bob, 'Webhook retries use exponential backoff for up to 24 hours', 'backend/payments/webhooks', 'agent-9c2e0b14');
    // The detector raises the timeout conflict in the background: wait for it (state, not time).
    const deadline = Date.now() + 60_000;
    for (;;) {
      const open = await rest<{ groups: unknown[] }>('/api/v1/conflicts', { token: owner.owner_token });
      if (open.groups.length > 0) break;
      if (Date.now() > deadline) throw new Error('the detector raised no conflict');
      await new Promise((r) => setTimeout(r, 100));
    }

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    const context = await browser.newContext({ baseURL: server.baseUrl, viewport: LAPTOP });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto('/');
    await page.getByLabel('Member token').fill(owner.owner_token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Knowledge base').waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await alice?.close();
    await bob?.close();
    await server?.stop();
    await cleanup();
  });

  it('shows the member beside the agent id of every fact in the knowledge base', async () => {
    const row = page.locator('tr[data-fact-id]').filter({ hasText: 'timeout is 30 seconds' });
    await expect.poll(() => row.locator('td[data-label="By"]').innerText()).toBe('Alice\nagent-1d77f581');
    const bobs = page.locator('tr[data-fact-id]').filter({ hasText: 'timeout is 60 seconds' });
    expect(await bobs.locator('td[data-label="By"]').innerText()).toBe('Bob\nagent-9c2e0b14');
  });

  it('shows every column of the knowledge table at 1280 px, and says so when a narrower window hides some', async () => {
    await page.locator('tr[data-fact-id]').first().waitFor();
    const laptop = await tableGeometry();
    expect(laptop.headers.map((h) => h.text)).toEqual(['Fact', 'Scope', 'By', 'Type', 'Committed', 'Confidence']);
    expect(laptop.headers.filter((h) => !h.inView || h.clipped).map((h) => h.text)).toEqual([]);
    expect(laptop.overflows).toBe(false);
    expect(await page.locator('.table-scroll-hint').count()).toBe(0);

    await page.setViewportSize(NARROW);
    try {
      // Narrower, the table scrolls: a line above it says so, and which way.
      await expect.poll(async () => (await tableGeometry()).overflows).toBe(true);
      const hint = page.locator('.table-scroll-hint').first();
      await expect.poll(() => hint.isVisible()).toBe(true);
      expect(await hint.innerText()).toMatch(/scroll sideways/i);
      expect((await tableGeometry()).headers.filter((h) => !h.inView).map((h) => h.text)).toContain('Confidence');
      // Scrolled to the end, the last column is in view and the hint points back.
      await page.locator('.table-wrap').first().evaluate((wrap: Measured) => {
        wrap.scrollLeft = wrap.scrollWidth;
      });
      await expect.poll(() => hint.innerText()).toMatch(/to the left/);
      expect((await tableGeometry()).headers.find((h) => h.text === 'Confidence')?.inView).toBe(true);
    } finally {
      await page.setViewportSize(LAPTOP);
    }
  });

  it('names each member beside their facts in a conflict, and each value once in its explanation', async () => {
    await open('/conflicts', 'Conflicts');
    const card = page.locator('article.conflict').filter({ hasText: 'Current facts state different values' }).first();
    await card.waitFor();
    const members = await card.locator('.fact-member').allInnerTexts();
    expect(new Set(members)).toEqual(new Set(['Alice', 'Bob']));
    const explanation = await card.locator('.conflict-explanation').innerText();
    const quoted = [...explanation.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    // However many facts state a value, it is named once.
    expect(quoted).toEqual(['30 seconds', '60 seconds']);
  });

  it('renames yourself and, as an owner, others; a taken name is refused with what to change', async () => {
    await open('/members', 'Members and invites');
    await page.getByRole('button', { name: 'Rename yourself' }).click();
    await page.getByLabel('Your new name').fill('Alice Smith');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('status').filter({ hasText: 'You are now called Alice Smith.' }).waitFor();
    await page.locator('tr[data-member-id]').filter({ hasText: 'Alice Smith' }).waitFor();
    // The header shows the new name at once.
    await page.locator('.topbar-user').filter({ hasText: 'Alice Smith' }).waitFor();

    await page.getByRole('button', { name: 'Rename Bob' }).click();
    await page.getByLabel('New name for Bob').fill('ALICE SMITH');
    await page.getByRole('button', { name: 'Save name' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Not renamed' });
    await refused.waitFor();
    expect(await refused.innerText()).toContain('Another member of this workspace is already called "ALICE SMITH"');
    await page.getByLabel('New name for Bob').fill('Robert');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('status').filter({ hasText: 'Bob is now called Robert.' }).waitFor();

    // The knowledge base names the facts by the new names.
    await open('/', 'Knowledge base');
    const row = page.locator('tr[data-fact-id]').filter({ hasText: 'timeout is 60 seconds' });
    await expect.poll(() => row.locator('td[data-label="By"]').innerText()).toBe('Robert\nagent-9c2e0b14');
    expect(await page.locator('tr[data-fact-id]').filter({ hasText: 'timeout is 30 seconds' }).locator('td[data-label="By"]').innerText()).toBe(
      'Alice Smith\nagent-1d77f581',
    );
  });

  it('creates a labelled invite, brings its key into view and focus, and lists it by its label', async () => {
    await open('/members', 'Members and invites');
    // The form sits low on the page: the created key appears further down still.
    await page.getByLabel('Label (optional)').fill('backend team');
    await page.getByRole('button', { name: 'Create invite' }).click();
    const key = page.getByLabel('Invite key', { exact: true });
    await expect.poll(() => key.evaluate((el) => el === (el.ownerDocument as unknown as { activeElement: unknown }).activeElement)).toBe(true);
    expect(await key.inputValue()).toMatch(/^ek_/);
    const box = (await key.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(LAPTOP.height);
    await page.getByRole('heading', { name: 'Invite key created: backend team' }).waitFor();
    const listed = page.locator('tr[data-invite-id]').filter({ hasText: 'backend team' });
    await listed.waitFor();
    expect(await listed.locator('td[data-label="Label"]').innerText()).toBe('backend team');
  });

  it('tells a person on the consent page what is wrong with a token, without jargon', async () => {
    const client = await rest<{ client_id: string }>('/oauth/register', {
      method: 'POST',
      body: { redirect_uris: ['http://127.0.0.1:9/callback'], client_name: 'People test', token_endpoint_auth_method: 'none' },
    });
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: 'http://127.0.0.1:9/callback',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${server.baseUrl}/mcp`,
    });
    const context = await browser.newContext({ baseURL: server.baseUrl, viewport: LAPTOP });
    try {
      const consent = await context.newPage();
      consent.setDefaultTimeout(10_000);
      await consent.goto(`/oauth/authorize?${params.toString()}`);
      await consent.waitForURL(/\/oauth\/consent\?request=/);
      await consent.getByLabel('Member token').fill('egm_this-token-was-never-issued');
      await consent.getByRole('button', { name: 'Allow' }).click();
      const alert = consent.getByRole('alert').filter({ hasText: 'Could not finish connecting' });
      await alert.waitFor();
      const text = await alert.innerText();
      expect(text).toContain('This sign-in token has expired or is not valid');
      expect(text).toContain('ask your workspace owner for a new token or invite');
      expect(text).not.toMatch(/Invalid input|bearer/i);
    } finally {
      await context.close();
    }
  });

  it('reported no script errors', () => {
    expect(problems).toEqual([]);
  });
});
