/**
 * The conflict queue MCP App (SPEC §2) in a real browser: engram_conflicts points at the
 * `ui://engram/conflicts` resource, the server serves the built App, and a minimal host page
 * (apps/conflict-app/host, the SDK's AppBridge) renders it in headless Chromium with the result of
 * a real engram_conflicts call. The App settles a conflict that two agents' commits raised with
 * "Keep B"; its call goes through the bridge and the test's MCP client to the server, and
 * engram_query shows fact A closed. axe-core checks the App in light and dark themes; screenshots
 * of both go to test/artifacts/screenshots. The App's size is capped.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { CommitOutput, ConflictItem, ConflictsOutput, QueryOutput } from '@engram/core';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { build } from 'esbuild';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConflictApp, CONFLICT_APP_FILE, CONFLICT_APP_ROOT, conflictAppSize, conflictAppStaleReason } from '../../infra/conflict-app-build.ts';
import { provisionOverHttp, startTestServer } from '../support/mcp.ts';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const CHROMIUM = process.env.ENGRAM_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOTS = path.join(import.meta.dirname, '../artifacts/screenshots');
const APP_URI = 'ui://engram/conflicts';
/** The built App, gzip: measured at 109.5 KiB (zod and the MCP client in the SDK's App class are most of it). */
const GZIP_BUDGET = 120 * 1024;

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe('conflict queue MCP App in headless Chromium', () => {
  let server: Server;
  let client: Client;
  let browser: Browser;
  let page: Page;
  let conflict: ConflictItem;
  let conflictsResult: CallToolResult;
  const facts = {} as { a: CommitOutput; b: CommitOutput };
  const pageProblems: string[] = [];

  const call = async <T>(name: string, args: Record<string, unknown>): Promise<T> => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    return result.structuredContent as T;
  };
  const appFrame = (): Frame => page.frames().find((f) => f !== page.mainFrame())!;
  const accessibilityProblems = async (frame: Frame): Promise<string[]> => {
    await frame.evaluate(AXE_SOURCE);
    return frame.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run(options: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
      const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
      return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    });
  };
  const themed = async (theme: 'light' | 'dark', name = `mcp-app-conflicts-${theme}`) => {
    await page.evaluate((t) => (globalThis as unknown as { setTheme(t: string): Promise<void> }).setTheme(t), theme);
    await expect.poll(() => appFrame().evaluate(() => (globalThis as unknown as { document: { documentElement: { dataset: { theme?: string } } } }).document.documentElement.dataset.theme)).toBe(theme);
    await page.locator('iframe').screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
    expect(await accessibilityProblems(appFrame()), `${theme} theme: WCAG 2.1 AA (axe-core)`).toEqual([]);
  };

  beforeAll(async () => {
    if (conflictAppStaleReason()) await buildConflictApp();
    if (!fs.existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: run infra/ensure-chromium.sh, or set ENGRAM_CHROMIUM to a Chromium binary.`);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startTestServer({ inProcessWorker: true });
    const owner = await provisionOverHttp(server.baseUrl, { name: 'Checkout team', owner_display_name: 'Priya' });
    client = new Client({ name: 'engram-app-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${owner.owner_token}` } } }));

    facts.a = await call<CommitOutput>('engram_commit', { content: 'The auth service rate limit is 1000 req/s per IP', scope: 'auth', confidence: 0.9, agent_id: 'agent-a' });
    facts.b = await call<CommitOutput>('engram_commit', { content: 'The auth service rate limit is 2000 req/s per IP', scope: 'auth', confidence: 0.9, agent_id: 'agent-b' });
    // Detection runs in the background: wait on the queue, not on a clock.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await fetch(`${server.baseUrl}/api/v1/detection/status`, { headers: { authorization: `Bearer ${owner.owner_token}` } });
      const status = (await res.json()) as { pending_jobs: number; running_jobs: number; runs_total: number };
      if (status.pending_jobs === 0 && status.running_jobs === 0 && status.runs_total > 0) break;
      if (Date.now() > deadline) throw new Error(`detection did not finish: ${JSON.stringify(status)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    conflictsResult = await client.callTool({ name: 'engram_conflicts', arguments: {} });
    const open = conflictsResult.structuredContent as ConflictsOutput;
    expect(open.total, JSON.stringify(open)).toBe(1);
    conflict = open.groups[0]!.conflicts[0]!;
    expect(conflict.facts.map((f) => f.fact_id)).toEqual([facts.a.fact_id, facts.b.fact_id]);

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    const context = await browser.newContext({ viewport: { width: 900, height: 700 } });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('pageerror', (error) => pageProblems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') pageProblems.push(message.text());
    });
    // The host's side of the bridge: the App's tools/call, forwarded by a real MCP client.
    await page.exposeFunction('hostCallTool', (params: { name: string; arguments?: Record<string, unknown> }) => client.callTool(params));
    const host = await build({ entryPoints: [path.join(CONFLICT_APP_ROOT, 'host/host.ts')], bundle: true, format: 'iife', platform: 'browser', write: false, logLevel: 'warning' });
    await page.setContent('<!doctype html><html lang="en"><head><title>Test host</title><style>iframe{border:0;width:100%;min-height:400px}</style></head><body></body></html>');
    await page.addScriptTag({ content: host.outputFiles[0]!.text });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await client?.close();
    await server?.stop();
  });

  it('is capped in size', () => {
    const size = conflictAppSize();
    process.stdout.write(`[conflict-app] ${(size.raw / 1024).toFixed(1)} KiB raw, ${(size.gzip / 1024).toFixed(1)} KiB gzip, ${(size.brotli / 1024).toFixed(1)} KiB brotli\n`);
    expect(size.gzip).toBeLessThan(GZIP_BUDGET);
  });

  it('points engram_conflicts at the App and serves it as one self-contained page', async () => {
    const { tools } = await client.listTools();
    const conflictsTool = tools.find((t) => t.name === 'engram_conflicts')!;
    expect(conflictsTool._meta).toMatchObject({ ui: { resourceUri: APP_URI }, 'ui/resourceUri': APP_URI });
    // The text result, for clients without Apps, is unchanged.
    expect(JSON.parse((conflictsResult.content[0] as { text: string }).text)).toEqual(conflictsResult.structuredContent);

    const { resources } = await client.listResources();
    expect(resources.find((r) => r.uri === APP_URI)).toMatchObject({ mimeType: 'text/html;profile=mcp-app' });
    const read = await client.readResource({ uri: APP_URI });
    const content = read.contents[0] as { mimeType: string; text: string; _meta?: Record<string, unknown> };
    expect(content.mimeType).toBe('text/html;profile=mcp-app');
    expect(content._meta).toMatchObject({ ui: { csp: { connectDomains: [], resourceDomains: [] } } });
    expect(content.text).toBe(fs.readFileSync(CONFLICT_APP_FILE, 'utf8'));
    expect(content.text).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-/);
    // No remote assets: nothing is loaded from a URL.
    expect(content.text).not.toMatch(/<(?:script|link|img)\b[^>]*\b(?:src|href)=/i);
  });

  it('shows the conflict side by side and settles it with Keep B through the host bridge', async () => {
    const html = ((await client.readResource({ uri: APP_URI })).contents[0] as { text: string }).text;
    await page.evaluate(
      (options) => (globalThis as unknown as { mountApp(o: unknown): Promise<void> }).mountApp(options),
      { html, toolInput: {}, toolResult: conflictsResult, theme: 'light' },
    );
    const app = page.frameLocator('iframe');
    const card = app.getByRole('article', { name: conflict.question });
    await expect.poll(() => card.count()).toBe(1);
    await expect.poll(() => app.getByRole('status').first().textContent()).toBe('1 open conflict, most severe first.');
    const text = (await card.textContent())!;
    // Each fact names its member beside the agent id (card and timeline).
    for (const expected of ['Fact A', 'Fact B', 'agent-a', 'agent-b', 'MemberPriya', 'Priya, agent-a', 'Priya, agent-b', 'The auth service rate limit is 1000 req/s per IP', 'The auth service rate limit is 2000 req/s per IP', 'Belief timeline', conflict.kind.replaceAll('_', ' ')]) {
      expect(text).toContain(expected);
    }
    // Committed times as people read them, e.g. "Nov 22, 2026, 2:20 PM" (the host says UTC).
    const committed = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(facts.b.committed_at!));
    expect(text).toContain(committed);
    await themed('light');
    await themed('dark');

    // Keyboard: the buttons are reachable and operable without a pointer.
    const keepB = card.getByRole('button', { name: 'Keep B' });
    await keepB.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => card.locator('.outcome').textContent()).toBe('Settled: closed Fact A.');
    await themed('light', 'mcp-app-conflicts-settled-light');
    expect(await keepB.isDisabled()).toBe(true);

    const after = await call<ConflictsOutput>('engram_conflicts', {});
    expect(after.total).toBe(0);
    // Now: only B is current. With history: A is there, closed.
    const current = await call<QueryOutput>('engram_query', { topic: 'auth service rate limit' });
    expect(current.results.map((f) => f.fact_id)).toEqual([facts.b.fact_id]);
    expect(current.results[0]!.has_open_conflict).toBe(false);
    const history = await call<QueryOutput>('engram_query', { topic: 'auth service rate limit', include_history: true });
    const byId = new Map(history.results.map((f) => [f.fact_id, f]));
    expect(byId.get(facts.a.fact_id!)?.valid_until).toBeTruthy();
    expect(byId.get(facts.b.fact_id!)?.valid_until).toBeNull();
    expect(pageProblems).toEqual([]);
  });
});
