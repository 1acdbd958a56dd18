/**
 * The web dashboard in a real browser (headless Chromium through playwright-core) against the real
 * server: sign in with a member token, see a conflict that agents created over MCP, settle it with
 * a click, check the knowledge base and engram_query agree, invite a teammate who joins and signs
 * in, visit every view at laptop and phone widths (screenshots in test/artifacts/screenshots), use
 * it with the keyboard only, and sign out. On Postgres (a database of its own) when
 * TEST_DATABASE_URL is set, else on the embedded database.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { CommitOutput, QueryOutput } from '@engram/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard, firstLoadSize, staleReason } from '../../infra/dashboard-build.ts';
import { connectMcp, isolatedServerEngines, mustCall, provisionOverHttp, startTestServer } from '../support/mcp.ts';

/** axe-core, evaluated in the page (through the DevTools protocol, so the page's CSP does not block it). */
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const CHROMIUM = process.env.ENGRAM_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOTS = path.join(import.meta.dirname, '../artifacts/screenshots');
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

type Server = Awaited<ReturnType<typeof startTestServer>>;

interface PageElement {
  tagName: string;
  id: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
}
/** The browser globals the page functions below use (this test's own lib has no DOM types). */
interface PageGlobals {
  document: { activeElement: PageElement | null; cookie: string; documentElement: { scrollWidth: number } };
  localStorage: { length: number };
  sessionStorage: { length: number };
  getComputedStyle(element: PageElement): { outlineStyle: string };
}
const engine = isolatedServerEngines().at(-1)!;

