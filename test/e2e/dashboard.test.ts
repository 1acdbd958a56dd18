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
import { detectionJobs } from '@engram/db';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { eq } from 'drizzle-orm';
import { chromium, type Browser, type BrowserContext, type Page, type Route } from 'playwright-core';
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
  document: { activeElement: PageElement | null; cookie: string; documentElement: { scrollWidth: number; scrollHeight: number } };
  localStorage: { length: number };
  sessionStorage: { length: number };
  getComputedStyle(element: PageElement): { outlineStyle: string };
}

/** The slice of the DOM the in-page measurements below use. */
interface DomRect {
  top: number;
  bottom: number;
  left: number;
  right: number;
  width: number;
  height: number;
}
interface DomNode {
  textContent: string | null;
}
interface DomElement extends DomNode {
  scrollWidth: number;
  clientWidth: number;
  ownerDocument: {
    createTreeWalker(root: DomElement, whatToShow: number): { nextNode(): DomNode | null };
    createRange(): { setStart(node: DomNode, offset: number): void; setEnd(node: DomNode, offset: number): void; getClientRects(): ArrayLike<DomRect> };
    defaultView: { getComputedStyle(element: DomElement): Record<string, string> } | null;
    createElement(tag: 'canvas'): { getContext(kind: '2d'): { font: string; measureText(text: string): { width: number } } };
  };
  getBoundingClientRect(): DomRect;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  getAttribute(name: string): string | null;
}
/** One string Chromium drew on a canvas, with its horizontal extent in device pixels. */
interface CanvasText {
  text: string;
  left: number;
  right: number;
  canvasWidth: number;
}
/** A scope path ("backend/payments"): it may wrap at its separators, never inside a segment. */
const SCOPE_TEXT = /^[\w.-]+(\/[\w.-]+)+$/;

/**
 * In the page: each element's text with `⏎` where the browser broke it onto a new line, found from
 * the line boxes of its characters (a character that starts below the previous one's bottom).
 */
const renderedLines = (elements: DomElement[]): string[] =>
  elements.map((element) => {
    const doc = element.ownerDocument;
    const walker = doc.createTreeWalker(element, 4 /* NodeFilter.SHOW_TEXT */);
    const chars: { c: string; top: number; bottom: number }[] = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (let i = 0; i < text.length; i++) {
        const range = doc.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (rect && rect.width > 0) chars.push({ c: text[i]!, top: rect.top, bottom: rect.bottom });
      }
    }
    return chars.map((ch, i) => (i > 0 && ch.top >= chars[i - 1]!.bottom - 1 ? `⏎${ch.c}` : ch.c)).join('');
  });

/** In the page, before any script: records every string drawn on a canvas (to read the chart's labels). */
const recordCanvasText = () => {
  interface Context2D {
    canvas: { width: number };
    textAlign: string;
    measureText(text: string): { width: number };
    getTransform(): { a: number; e: number };
    fillText(text: string, x: number, y: number, maxWidth?: number): void;
  }
  const g = globalThis as unknown as { __canvasText: CanvasText[]; CanvasRenderingContext2D: { prototype: Context2D } };
  g.__canvasText = [];
  const proto = g.CanvasRenderingContext2D.prototype;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with the context as `this` below
  const fillText = proto.fillText;
  proto.fillText = function (this: Context2D, text: string, x: number, y: number, maxWidth?: number) {
    const width = this.measureText(String(text)).width;
    const start = this.textAlign === 'right' || this.textAlign === 'end' ? x - width : this.textAlign === 'center' ? x - width / 2 : x;
    const m = this.getTransform();
    g.__canvasText.push({ text: String(text), left: m.a * start + m.e, right: m.a * (start + width) + m.e, canvasWidth: this.canvas.width });
    if (maxWidth === undefined) fillText.call(this, text, x, y);
    else fillText.call(this, text, x, y, maxWidth);
  };
};

/**
 * The row labels of the timeline that are not drawn in full and inside the canvas: a label counts
 * when consecutive strings on the canvas (its lines) spell it exactly.
 */
function labelsNotDrawnInFull(labels: string[], drawn: CanvasText[]): string[] {
  const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
  return labels.filter((label) => {
    const want = squash(label);
    for (let i = 0; i < drawn.length; i++) {
      let text = '';
      for (let j = i; j < Math.min(drawn.length, i + 4); j++) {
        text = squash(`${text} ${drawn[j]!.text}`);
        if (text === want) return !drawn.slice(i, j + 1).every((d) => d.left >= -1 && d.right <= d.canvasWidth + 1);
        if (!want.startsWith(text)) break;
      }
    }
    return true;
  });
}

const engine = isolatedServerEngines().at(-1)!;
const WIDTHS = { laptop: LAPTOP, phone: PHONE } as const;
type Width = keyof typeof WIDTHS;

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
  /** The moment of the point-in-time view (datetime-local, browser time): both rate-limit facts were current. */
  let asOfLocal = '';
  /** Pages signed in as the owner, one per width (issue 14's checks). */
  const ownerPages = new Map<Width, Page>();

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

  /** A page at this width signed in as the owner (its own browser context, with clipboard access). */
  const ownerPage = async (width: Width): Promise<Page> => {
    const existing = ownerPages.get(width);
    if (existing) return existing;
    const ownerContext = await browser.newContext({ baseURL: server.baseUrl, viewport: WIDTHS[width], permissions: ['clipboard-read', 'clipboard-write'] });
    ownerContext.setDefaultTimeout(10_000);
    const p = await ownerContext.newPage();
    watch(p);
    await p.goto('/');
    await p.getByLabel('Member token').fill(owner.owner_token);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await heading('Knowledge base', p).waitFor();
    ownerPages.set(width, p);
    return p;
  };
  /** Visits a dashboard path and waits for its title. */
  const open = async (p: Page, pathname: string, title: string) => {
    await p.goto(pathname);
    await heading(title, p).waitFor();
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
    facts.low = await commit(agentA, 'The API rate limit is 240 requests per minute', 'api', 'agent-a');
    facts.high = await commit(agentB, 'The API rate limit is 900 requests per minute', 'api', 'agent-b');
    await detectionSettled();

    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Conflicts' }).click();
    await heading('Conflicts').waitFor();
    const card = page.locator('article[data-conflict-id]');
    await card.waitFor();
    expect(await card.count()).toBe(1);
    await expect.poll(() => card.getByRole('heading', { level: 3 }).textContent()).toBe('Which is the limit of api (maximum) now: 240 requests per minute or 900 requests per minute?');
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
    await note.fill('Checked the gateway config: the limit is 900 per minute.');
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
    const lowRow = page.locator(`tr[data-fact-id="${facts.low.fact_id}"]`);
    const highRow = page.locator(`tr[data-fact-id="${facts.high.fact_id}"]`);
    await lowRow.waitFor();
    await highRow.waitFor();
    asOfLocal = local;
    // Each fact is labelled with its state at that moment: the losing fact was current then and
    // closed later (not "Superseded", which it is only now); today's conflict state is not shown.
    expect(await lowRow.textContent()).toMatch(/Current then.*closed later/);
    expect(await highRow.textContent()).toContain('Current then');
    expect(await highRow.textContent()).not.toContain('closed later');
    for (const row of [lowRow, highRow]) {
      expect(await row.textContent()).not.toContain('Superseded');
      expect(await row.getByText('Open conflict').count()).toBe(0);
    }
    await shot('point-in-time');

    // Whether a conflict was open is answered for that moment too: open between its detection and
    // its resolution, not before, not after (and the page says "Conflict open then").
    const conflict = resolved.groups[0]!.conflicts[0]! as unknown as { detected_at: string };
    const openAt = async (instant: number) => {
      const listed = await rest<{ facts: { id: string; has_open_conflict: boolean }[] }>(`/api/v1/facts?as_of=${encodeURIComponent(new Date(instant).toISOString())}`);
      return listed.facts.filter((f) => f.id === facts.low.fact_id || f.id === facts.high.fact_id).map((f) => f.has_open_conflict);
    };
    const detectedAt = new Date(conflict.detected_at).getTime();
    expect(await openAt(detectedAt + 1)).toEqual([true, true]);
    expect(await openAt(closedAt - 1)).toEqual([true, true]);
    expect(await openAt(new Date(facts.high.committed_at!).getTime())).not.toContain(true);
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

  describe('issue 14: what a real browser showed at 1280×800 and 390×844', () => {
    const payments = [
      'The payments service retries a failed card capture three times before giving up',
      'The payments service settles merchant payouts every night at two in the morning',
    ];
    const cacheFact = 'The infrastructure cache evicts the least recently used entries when memory runs low';

    it('commits facts in nested scopes whose labels start alike', { timeout: 90_000 }, async () => {
      await commit(agentA, payments[0]!, 'backend/payments', 'agent-a');
      await commit(agentB, payments[1]!, 'backend/payments', 'agent-b');
      await commit(agentA, cacheFact, 'infra/cache', 'agent-a', { ttl_days: 5 });
      // Two agents disagree: an open conflict whose explanation names the facts' days.
      await commit(agentA, 'The checkout request timeout is 30 seconds', 'checkout/api', 'agent-a');
      await commit(agentB, 'The checkout request timeout is 45 seconds', 'checkout/api', 'agent-b');
      await detectionSettled();
    });

    for (const width of Object.keys(WIDTHS) as Width[]) {
      const viewport = WIDTHS[width];

      it(`dates conflict explanations as the cards date facts, not in ISO form (${width})`, { timeout: 60_000 }, async () => {
        const p = await ownerPage(width);
        await open(p, '/conflicts', 'Conflicts');
        await p.locator('.conflict-explanation').first().waitFor();
        const explanations = await p.locator('.conflict-explanation').allTextContents();
        for (const text of explanations) expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}/);
        expect(explanations.join(' ')).toMatch(/[A-Z][a-z]{2} \d{1,2}, \d{4}/);
        await shot(`conflict-explanations-${width}`, p);
      });

      it(`wraps scope tags only at their "/" separators (${width})`, { timeout: 60_000 }, async () => {
        const p = await ownerPage(width);
        const views = [
          { path: '/', title: 'Knowledge base', file: 'knowledge-base' },
          { path: '/expiring', title: 'Expiring facts', file: 'expiring' },
          { path: `/as-of?as_of=${encodeURIComponent(asOfLocal)}`, title: 'Point in time', file: 'point-in-time' },
        ];
        const seen = new Set<string>();
        for (const view of views) {
          await open(p, view.path, view.title);
          await p.locator('main table tbody tr').first().waitFor();
          const tags = (await p.locator('main code').evaluateAll(renderedLines)).filter((t) => SCOPE_TEXT.test(t.replace(/⏎/g, '')));
          for (const tag of tags) {
            seen.add(tag.replace(/⏎/g, ''));
            // Every line but the last ends with a separator: no break inside a word.
            expect(tag.split('⏎').slice(0, -1).every((line) => line.endsWith('/')), `${view.title}: scope tag broken as "${tag}"`).toBe(true);
          }
          await shot(`scope-tags-${view.file}-${width}`, p);
        }
        expect([...seen]).toEqual(expect.arrayContaining(['backend/payments', 'infra/cache', 'payments/webhooks']));
      });

      it(`draws every timeline label in full, so rows can be told apart (${width})`, { timeout: 60_000 }, async () => {
        const timeline = await rest<{ facts: { lineage_id: string; content: string; valid_from: string }[] }>('/api/v1/timeline');
        const latest = new Map<string, { content: string; valid_from: string }>();
        for (const f of timeline.facts) if ((latest.get(f.lineage_id)?.valid_from ?? '') <= f.valid_from) latest.set(f.lineage_id, f);
        const labels = [...latest.values()].map((f) => f.content);
        expect(labels).toEqual(expect.arrayContaining(payments));

        const p = await (await ownerPage(width)).context().newPage();
        watch(p);
        try {
          await p.addInitScript(recordCanvasText);
          await open(p, '/timeline', 'Timeline');
          await p.locator('.gantt canvas').first().waitFor();
          const drawn = () => p.evaluate(() => (globalThis as unknown as { __canvasText: CanvasText[] }).__canvasText);
          await expect.poll(async () => labelsNotDrawnInFull(labels, await drawn()), { timeout: 10_000 }).toEqual([]);
          // No label is cut short with an ellipsis.
          expect((await drawn()).filter((d) => d.text.includes('…')).map((d) => d.text)).toEqual([]);
          await shot(`timeline-labels-${width}`, p);
        } finally {
          await p.close();
        }
      });

      it(`shows facts on the first screen, in compact cards on a phone (${width})`, { timeout: 60_000 }, async () => {
        const p = await ownerPage(width);
        const filters = p.getByRole('button', { name: /^Filters/ });
        await open(p, '/', 'Knowledge base');
        const first = p.locator('main tr[data-fact-id]').first();
        await first.waitFor();
        const box = (await first.boundingBox())!;
        // Each fact's height, and how much of it is not the fact's text (its label/value pairs).
        const cards = await p.locator('main tr[data-fact-id]').evaluateAll((rows: DomElement[]) =>
          rows.map((r) => {
            const text = r.querySelectorAll('td')[0]!.getBoundingClientRect().height;
            return { height: Math.round(r.getBoundingClientRect().height), details: Math.round(r.getBoundingClientRect().height - text) };
          }),
        );
        process.stdout.write(`[dashboard] ${width}: first fact at ${Math.round(box.y)} px; fact rows ${cards.map((c) => `${c.height} (${c.details} besides the text)`).join(', ')} px\n`);
        // The first fact starts and ends within the first screen.
        expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
        if (width === 'phone') {
          // The filters wait behind a disclosure, which says how many are active.
          expect(await filters.getAttribute('aria-expanded')).toBe('false');
          expect(await p.getByLabel('Search').isVisible()).toBe(false);
          await shot(`knowledge-first-screen-${width}`, p);
          // Compact cards: scope, agent, type, date and confidence take two lines of pairs, not five.
          expect(Math.max(...cards.map((c) => c.details))).toBeLessThan(120);
          await open(p, '/?scope=backend&agent_id=agent-a', 'Knowledge base');
          await p.locator('main tr[data-fact-id]').first().waitFor();
          expect(await filters.textContent()).toMatch(/Filters.*2 active/);
          await filters.click();
          expect(await filters.getAttribute('aria-expanded')).toBe('true');
          await p.getByLabel('Search').waitFor({ state: 'visible' });
          expect(await p.getByLabel('Agent').inputValue()).toBe('agent-a');
          await shot(`knowledge-filters-open-${width}`, p);
        } else {
          // Wide screens show the filters as they are, no disclosure.
          expect(await filters.isVisible()).toBe(false);
          expect(await p.getByLabel('Search').isVisible()).toBe(true);
          await shot(`knowledge-first-screen-${width}`, p);
        }
      });

      it(`fits the detective's runs table: nothing clipped, compact on a phone (${width})`, { timeout: 60_000 }, async () => {
        const p = await ownerPage(width);
        await open(p, '/detective', 'Detective');
        const runs = p.locator('main table tbody tr');
        await runs.first().waitFor();
        const count = await runs.count();
        const wrap = p.getByRole('region', { name: /Recent detection runs/ });
        const fit = await wrap.evaluate((el: DomElement) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
        const headers = await p.locator('main table thead th').evaluateAll((ths: DomElement[]) =>
          ths.filter((th) => th.getBoundingClientRect().width > 1 && th.scrollWidth > th.clientWidth).map((th) => th.textContent),
        );
        const rows = await runs.evaluateAll((trs: DomElement[]) => trs.map((tr) => tr.getBoundingClientRect().height));
        const pageHeight = await p.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.scrollHeight);
        process.stdout.write(`[dashboard] ${width}: detective ${pageHeight} px tall for ${count} runs (rows ${rows.map(Math.round).join(', ')} px); table ${fit.scroll}/${fit.client} px\n`);
        await shot(`detective-${width}`, p);
        expect(fit.scroll, 'the runs table scrolls sideways').toBeLessThanOrEqual(fit.client);
        expect(headers, 'clipped column headers').toEqual([]);
        // Full column names stay available where headers are shortened.
        expect(await p.locator('main table thead abbr[title]').count()).toBeGreaterThan(0);
        if (width === 'phone') {
          // Compact cards (they were 419 px a run, the view over 3,000 px for five runs).
          expect(Math.max(...rows)).toBeLessThan(150);
          expect(pageHeight).toBeLessThan(1000 + 150 * count);
        }
      });

      it(`shows the invite role options in full (${width})`, async () => {
        const p = await ownerPage(width);
        await open(p, '/members', 'Members and invites');
        const select = p.getByLabel('Role', { exact: true });
        // Each option's text against the room the closed select has for it (its content box less the arrow).
        const fit = await select.evaluate((el: DomElement) => {
          const style = el.ownerDocument.defaultView!.getComputedStyle(el);
          const ctx = el.ownerDocument.createElement('canvas').getContext('2d');
          ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
          const room = el.clientWidth - parseFloat(style.paddingLeft!) - parseFloat(style.paddingRight!) - 20;
          return [...(el.querySelectorAll('option') as unknown as DomElement[])].map((o) => ({ text: o.textContent, width: Math.ceil(ctx.measureText(o.textContent ?? '').width), room }));
        });
        expect(fit.filter((o) => o.width > o.room), JSON.stringify(fit)).toEqual([]);
        // Configuration lines on this page wrap inside their box.
        expect(await p.locator('main pre').evaluateAll((pres: DomElement[]) => pres.filter((pre) => pre.scrollWidth > pre.clientWidth).length)).toBe(0);
        await shot(`members-role-${width}`, p);
      });

      it(`labels point-in-time facts with their state at that moment (${width})`, async () => {
        const p = await ownerPage(width);
        await open(p, `/as-of?as_of=${encodeURIComponent(asOfLocal)}`, 'Point in time');
        const lowRow = p.locator(`tr[data-fact-id="${facts.low.fact_id}"]`);
        await lowRow.waitFor();
        expect(await lowRow.textContent()).toMatch(/Current then.*closed later/);
        expect(await lowRow.textContent()).not.toContain('Superseded');
        expect(await p.locator(`tr[data-fact-id="${facts.high.fact_id}"]`).textContent()).not.toContain('closed later');
        // The moment stays on screen on a phone; the other filters wait behind the disclosure.
        expect(await p.getByLabel('Show facts as of').isVisible()).toBe(true);
        await shot(`point-in-time-${width}`, p);
      });

      it(`joins with copy buttons for the token and each configuration, nothing cut off (${width})`, { timeout: 60_000 }, async () => {
        const created = await fetch(`${server.baseUrl}/api/v1/invites`, {
          method: 'POST',
          headers: { authorization: `Bearer ${owner.owner_token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ max_uses: 1, expires_in_days: 1 }),
        });
        expect(created.status).toBe(201);
        const { invite_key } = (await created.json()) as { invite_key: string };
        const joinContext = await browser.newContext({ baseURL: server.baseUrl, viewport, permissions: ['clipboard-read', 'clipboard-write'] });
        joinContext.setDefaultTimeout(10_000);
        const p = await joinContext.newPage();
        watch(p);
        const clipboard = () => p.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());
        try {
          await p.goto(`/join?key=${encodeURIComponent(invite_key)}`);
          await p.getByLabel('Your name').fill(`Eve on a ${width}`);
          await p.getByRole('button', { name: 'Join' }).click();
          await heading('Welcome to Checkout team', p).waitFor();
          const token = await p.getByLabel('Your token').inputValue();

          await p.getByRole('button', { name: 'Copy token' }).click();
          await p.getByRole('status').filter({ hasText: 'Copied' }).first().waitFor();
          expect(await clipboard()).toBe(token);

          await p.getByText('Connect your coding agent').click();
          const blocks = p.locator('main figure');
          await blocks.first().waitFor();
          expect(await blocks.count()).toBeGreaterThanOrEqual(4);
          for (let i = 0; i < (await blocks.count()); i++) {
            const block = blocks.nth(i);
            const text = await block.locator('pre').textContent();
            await block.getByRole('button', { name: /^Copy/ }).click();
            await expect.poll(clipboard).toBe(text);
            expect(text).toContain(token);
          }
          // No configuration line runs out of its box (hidden behind a scroll or the card's edge).
          const overflowing = await p.locator('main pre').evaluateAll((pres: DomElement[]) =>
            pres.filter((pre) => pre.scrollWidth > pre.clientWidth + 1).map((pre) => (pre.textContent ?? '').slice(0, 40)),
          );
          await shot(`join-welcome-${width}`, p);
          expect(overflowing, 'configuration cut off').toEqual([]);
          expect(await p.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
        } finally {
          await joinContext.close();
        }
      });
    }
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
    // The Members view loads several things at once, and the first 401 clears the cookie: a load
    // that leaves after that is answered "not signed in", which must not replace the reason, and
    // its answer may be read first. Hold the view's loads, have /members answered by the server,
    // then give the page the others as the server answers a request without the cookie, and only
    // then the /members answer with the reason (the order a slow server can produce).
    const held = new Map<string, Route>();
    let allHeld = () => {};
    const holding = new Promise<void>((resolve) => (allHeld = resolve));
    await page.route(/\/api\/v1\//, async (route) => {
      if (held.has('/api/v1/members') && held.has('/api/v1/tokens')) return route.continue();
      held.set(new URL(route.request().url()).pathname, route);
      if (held.has('/api/v1/members') && held.has('/api/v1/tokens')) allHeld();
    });
    try {
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members', exact: true }).click();
      await holding;
      const first = held.get('/api/v1/members')!;
      held.delete('/api/v1/members');
      const answered = await first.fetch();
      expect(answered.status()).toBe(401);
      const late = await Promise.all(
        [...held].map(async ([pathname, route]) => {
          const response = await fetch(`${server.baseUrl}${pathname}`, { headers: { accept: 'application/json' } });
          return { route, status: response.status, body: await response.text() };
        }),
      );
      expect(late.map((l) => l.status)).toEqual(late.map(() => 401));
      const lateRead = late.map((l) => page.waitForEvent('requestfinished', (request) => request === l.route.request()));
      await Promise.all(late.map((l) => l.route.fulfill({ status: l.status, contentType: 'application/json', body: l.body })));
      await Promise.all(lateRead);
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
      await first.fulfill({ response: answered });
      await heading('Sign in to Engram').waitFor();
      await page.getByText(/^Your membership of the workspace "Checkout team" ended at .*The facts you committed stay in the workspace\./).waitFor();
      // Let the page finish with the late answers before looking.
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
      expect(await page.getByText(/Your session has ended/).count()).toBe(0);
    } finally {
      await page.unroute(/\/api\/v1\//);
    }
  });

  it('shows failed detection work on the detective view, and lets the owner requeue it (issue 19)', { timeout: 90_000 }, async () => {
    const p = await ownerPage('laptop');
    const fact = await commit(agentA, 'The checkout service times out after 30 seconds', 'checkout', 'agent-a');
    await detectionSettled();
    // What an outage longer than every retry left behind before retries outlasted outages.
    await server.db.db
      .update(detectionJobs)
      .set({ status: 'failed', attempts: 5, lastError: 'database fault (timeout): The database is too slow to answer right now.' })
      .where(eq(detectionJobs.triggerFactId, fact.fact_id!));
    await open(p, '/detective', 'Detective');
    const attention = p.getByRole('region', { name: 'Detection needs attention' });
    await attention.getByText(/1 detection job failed after every retry/).waitFor();
    await attention.getByText(`engram detection requeue --workspace ${owner.engram_id}`).waitFor();
    await shot('detective-failed-jobs', p);

    await attention.getByRole('button', { name: 'Requeue failed jobs' }).click();
    await p.getByRole('status').filter({ hasText: 'Requeued 1 detection job' }).waitFor();
    await detectionSettled();
    expect(await rest<{ failed_jobs: number; stuck_jobs: number }>('/api/v1/detection/status')).toMatchObject({ failed_jobs: 0, stuck_jobs: 0 });
    await p.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => attention.count()).toBe(0);
  });

  it('lists a detector settlement under Resolved with its note, and undoes it: the closed fact is current again', { timeout: 90_000 }, async () => {
    const p = await ownerPage('laptop');
    // The later fact names the value it replaces: the detector settles the pair itself, asking nobody.
    const older = await commit(agentA, 'The image cache TTL is 300 seconds', 'media', 'agent-a');
    const newer = await commit(agentB, 'Raised the image cache TTL from 300 seconds to 900 seconds', 'media', 'agent-b');
    await detectionSettled();
    await open(p, '/', 'Knowledge base');
    await p.locator(`tr[data-fact-id="${newer.fact_id}"]`).waitFor();
    expect(await p.locator(`tr[data-fact-id="${older.fact_id}"]`).count()).toBe(0);

    await open(p, '/conflicts?status=resolved', 'Conflicts');
    const card = p.locator('article[data-conflict-id]').filter({ has: p.locator(`li[data-fact-id="${older.fact_id}"]`) });
    await card.waitFor();
    await card.getByText('Probable update', { exact: true }).waitFor();
    expect(await card.locator(`li[data-fact-id="${newer.fact_id}"]`).textContent()).toContain('Kept');
    expect(await card.locator(`li[data-fact-id="${older.fact_id}"]`).textContent()).toMatch(/Closed /);
    const note = card.locator('p.resolution');
    // The detector's reason, said once.
    expect(await note.textContent()).toBe('Settled by the detector: the later fact names this value as the one it replaces. Keep another fact, or undo, to overrule it.');
    await shot('conflicts-settled-by-detector', p);

    await card.getByRole('button', { name: 'Undo: keep both…' }).click();
    await p.getByRole('heading', { level: 4, name: 'Undo the detector’s settlement: keep both facts' }).waitFor();
    await p.getByRole('textbox', { name: 'Resolution note', exact: true }).fill('Both hold: 300 s for thumbnails, 900 s for originals.');
    await p.getByRole('button', { name: 'Confirm dismissal' }).click();
    await p.getByRole('status').filter({ hasText: 'Conflict dismissed. It will not be raised again.' }).waitFor();

    // The closed fact is current again, next to the later one, for people and agents alike.
    await open(p, '/', 'Knowledge base');
    for (const f of [older, newer]) await p.locator(`tr[data-fact-id="${f.fact_id}"]`).waitFor();
    const query = await mustCall<QueryOutput>(agentA, 'engram_query', { topic: 'image cache TTL seconds' });
    expect(query.results.map((r) => r.fact_id)).toEqual(expect.arrayContaining([older.fact_id, newer.fact_id]));
    await open(p, '/conflicts?status=dismissed', 'Conflicts');
    await p.locator('article[data-conflict-id]').filter({ has: p.locator(`li[data-fact-id="${older.fact_id}"]`) }).waitFor();
  });

  it('shows an open probable update with its kind label, retiring nothing until someone answers', { timeout: 90_000 }, async () => {
    const p = await ownerPage('laptop');
    // A change announced without naming the old value: asked about, not settled.
    const earlier = await commit(agentA, 'The export worker concurrency is 4', 'exports', 'agent-a');
    const later = await commit(agentB, 'Bumped the export worker concurrency to 8', 'exports', 'agent-b');
    await detectionSettled();
    await open(p, '/conflicts?kind=probable_update', 'Conflicts');
    const card = p.locator('article[data-conflict-id]').filter({ has: p.locator(`li[data-fact-id="${earlier.fact_id}"]`) });
    await card.waitFor();
    await card.getByText('Probable update', { exact: true }).waitFor();
    expect(await card.getByRole('heading', { level: 3 }).textContent()).toBe('Probable update: is the concurrency of export still 4, or is 8 now, as a later fact says?');
    // Both facts are still current: either can be kept, and neither is marked closed.
    expect(await card.getByRole('button', { name: /^Keep this one/ }).count()).toBe(2);
    for (const f of [earlier, later]) expect(await card.locator(`li[data-fact-id="${f.fact_id}"]`).textContent()).not.toMatch(/Closed /);
    await shot('conflicts-probable-update', p);
    await open(p, '/', 'Knowledge base');
    for (const f of [earlier, later]) await p.locator(`tr[data-fact-id="${f.fact_id}"]`).waitFor();
  });

  it('reported no script errors and no Content-Security-Policy violations', () => {
    expect(pageProblems).toEqual([]);
  });
});