describe(`dashboard in headless Chromium on ${engine.name}`, () => {
  let server: Server;
  let cleanup = async () => {};
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let owner: Awaited<ReturnType<typeof provisionOverHttp>>;
  let agentA: Client;
  let agentB: Client;
  /** Problems the page reported: uncaught errors and Content-Security-Policy violations. */
  const pageProblems: string[] = [];
  const facts = {} as { low: CommitOutput; high: CommitOutput };
  let invite = '';

  const shot = async (name: string, target: Page = page) => {
    // From the top: a full-page capture of a scrolled page draws the sticky header mid-page.
    await target.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
    await target.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
    // Every view we show is also checked against WCAG 2.1 A/AA as it is at that moment.
    expect(await accessibilityProblems(target), `${name}: WCAG 2.1 AA (axe-core)`).toEqual([]);
  };
  /** WCAG 2.1 A and AA violations axe-core finds on the page as it is now (rule: nodes). */
  const accessibilityProblems = async (target: Page = page): Promise<string[]> => {
    await target.evaluate(AXE_SOURCE);
    const violations = await target.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run(options: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
      const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
      return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    });
    return violations;
  };
  const heading = (name: string, target: Page = page) => target.getByRole('heading', { level: 1, name });
  const commit = async (client: Client, content: string, scope: string, agent: string, extra: Record<string, unknown> = {}) =>
    mustCall<CommitOutput>(client, 'engram_commit', { content, scope, confidence: 0.9, agent_id: agent, ...extra });
  const rest = async <T>(pathname: string): Promise<T> => {
    const res = await fetch(`${server.baseUrl}${pathname}`, { headers: { authorization: `Bearer ${owner.owner_token}` } });
    if (!res.ok) throw new Error(`${pathname}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  /** Waits until the detector has looked at everything committed so far. */
  const detectionSettled = async () => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const status = await rest<{ pending_jobs: number; running_jobs: number; runs_total: number }>('/api/v1/detection/status');
      if (status.pending_jobs === 0 && status.running_jobs === 0 && status.runs_total > 0) return;
      if (Date.now() > deadline) throw new Error(`detection did not finish: ${JSON.stringify(status)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const watch = (target: Page) => {
    target.on('pageerror', (error) => pageProblems.push(`page error: ${error.message}`));
    target.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) pageProblems.push(message.text());
    });
  };

  beforeAll(async () => {
    // The server serves apps/dashboard/dist: build it when missing or older than its sources.
    if (staleReason()) await buildDashboard();
    if (!fs.existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: run infra/ensure-chromium.sh, or set ENGRAM_CHROMIUM to a Chromium binary.`);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    const prepared = await engine.prepare();
    cleanup = () => prepared.cleanup();
    server = await startTestServer({ ...prepared.overrides, inProcessWorker: true });
    owner = await provisionOverHttp(server.baseUrl, { name: 'Checkout team' });
    agentA = await connectMcp(`${server.baseUrl}/mcp`, owner.owner_token);
    agentB = await connectMcp(`${server.baseUrl}/mcp`, owner.owner_token);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    context = await browser.newContext({ baseURL: server.baseUrl, viewport: LAPTOP });
    // Fail a step with its own message well before the test's timeout.
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    watch(page);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await agentA?.close();
    await agentB?.close();
    await server?.stop();
    await cleanup();
  });

  it('keeps the first load small: the chart library is split into the timeline chunk', () => {
    const size = firstLoadSize();
    process.stdout.write(`[dashboard] first load: ${(size.gzip / 1024).toFixed(1)} KiB gzip (${size.files.map((f) => f.file).join(', ')})\n`);
    expect(size.files.some((f) => f.file.endsWith('.css'))).toBe(true);
    expect(size.files.some((f) => /timeline/.test(f.file))).toBe(false);
    expect(size.gzip).toBeLessThan(110 * 1024);
  });

  it('serves the app with its security headers on deep links, and keeps API 404s as JSON', async () => {
    const response = await page.goto('/conflicts?status=open');
    expect(response?.status()).toBe(200);
    const headers = response!.headers();
    expect(headers['content-type']).toMatch(/^text\/html/);
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['x-content-type-options']).toBe('nosniff');

    const api = await page.request.get('/api/v1/no-such-thing', { headers: { accept: 'text/html' } });
    expect(api.status()).toBe(404);
    expect((await api.json()).error.code).toBe('not_found');
    expect((await page.request.get('/healthz')).status()).toBe(200);
    expect((await page.request.get('/mcp', { headers: { accept: 'text/html' } })).status()).toBe(405);
  });

  it('signs in with a member token into an HttpOnly session, without keeping the token', async () => {
    await page.goto('/');
    await expect.poll(() => heading('Sign in to Engram').isVisible()).toBe(true);
    await shot('sign-in');

    await page.getByLabel('Member token').fill('egm_not-a-real-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Could not sign in' }).waitFor();

    await page.getByLabel('Member token').fill(owner.owner_token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Knowledge base').waitFor();
    await page.getByText('No facts yet').waitFor();

    const cookie = (await context.cookies()).find((c) => c.name === 'engram_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    const stored = await page.evaluate(() => {
      const w = globalThis as unknown as PageGlobals;
      return w.localStorage.length + w.sessionStorage.length + w.document.cookie.length;
    });
    expect(stored).toBe(0);
    expect(await page.content()).not.toContain(owner.owner_token);
  });

  it('shows a conflict agents committed over MCP and settles it with one click', { timeout: 90_000 }, async () => {
    facts.low = await commit(agentA, 'The API rate limit is 100 requests per minute', 'api', 'agent-a');
    facts.high = await commit(agentB, 'The API rate limit is 500 requests per minute', 'api', 'agent-b');
    await detectionSettled();

    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Conflicts' }).click();
    await heading('Conflicts').waitFor();
    const card = page.locator('article[data-conflict-id]');
    await card.waitFor();
    expect(await card.count()).toBe(1);
    await expect.poll(() => card.getByRole('heading', { level: 3 }).textContent()).toMatch(/rate limit.*\?$/);
    const lowFact = card.locator(`li[data-fact-id="${facts.low.fact_id}"]`);
    const highFact = card.locator(`li[data-fact-id="${facts.high.fact_id}"]`);
    expect(await lowFact.textContent()).toContain('agent-a');
    expect(await highFact.textContent()).toContain('agent-b');
    expect(await page.getByRole('heading', { level: 2, name: /Scope api/ }).count()).toBe(1);
    await shot('conflicts');

    await highFact.getByRole('button', { name: /^Keep this one \(fact [AB]\)/ }).click();
    const note = page.getByLabel('Resolution note');
    // The confirmation opens with the note focused, ready to type.
    await expect.poll(() => page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id ?? '')).toMatch(/^note-/);
    await note.fill('Checked the gateway config: the limit is 500 per minute.');
    await shot('conflict-confirm');
    // Leave two seconds between the commits and the resolution, for the point-in-time view below
    // (its field has a one-second resolution).
    await new Promise((r) => setTimeout(r, Math.max(0, new Date(facts.high.committed_at!).getTime() + 2100 - Date.now())));
    await page.getByRole('button', { name: 'Confirm: keep this fact' }).click();
    await page.getByText('Conflict resolved: 1 fact was closed').waitFor();
    await page.getByText('No open conflicts').waitFor();

    await page.getByRole('link', { name: 'Resolved' }).click();
    await page.locator(`article[data-conflict-id] li.winner[data-fact-id="${facts.high.fact_id}"]`).waitFor();
    await page.getByText('Checked the gateway config').waitFor();
  });

  it('no longer lists the losing fact: not in the knowledge base, not in engram_query', async () => {
    await page.getByRole('link', { name: 'Knowledge base' }).first().click();
    await heading('Knowledge base').waitFor();
    await page.locator(`tr[data-fact-id="${facts.high.fact_id}"]`).waitFor();
    expect(await page.locator(`tr[data-fact-id="${facts.low.fact_id}"]`).count()).toBe(0);

    const query = await mustCall<QueryOutput>(agentA, 'engram_query', { topic: 'API rate limit requests per minute' });
    const ids = query.results.map((r) => r.fact_id);
    expect(ids).toContain(facts.high.fact_id);
    expect(ids).not.toContain(facts.low.fact_id);
  });

  it('shows what the team believed before the resolution (point in time)', async () => {
    const resolved = await rest<{ groups: { conflicts: { facts: { valid_until: string | null }[] }[] }[] }>('/api/v1/conflicts?status=resolved');
    const closedAt = new Date(resolved.groups[0]!.conflicts[0]!.facts.map((f) => f.valid_until).find(Boolean)!).getTime();
    // The first whole second after both commits: both facts were current then (closed ≥ 2 s later).
    const before = new Date(Math.ceil(new Date(facts.high.committed_at!).getTime() / 1000) * 1000);
    expect(before.getTime()).toBeLessThan(closedAt);
    const local = await page.evaluate((iso) => {
      const d = new Date(iso);
      const p = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    }, before.toISOString());

    await page.getByRole('link', { name: 'Point in time' }).click();
    await heading('Point in time').waitFor();
    await page.getByText('Pick a moment').waitFor();
    await page.getByLabel('Show facts as of').fill(local);
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.locator(`tr[data-fact-id="${facts.low.fact_id}"]`).waitFor();
    await page.locator(`tr[data-fact-id="${facts.high.fact_id}"]`).waitFor();
    await shot('point-in-time');
  });

  it('merges a conflict into a fact the human types', { timeout: 90_000 }, async () => {
    const short = await commit(agentA, 'The Redis cache TTL is 300 seconds', 'cache', 'agent-a');
    const long = await commit(agentB, 'The Redis cache TTL is 900 seconds', 'cache', 'agent-b');
    await detectionSettled();

    await page.getByRole('link', { name: 'Conflicts' }).first().click();
    await page.getByRole('link', { name: 'Open' }).click();
    const card = page.locator('article[data-conflict-id]').filter({ hasText: 'Redis cache TTL' });
    await card.getByRole('button', { name: 'Merge…' }).click();
    await page.getByRole('textbox', { name: 'Merged fact', exact: true }).fill('The Redis cache TTL is 900 seconds in production and 300 seconds in staging');
    await page.getByRole('textbox', { name: 'Resolution note', exact: true }).fill('Both were right, for different environments.');
    await page.getByRole('button', { name: 'Confirm merge' }).click();
    await page.getByText('Conflict resolved: 2 facts were closed').waitFor();

    await page.getByRole('link', { name: 'Knowledge base' }).first().click();
    await page.getByText('900 seconds in production and 300 seconds in staging').waitFor();
    for (const f of [short, long]) expect(await page.locator(`tr[data-fact-id="${f.fact_id}"]`).count()).toBe(0);
  });

  it('dismisses a false alarm: both facts stay current and the set is listed as dismissed', { timeout: 90_000 }, async () => {
    const one = await commit(agentA, 'The search index refresh interval is 1 second', 'search', 'agent-a');
    const two = await commit(agentB, 'The search index refresh interval is 30 seconds', 'search', 'agent-b');
    await detectionSettled();

    await page.getByRole('link', { name: 'Conflicts' }).first().click();
    await page.getByRole('link', { name: 'Open' }).click();
    const card = page.locator('article[data-conflict-id]').filter({ hasText: 'search index refresh interval' });
    await card.getByRole('button', { name: 'Dismiss…' }).click();
    await page.getByRole('textbox', { name: 'Resolution note', exact: true }).fill('Not a conflict: 1 s in dev, 30 s in prod.');
    await page.getByRole('button', { name: 'Confirm dismissal' }).click();
    await page.getByText('Conflict dismissed. It will not be raised again.').waitFor();

    await page.getByRole('link', { name: 'Dismissed' }).click();
    await page.locator('article[data-conflict-id]').filter({ hasText: 'search index refresh interval' }).waitFor();
    await page.getByRole('link', { name: 'Knowledge base' }).first().click();
    for (const f of [one, two]) await page.locator(`tr[data-fact-id="${f.fact_id}"]`).waitFor();
  });

  it('creates an invite in the UI with copyable join instructions', async () => {
    await page.getByRole('link', { name: 'Members' }).click();
    await heading('Members and invites').waitFor();
    await page.getByLabel('Uses').fill('1');
    await page.getByRole('button', { name: 'Create invite' }).click();
    const key = await page.getByLabel('Invite key', { exact: true }).inputValue();
    expect(key).toMatch(/^ek_/);
    const instructions = await page.getByLabel('Join instructions').inputValue();
    expect(instructions).toContain(`${server.baseUrl}/mcp`);
    expect(instructions).toContain('engram_join');
    expect(instructions).toContain(key);
    expect(instructions).toContain('/api/v1/join');
    await page.locator('tr[data-invite-id]').filter({ hasText: 'Active' }).first().waitFor();
    await shot('members');
    invite = key;
  });

  it('signs out: the cookie session ends on the server', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to Engram').waitFor();
    await page.getByText('You are signed out.').waitFor();
    expect((await page.request.get('/api/v1/session')).status()).toBe(401);
    await page.reload();
    await heading('Sign in to Engram').waitFor();
    expect((await page.request.get('/api/v1/facts')).status()).toBe(401);
  });

  it('lets the teammate join with the invite key and sign in as the new member', { timeout: 90_000 }, async () => {
    await page.getByRole('link', { name: 'Join a workspace' }).click();
    await heading('Join a workspace').waitFor();
    await shot('join');
    await page.getByLabel('Invite key').fill(invite);
    await page.getByLabel('Your name').fill('Dana');
    await page.getByRole('button', { name: 'Join' }).click();
    await heading('Welcome to Checkout team').waitFor();
    const token = await page.getByLabel('Your token').inputValue();
    expect(token).toMatch(/^egm_/);
    await shot('join-welcome');
    await page.getByRole('button', { name: 'Sign in and open the dashboard' }).click();
    await heading('Knowledge base').waitFor();
    await page.getByRole('banner').getByText('Dana').waitFor();

    // The new member's token works for agents too; the one-use invite is spent.
    const dana = await connectMcp(`${server.baseUrl}/mcp`, token);
    const status = await mustCall<{ status: string }>(dana, 'engram_status', {});
    await dana.close();
    expect(status.status).toBe('ready');
    const again = await fetch(`${server.baseUrl}/api/v1/join`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ invite_key: invite }),
    });
    expect(again.status).toBeGreaterThanOrEqual(400);
  });

  it('shows every view with data, at laptop width', { timeout: 120_000 }, async () => {
    await commit(agentA, 'Webhook retries use exponential backoff for up to 24 hours', 'payments/webhooks', 'agent-a', { provenance: 'src/webhooks/retry.ts' });
    await commit(agentB, 'Checkout sessions are stored in Redis', 'checkout', 'agent-b', { fact_type: 'decision' });
    await commit(agentA, 'The staging database is being migrated this week', 'infra', 'agent-a', { ttl_days: 3 });
    await detectionSettled();

    const timelineChunk = page.waitForRequest((request) => /\/assets\/timeline-[^/]+\.js$/.test(request.url()));
    const views: { link: string; title: string; expect: (p: Page) => Promise<unknown>; file: string }[] = [
      { link: 'Conflicts', title: 'Conflicts', file: 'conflicts-empty', expect: (p) => p.getByText('No open conflicts').waitFor() },
      { link: 'Knowledge base', title: 'Knowledge base', file: 'knowledge-base', expect: (p) => p.getByText('Webhook retries use exponential backoff').waitFor() },
      {
        link: 'Timeline',
        title: 'Timeline',
        file: 'timeline',
        expect: async (p) => {
          await p.locator('.gantt canvas').first().waitFor();
          // 10 windows: 8 facts committed by agents (3 closed by resolutions, 2 kept by a dismissal) and the merged fact.
          await p.getByRole('img', { name: /Gantt chart: 10 validity windows of \d+ facts across 6 scopes/ }).waitFor();
        },
      },
      { link: 'Expiring', title: 'Expiring facts', file: 'expiring', expect: (p) => p.getByText('The staging database is being migrated this week').waitFor() },
      {
        link: 'Agent activity',
        title: 'Agent activity',
        file: 'agent-activity',
        expect: async (p) => {
          await p.getByRole('rowheader', { name: 'agent-a', exact: true }).waitFor();
          await p.getByRole('rowheader', { name: 'agent-b', exact: true }).waitFor();
        },
      },
      { link: 'Members', title: 'Members and invites', file: 'members-as-member', expect: (p) => p.getByText('Only workspace owners can create invite keys').waitFor() },
      {
        link: 'Detective',
        title: 'Detective',
        file: 'detective',
        expect: async (p) => {
          await p.getByRole('heading', { name: /Narrative detective/ }).getByText('Off').waitFor();
          await p.locator('table tbody tr').first().waitFor();
        },
      },
    ];
    for (const view of views) {
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: view.link, exact: true }).click();
      await heading(view.title).waitFor();
      await view.expect(page);
      expect(await page.getByRole('alert').count(), `${view.title} shows an error`).toBe(0);
      // Let the chart finish drawing before the screenshot.
      if (view.file === 'timeline') await page.waitForTimeout(300);
      await shot(view.file);
    }
    await timelineChunk;
  });

  it('collapses the navigation into a menu at phone width', { timeout: 90_000 }, async () => {
    const phone = await context.newPage();
    watch(phone);
    await phone.setViewportSize(PHONE);
    await phone.goto('/conflicts?status=resolved');
    await heading('Conflicts', phone).waitFor();
    const nav = phone.getByRole('navigation', { name: 'Dashboard' });
    expect(await nav.isVisible()).toBe(false);
    await shot('phone-conflicts', phone);
    const menu = phone.getByRole('button', { name: 'Menu' });
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await nav.waitFor({ state: 'visible' });
    await shot('phone-menu', phone);
    await nav.getByRole('link', { name: 'Knowledge base' }).click();
    await heading('Knowledge base', phone).waitFor();
    await nav.waitFor({ state: 'hidden' });
    await phone.getByText('Webhook retries use exponential backoff').waitFor();
    await shot('phone-knowledge-base', phone);
    // Tables become cards: nothing wider than the screen.
    expect(await phone.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await phone.goto('/timeline');
    await phone.locator('.gantt canvas').first().waitFor();
    await phone.waitForTimeout(300);
    await shot('phone-timeline', phone);
    await phone.close();
  });

  it('works with the keyboard alone, with a visible focus', { timeout: 90_000 }, async () => {
    await page.goto('/');
    await heading('Knowledge base').waitFor();
    const focused = () =>
      page.evaluate(() => {
        const el = (globalThis as unknown as PageGlobals).document.activeElement;
        return { tag: el?.tagName ?? '', text: (el?.textContent ?? '').trim(), label: el?.getAttribute('aria-label') ?? el?.id ?? '' };
      });

    // The first Tab reaches the skip link.
    await page.keyboard.press('Tab');
    expect(await focused(), JSON.stringify(await focused())).toMatchObject({ tag: 'A', text: 'Skip to content' });

    // Tab to the "Conflicts" link and follow it.
    for (let i = 0; i < 20 && (await focused()).text !== 'Conflicts'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ tag: 'A', text: 'Conflicts' });
    await page.keyboard.press('Enter');
    await heading('Conflicts').waitFor();

    // Back to the knowledge base: type a search and Tab on to the button, then activate it.
    await page.goBack();
    await heading('Knowledge base').waitFor();
    await page.locator('body').focus();
    for (let i = 0; i < 40 && (await focused()).label !== 'f-q'; i++) await page.keyboard.press('Tab');
    expect((await focused()).label).toBe('f-q');
    await page.keyboard.type('webhook');
    // (Date fields take one Tab per part: month, day, year.)
    for (let i = 0; i < 20 && (await focused()).text !== 'Apply filters'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ tag: 'BUTTON', text: 'Apply filters' });
    const outline = await page.evaluate(() => {
      const w = globalThis as unknown as PageGlobals;
      return w.getComputedStyle(w.document.activeElement!).outlineStyle;
    });
    expect(outline).toBe('solid');
    await shot('keyboard-focus');
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('webhook');
    await page.getByText('1 fact', { exact: true }).waitFor();
    await page.getByText('Webhook retries use exponential backoff').waitFor();
  });

  it('lets an owner remove the teammate, whose open dashboard then says the membership ended', { timeout: 90_000 }, async () => {
    const ownerContext = await browser.newContext({ baseURL: server.baseUrl, viewport: LAPTOP });
    ownerContext.setDefaultTimeout(10_000);
    const ownerPage = await ownerContext.newPage();
    watch(ownerPage);
    try {
      await ownerPage.goto('/members');
      await ownerPage.getByLabel('Member token').fill(owner.owner_token);
      await ownerPage.getByRole('button', { name: 'Sign in' }).click();
      await heading('Members and invites', ownerPage).waitFor();
      const row = ownerPage.locator('tr[data-member-id]').filter({ hasText: 'Dana' });
      await row.getByRole('button', { name: 'Remove Dana from the workspace' }).click();
      await row.getByText(/tokens? and dashboard sessions stop working within seconds.*Their facts are kept/).waitFor();
      await row.getByRole('button', { name: 'Confirm remove' }).click();
      await ownerPage.getByText('Dana was removed: their tokens no longer work; their facts are kept.').waitFor();
      await row.getByText('Removed').waitFor();
      expect(await row.getByRole('button').count()).toBe(0);
      await shot('member-removed', ownerPage);
    } finally {
      await ownerContext.close();
    }

    // Dana's dashboard is still open: its next request ends the session with the server's reason.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members', exact: true }).click();
    await heading('Sign in to Engram').waitFor();
    await page.getByText(/^Your membership of the workspace "Checkout team" ended at .*The facts you committed stay in the workspace\./).waitFor();
  });

  it('reported no script errors and no Content-Security-Policy violations', () => {
    expect(pageProblems).toEqual([]);
  });
});
