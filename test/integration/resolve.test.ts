/**
 * Settling conflicts: engram_resolve over MCP and POST /api/v1/conflicts/:id/resolve, on each
 * engine. Conflicts are raised by the real deterministic detector over committed facts; every
 * engine gets a database of its own (the detector is run directly, and no other test file's worker
 * may touch these workspaces' jobs).
 */
import { randomUUID } from 'node:crypto';
import { provisionWorkspace, runDeterministicPass, silentLogger, type ConflictItem, type ProvisionedWorkspace } from '@engram/core';
import { agents, conflicts, detectionFeedback, facts } from '@engram/db';
import { and, eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { appSuite, TEST_SECRET } from '../support/app.ts';
import { isolatedTestDatabases } from '../support/databases.ts';
import { eventually } from '../support/poll.ts';
import { callTool, connectMcp, isolatedServerEngines, mustCall, provisionOverHttp, serverSuite } from '../support/mcp.ts';

const HOST = 'localhost:8080';

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { text: string }[];
}

interface Resolved {
  conflict_id: string;
  status: string;
  resolution_type: string;
  winning_fact_id: string | null;
  closed_fact_ids: string[];
  already_resolved: boolean;
  resolution: string;
  resolved_at: string;
  settled_conflicts: number;
  note: string;
}

describe.each(isolatedTestDatabases())('resolving conflicts on $name', (engine) => {
  const suite = appSuite(engine);

  const call = (token: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    suite.app.inject({ method, url, headers: { host: HOST, authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

  const tool = async (token: string, name: string, args: Record<string, unknown>): Promise<ToolResult> => {
    const res = await suite.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { host: HOST, authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    });
    const body = res.json<{ result?: ToolResult; error?: { message: string } }>();
    if (!body.result) return { isError: true, content: [{ text: body.error?.message ?? res.body }] };
    return body.result;
  };
  const resolve = (token: string, args: Record<string, unknown>) => tool(token, 'engram_resolve', args);
  const resolved = (result: ToolResult): Resolved => {
    if (result.isError) throw new Error(`engram_resolve failed: ${result.content[0]?.text}`);
    return result.structuredContent as unknown as Resolved;
  };
  const errorText = (result: ToolResult) => {
    expect(result.isError, JSON.stringify(result.structuredContent)).toBe(true);
    return result.content.map((c) => c.text).join('\n');
  };

  interface Team extends ProvisionedWorkspace {
    member: { token: string; member_id: string };
    reader: { token: string; member_id: string };
  }

  async function team(): Promise<Team> {
    const created = await provisionWorkspace(suite.handle.db, TEST_SECRET, { name: 'Resolve', invite: { max_uses: 10 } });
    const joinAs = async (role: 'member' | 'reader') => {
      const invite = (await call(created.ownerToken, 'POST', '/api/v1/invites', { role })).json<{ invite_key: string }>();
      const joined = await suite.app.inject({ method: 'POST', url: '/api/v1/join', headers: { host: HOST }, payload: { invite_key: invite.invite_key } });
      return joined.json<{ token: string; member_id: string }>();
    };
    return { ...created, member: await joinAs('member'), reader: await joinAs('reader') };
  }

  /** Commits facts (one agent each unless given) and runs the detector over them. */
  async function commitAndDetect(t: Team, items: { content: string; scope: string; agent?: string }[], token = t.ownerToken): Promise<string[]> {
    const ids: string[] = [];
    for (const [i, item] of items.entries()) {
      const out = await tool(token, 'engram_commit', { content: item.content, scope: item.scope, confidence: 1, agent_id: item.agent ?? `agent-${i}` });
      ids.push(String(out.structuredContent?.fact_id));
    }
    await detect(t, ids);
    return ids;
  }
  const detect = (t: Team, ids: string[]) =>
    runDeterministicPass({ db: suite.handle.db, log: silentLogger }, { runId: randomUUID(), workspaceId: t.workspaceId, triggerFactIds: ids });

  async function conflictsOf(t: Team, status = 'all'): Promise<ConflictItem[]> {
    const res = await call(t.ownerToken, 'GET', `/api/v1/conflicts?status=${status}`);
    return res.json<{ groups: { conflicts: ConflictItem[] }[] }>().groups.flatMap((g) => g.conflicts);
  }
  /** The one conflict holding exactly these facts. */
  async function conflictWith(t: Team, ids: string[]): Promise<ConflictItem> {
    const found = (await conflictsOf(t)).filter((c) => [...c.facts.map((f) => f.fact_id)].sort().join() === [...ids].sort().join());
    expect(found, `a conflict of ${ids.join(', ')}`).toHaveLength(1);
    return found[0]!;
  }
  const factRows = (ids: string[]) => suite.handle.db.select().from(facts).where(inArray(facts.id, ids));
  const windows = async (ids: string[]) =>
    Object.fromEntries((await factRows(ids)).map((f) => [f.id, { open: f.validUntil === null, retiredBy: f.retiredBy, retiredFor: f.retiredForFactId }]));
  const feedbackOf = (conflictId: string) => suite.handle.db.select().from(detectionFeedback).where(eq(detectionFeedback.conflictId, conflictId));
  const conflictRow = async (id: string) => (await suite.handle.db.select().from(conflicts).where(eq(conflicts.id, id)))[0]!;

  const TIMEOUTS = [
    { content: 'The billing service timeout is 30 seconds', scope: 'billing' },
    { content: 'The billing service timeout is 60 seconds', scope: 'billing' },
    { content: 'The billing service timeout is 90 seconds', scope: 'billing' },
  ];

  it('keeps a winner: closes the other fact in one step, records the outcome and true-positive feedback, and audits the call', async () => {
    const t = await team();
    const [a, b] = await commitAndDetect(t, TIMEOUTS.slice(0, 2));
    const conflict = await conflictWith(t, [a!, b!]);
    expect(conflict.status).toBe('open');

    const out = resolved(await resolve(t.member.token, { conflict_id: conflict.conflict_id, resolution_type: 'winner', winning_claim_id: b, resolution: 'Checked config/billing.yaml: 60 s.' }));
    expect(out).toMatchObject({
      conflict_id: conflict.conflict_id,
      status: 'resolved',
      resolution_type: 'winner',
      winning_fact_id: b,
      closed_fact_ids: [a],
      already_resolved: false,
      resolution: 'Checked config/billing.yaml: 60 s.',
      settled_conflicts: 0,
    });
    expect(out.note).toContain(`Kept fact ${b}`);

    expect(await windows([a!, b!])).toEqual({
      [a!]: { open: false, retiredBy: 'resolution', retiredFor: b },
      [b!]: { open: true, retiredBy: null, retiredFor: null },
    });
    const row = await conflictRow(conflict.conflict_id);
    expect(row).toMatchObject({ status: 'resolved', resolutionType: 'winner', winningFactId: b, resolvedByMemberId: t.member.member_id });
    expect(row.resolvedAt?.toISOString()).toBe(out.resolved_at);
    expect((await factRows([a!]))[0]!.validUntil?.toISOString()).toBe(out.resolved_at);
    expect((await feedbackOf(conflict.conflict_id)).map((f) => [f.feedback, f.factSetKey, f.memberId])).toEqual([
      ['true_positive', row.factSetKey, t.member.member_id],
    ]);

    // The conflict leaves the open queue; the winner is no longer disputed and the loser is history.
    expect(await conflictsOf(t, 'open')).toEqual([]);
    const [listed] = await conflictsOf(t, 'resolved');
    expect(listed).toMatchObject({ conflict_id: conflict.conflict_id, resolution_type: 'winner', winning_fact_id: b });
    const query = (await tool(t.ownerToken, 'engram_query', { topic: 'billing service timeout' })).structuredContent as { results: { fact_id: string; has_open_conflict: boolean }[] };
    expect(query.results.map((r) => [r.fact_id, r.has_open_conflict])).toEqual([[b, false]]);

    // Audited like any tool call: identifiers kept, the free text only by its length.
    // The entry is written once the answer has gone out: ask until it is there.
    const entry = await eventually(async () =>
      (await call(t.ownerToken, 'GET', '/api/v1/audit'))
        .json<{ entries: { action: string; outcome: string; member_id: string; summary: Record<string, unknown> }[] }>()
        .entries.find((e) => e.action === 'engram_resolve'),
    );
    expect(entry).toMatchObject({
      outcome: 'ok',
      member_id: t.member.member_id,
      summary: { conflict_id: conflict.conflict_id, resolution_type: 'winner', winning_claim_id: b, resolution: { length: 34 } },
    });
  });

  it('is idempotent, and refuses to settle an already settled conflict another way, saying how it was settled', async () => {
    const t = await team();
    const [a, b] = await commitAndDetect(t, TIMEOUTS.slice(0, 2));
    const { conflict_id } = await conflictWith(t, [a!, b!]);
    const args = { conflict_id, resolution_type: 'winner', winning_claim_id: a, resolution: 'The team agreed on 30 s.' };
    const first = resolved(await resolve(t.ownerToken, args));
    const before = JSON.stringify([await conflictRow(conflict_id), await factRows([a!, b!]), await feedbackOf(conflict_id)]);

    const again = resolved(await resolve(t.ownerToken, { ...args, resolution: 'Saying it twice.' }));
    expect(again).toMatchObject({ ...first, already_resolved: true, note: expect.stringContaining('nothing changed') });
    expect(again.resolution).toBe('The team agreed on 30 s.');
    const rest = await call(t.member.token, 'POST', `/api/v1/conflicts/${conflict_id}/resolve`, { resolution_type: 'winner', winning_claim_id: a, resolution: 'again' });
    expect(rest.statusCode).toBe(200);
    expect(rest.json()).toMatchObject({ conflict_id, status: 'resolved', resolution_type: 'winner', winning_fact_id: a, closed_fact_ids: [b], already_resolved: true });
    expect(JSON.stringify([await conflictRow(conflict_id), await factRows([a!, b!]), await feedbackOf(conflict_id)])).toBe(before);

    const otherWinner = await resolve(t.ownerToken, { ...args, winning_claim_id: b });
    expect(errorText(otherWinner)).toMatch(new RegExp(`already resolved on .*: fact ${a} was kept as the winner \\("The team agreed on 30 s\\."\\), so it cannot be resolved another way.*\\(code: conflict\\)`));
    const dismiss = await call(t.ownerToken, 'POST', `/api/v1/conflicts/${conflict_id}/resolve`, { resolution_type: 'dismissed', resolution: 'not a conflict' });
    expect(dismiss.statusCode).toBe(409);
    expect(dismiss.json().error).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining(`fact ${a} was kept as the winner`),
      details: { status: 'resolved', resolution_type: 'winner', winning_fact_id: a },
    });
    expect(JSON.stringify([await conflictRow(conflict_id), await factRows([a!, b!]), await feedbackOf(conflict_id)])).toBe(before);
  });

  it('settles a conflict of three facts: the winner closes the other two', async () => {
    const t = await team();
    const ids = await commitAndDetect(t, TIMEOUTS);
    const { conflict_id } = await conflictWith(t, ids);
    const out = resolved(await resolve(t.ownerToken, { conflict_id, resolution_type: 'winner', winning_claim_id: ids[1], resolution: '60 s everywhere.' }));
    expect(out.closed_fact_ids).toEqual([ids[0], ids[2]].sort());
    const state = await windows(ids);
    expect(ids.map((id) => state[id]!.open)).toEqual([false, true, false]);
  });

  it('merges into a fact committed first, closing every original, even when the merged fact is outside the conflict', async () => {
    const t = await team();
    const ids = await commitAndDetect(t, TIMEOUTS);
    const { conflict_id } = await conflictWith(t, ids);
    const merged = (await tool(t.member.token, 'engram_commit', {
      content: 'The billing service timeout is 45 seconds for internal calls; webhooks get their own limit',
      scope: 'billing/internal',
      confidence: 1,
      agent_id: 'merger',
    })).structuredContent as { fact_id: string };

    const out = resolved(await resolve(t.member.token, { conflict_id, resolution_type: 'merge', winning_claim_id: merged.fact_id, resolution: 'Both were half right.' }));
    expect(out).toMatchObject({ status: 'resolved', resolution_type: 'merge', winning_fact_id: merged.fact_id, closed_fact_ids: [...ids].sort() });
    const state = await windows(ids);
    expect(ids.map((id) => state[id])).toEqual(ids.map(() => ({ open: false, retiredBy: 'resolution', retiredFor: merged.fact_id })));
    expect((await windows([merged.fact_id]))[merged.fact_id]!.open).toBe(true);
    expect((await feedbackOf(conflict_id)).map((f) => f.feedback)).toEqual(['true_positive']);
  });

  it('says what is wrong with a merge result or a winner that cannot be kept', async () => {
    const t = await team();
    const ids = await commitAndDetect(t, TIMEOUTS.slice(0, 2));
    const { conflict_id } = await conflictWith(t, ids);
    const base = { conflict_id, resolution: 'because' };

    const unknown = randomUUID();
    expect(errorText(await resolve(t.ownerToken, { ...base, resolution_type: 'merge', winning_claim_id: unknown }))).toContain(
      `Fact ${unknown} (winning_claim_id) was not found in this workspace. Commit the merged fact with engram_commit first`,
    );
    const scratch = (await tool(t.ownerToken, 'engram_commit', { content: 'Scratch: the billing timeout might be 45 s', scope: 'billing', confidence: 0.3, durability: 'ephemeral' })).structuredContent as { fact_id: string };
    expect(errorText(await resolve(t.ownerToken, { ...base, resolution_type: 'merge', winning_claim_id: scratch.fact_id }))).toContain(
      `winning_claim_id: fact ${scratch.fact_id} is ephemeral and would expire; make it durable with engram_promote first`,
    );
    const old = (await tool(t.ownerToken, 'engram_commit', { content: 'The billing API is versioned v1', scope: 'billing', confidence: 1 })).structuredContent as { fact_id: string; lineage_id: string };
    await tool(t.ownerToken, 'engram_commit', { content: 'The billing API is versioned v2', scope: 'billing', confidence: 1, corrects_lineage: old.lineage_id });
    expect(errorText(await resolve(t.ownerToken, { ...base, resolution_type: 'merge', winning_claim_id: old.fact_id }))).toMatch(
      new RegExp(`Fact ${old.fact_id} \\(winning_claim_id\\) is no longer current \\(its window closed at .*\\), so it cannot be kept.*code: conflict`),
    );
    expect(errorText(await resolve(t.ownerToken, { ...base, resolution_type: 'winner', winning_claim_id: old.fact_id }))).toContain(
      `winning_claim_id: must be one of this conflict's facts (${ids.join(', ')}); to keep a fact outside the conflict, use resolution_type "merge"`,
    );

    // A winner closed since the conflict was raised cannot be kept either.
    await tool(t.ownerToken, 'engram_commit', { content: 'retire', scope: 'billing', confidence: 1, operation: 'delete', corrects_lineage: ids[0] });
    expect(errorText(await resolve(t.ownerToken, { ...base, resolution_type: 'winner', winning_claim_id: ids[0] }))).toContain(`Fact ${ids[0]} (winning_claim_id) is no longer current`);
    // ... but keeping the other needs nothing closed and settles it.
    const kept = resolved(await resolve(t.ownerToken, { ...base, resolution_type: 'winner', winning_claim_id: ids[1] }));
    expect(kept).toMatchObject({ status: 'resolved', closed_fact_ids: [] });
    expect((await conflictRow(conflict_id)).status).toBe('resolved');
  });

  it('validates its input field by field, saying what is allowed', async () => {
    const t = await team();
    const id = randomUUID();
    // The MCP SDK reports schema problems as "<message> at <field>".
    const cases: [Record<string, unknown>, string, string][] = [
      [{ conflict_id: id, resolution_type: 'winner', resolution: 'x' }, 'winning_claim_id', 'is required when resolution_type is "winner": pass the fact_id of the conflict\'s fact to keep'],
      [{ conflict_id: id, resolution_type: 'merge', resolution: 'x' }, 'winning_claim_id', 'is required when resolution_type is "merge": commit the merged fact with engram_commit first'],
      [{ conflict_id: id, resolution_type: 'dismissed', resolution: 'x', winning_claim_id: randomUUID() }, 'winning_claim_id', 'must be omitted when resolution_type is "dismissed"'],
      [{ conflict_id: id, resolution_type: 'keep', resolution: 'x' }, 'resolution_type', 'must be "winner", "merge" or "dismissed"'],
      [{ conflict_id: 'c-1', resolution_type: 'dismissed', resolution: 'x' }, 'conflict_id', 'must be the conflict_id (a UUID) from engram_conflicts'],
      [{ conflict_id: id, resolution_type: 'dismissed', resolution: '  ' }, 'resolution', 'must not be empty: say why'],
      [{ conflict_id: id, resolution_type: 'dismissed' }, 'resolution', 'is required: one or two sentences on why'],
      [{ conflict_id: id, resolution_type: 'dismissed', resolution: 'x', merged_content: 'y' }, 'merged_content', 'Unrecognized key'],
    ];
    for (const [args, field, message] of cases) {
      const text = errorText(await resolve(t.ownerToken, args));
      expect(text, JSON.stringify(args)).toContain(message);
      expect(text, JSON.stringify(args)).toContain(field);
    }
    expect(errorText(await resolve(t.ownerToken, { conflict_id: id, resolution_type: 'dismissed', resolution: 'x' }))).toContain(
      `Conflict ${id} was not found in this workspace. Take the conflict_id from engram_conflicts`,
    );
    expect(errorText(await resolve(t.ownerToken, { conflict_id: id, resolution_type: 'dismissed', resolution: 'The key is AKIAIOSFODNN7EXAMPLE' }))).toMatch(/resolution appears to contain .*\(pattern: .*\)/);

    const rest = (body: Record<string, unknown>) => call(t.ownerToken, 'POST', `/api/v1/conflicts/${id}/resolve`, body);
    const bad = await rest({ resolution_type: 'merge', resolution: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details.problems).toEqual([
      { field: 'merged_content', message: 'is required when resolution_type is "merge" without winning_claim_id: the text of the merged fact' },
    ]);
    expect((await rest({ resolution_type: 'merge', resolution: 'x', merged_content: 'y', winning_claim_id: randomUUID() })).json().error.message).toContain(
      'merged_content: must be omitted when winning_claim_id is given',
    );
    expect((await rest({ resolution_type: 'winner', resolution: 'x', winning_claim_id: randomUUID(), scope: 'billing' })).json().error.message).toContain(
      'scope: is only used with merged_content; omit it',
    );
    expect((await call(t.ownerToken, 'POST', '/api/v1/conflicts/nope/resolve', { resolution_type: 'dismissed', resolution: 'x' })).json().error.message).toContain(
      'must be a conflict id (UUID)',
    );
  });

  it('dismisses: closes nothing, records false-positive feedback, and the detector never raises the set again', async () => {
    const t = await team();
    const ids = await commitAndDetect(t, TIMEOUTS);
    const { conflict_id } = await conflictWith(t, ids);
    const row = await conflictRow(conflict_id);
    const flagged = () =>
      suite.handle.db
        .select({ agent: agents.agentId, flagged: agents.flaggedCommits })
        .from(agents)
        .where(and(eq(agents.workspaceId, t.workspaceId), inArray(agents.agentId, ['agent-0', 'agent-1', 'agent-2'])))
        .then((rows) => Object.fromEntries(rows.map((r) => [r.agent, r.flagged])));
    expect(await flagged()).toEqual({ 'agent-0': 1, 'agent-1': 1, 'agent-2': 1 });
    const out = resolved(await resolve(t.ownerToken, { conflict_id, resolution_type: 'dismissed', resolution: 'Three different services, all correct.' }));
    // A false alarm costs the agents no trust.
    expect(await flagged()).toEqual({ 'agent-0': 0, 'agent-1': 0, 'agent-2': 0 });
    expect(out).toMatchObject({ status: 'dismissed', resolution_type: 'dismissed', winning_fact_id: null, closed_fact_ids: [], already_resolved: false });
    expect(Object.values(await windows(ids)).every((w) => w.open && w.retiredBy === null)).toBe(true);
    expect((await feedbackOf(conflict_id)).map((f) => [f.feedback, f.factSetKey])).toEqual([['false_positive', row.factSetKey]]);
    expect(await conflictsOf(t, 'open')).toEqual([]);
    const query = (await tool(t.ownerToken, 'engram_query', { topic: 'billing service timeout' })).structuredContent as { results: { has_open_conflict: boolean }[] };
    expect(query.results).toHaveLength(3);
    expect(query.results.every((r) => !r.has_open_conflict)).toBe(true);

    // Detection over the same facts again, whichever of them triggers it, raises nothing.
    expect((await detect(t, ids)).conflictsRaised).toBe(0);
    expect((await detect(t, [ids[2]!])).conflictsRaised).toBe(0);
    // Committing the same claims again (other agents, same words) stores nothing new and raises nothing.
    const again = await commitAndDetect(t, TIMEOUTS.map((f) => ({ ...f, agent: 'agent-again' })));
    expect(new Set(again)).toEqual(new Set(ids));
    expect((await detect(t, again)).conflictsRaised).toBe(0);
    const all = await conflictsOf(t);
    expect(all.map((c) => [c.conflict_id, c.status])).toEqual([[conflict_id, 'dismissed']]);
    // And the dismissal is idempotent too.
    expect(resolved(await resolve(t.ownerToken, { conflict_id, resolution_type: 'dismissed', resolution: 'again' }))).toMatchObject({ already_resolved: true, resolution: 'Three different services, all correct.' });
    expect(await feedbackOf(conflict_id)).toHaveLength(1);
  });

  it('settles other open conflicts that the closed windows leave with one current fact', async () => {
    const t = await team();
    const [both, timeout, database] = await commitAndDetect(t, [
      // One fact in two conflicts. (Written as two clauses: in "timeout is 30 seconds and its database is PostgreSQL" the
      // reader takes the database claim to be about the timeout too, and the database conflict is never raised.)
      { content: 'The billing service timeout is 30 seconds; its database is PostgreSQL', scope: 'billing' },
      { content: 'The billing service timeout is 60 seconds', scope: 'billing' },
      { content: 'The billing service database is MongoDB', scope: 'billing' },
    ]);
    const timeouts = await conflictWith(t, [both!, timeout!]);
    const databases = await conflictWith(t, [both!, database!]);
    const out = resolved(await resolve(t.ownerToken, { conflict_id: timeouts.conflict_id, resolution_type: 'winner', winning_claim_id: timeout, resolution: '60 s.' }));
    expect(out).toMatchObject({ closed_fact_ids: [both], settled_conflicts: 1 });
    expect(out.note).toContain('1 other open conflict(s) became settled');
    expect(await conflictRow(databases.conflict_id)).toMatchObject({ status: 'resolved', resolutionType: null, resolution: expect.stringContaining('Settled automatically') });
    // An automatically settled conflict says so when someone tries to settle it by hand.
    const late = await resolve(t.ownerToken, { conflict_id: databases.conflict_id, resolution_type: 'winner', winning_claim_id: database, resolution: 'Mongo.' });
    expect(errorText(late)).toContain('is already resolved automatically');
  });

  it('keeps a settled fact that was since restated word for word closed: the run asks, and undoing the settlement keeps the restatement', async () => {
    const t = await team();
    const [first, moved] = await commitAndDetect(t, [
      { content: 'The first sprint is due April 1', scope: 'planning' },
      { content: 'The first sprint is now due April 5 instead of April 1', scope: 'planning' },
    ]);
    const settlement = await conflictWith(t, [first!, moved!]);
    expect(settlement).toMatchObject({ kind: 'probable_update', status: 'resolved', resolution_type: 'detector', winning_fact_id: moved });
    // The replaced value said again, in the very words of the closed fact: a new fact, and a reversal to ask about.
    const [restated] = await commitAndDetect(t, [{ content: 'The first sprint is due April 1', scope: 'planning', agent: 'agent-9' }]);
    expect(restated).not.toBe(first);
    const reversal = (await conflictsOf(t, 'open')).find((c) => c.facts.some((f) => f.fact_id === restated));
    expect(reversal).toMatchObject({ kind: 'reversal', status: 'open' });
    // Restoring the closed fact would make two current copies of one text in one scope: refused, nothing changed.
    const restore = await call(t.ownerToken, 'POST', `/api/v1/facts/${first}/restore`);
    expect(restore.statusCode).toBe(409);
    expect(await windows([first!, moved!, restated!])).toEqual({
      [first!]: { open: false, retiredBy: 'detector', retiredFor: moved },
      [moved!]: { open: true, retiredBy: null, retiredFor: null },
      [restated!]: { open: true, retiredBy: null, retiredFor: null },
    });
    // Undoing the settlement ("keep both") leaves the restatement current in the closed fact's place.
    const out = resolved(await resolve(t.ownerToken, { conflict_id: settlement.conflict_id, resolution_type: 'dismissed', resolution: 'Both were true at their time.' }));
    expect(out).toMatchObject({ status: 'dismissed', closed_fact_ids: [] });
    expect(Object.fromEntries(Object.entries(await windows([first!, moved!, restated!])).map(([id, w]) => [id, w.open]))).toEqual({ [first!]: false, [moved!]: true, [restated!]: true });
  });

  it('needs write access to the scopes of the facts it closes, and hides conflicts with unreadable facts', async () => {
    const t = await team();
    const [authFact, gatewayFact] = await commitAndDetect(t, [
      { content: 'The auth service access token TTL is 15 minutes', scope: 'auth' },
      { content: 'The auth service access token TTL is 60 minutes', scope: 'gateway' },
    ]);
    const { conflict_id, kind } = await conflictWith(t, [authFact!, gatewayFact!]);
    expect(kind).toBe('cross_scope');
    const grant = (scope_prefix: string, can_read: boolean, can_write: boolean) =>
      call(t.ownerToken, 'POST', '/api/v1/scope-permissions', { member_id: t.member.member_id, scope_prefix, can_read, can_write });
    expect((await grant('gateway', true, false)).statusCode).toBe(201);
    const untouched = JSON.stringify([await conflictRow(conflict_id), await factRows([authFact!, gatewayFact!])]);

    // Keeping auth's fact would close gateway's, which Mia may read but not write.
    const denied = await resolve(t.member.token, { conflict_id, resolution_type: 'winner', winning_claim_id: authFact, resolution: '15 min.' });
    expect(errorText(denied)).toContain('Your scope permissions do not allow writing to "gateway"');
    expect(errorText(await resolve(t.member.token, { conflict_id, resolution_type: 'dismissed', resolution: 'fine' }))).toContain('do not allow writing to "gateway"');
    const mergedDenied = await call(t.member.token, 'POST', `/api/v1/conflicts/${conflict_id}/resolve`, { resolution_type: 'merge', resolution: 'x', merged_content: 'The auth service access token TTL is 30 minutes' });
    expect(mergedDenied.statusCode).toBe(403);
    expect(JSON.stringify([await conflictRow(conflict_id), await factRows([authFact!, gatewayFact!])])).toBe(untouched);
    const stray = await call(t.ownerToken, 'GET', '/api/v1/facts?q=30%20minutes');
    expect(stray.json().total).toBe(0); // the refused merge committed nothing

    // Readers cannot resolve at all: the tool is not theirs, and the route says why.
    expect((await resolve(t.reader.token, { conflict_id, resolution_type: 'dismissed', resolution: 'x' })).isError).toBe(true);
    const readerRest = await call(t.reader.token, 'POST', `/api/v1/conflicts/${conflict_id}/resolve`, { resolution_type: 'dismissed', resolution: 'x' });
    expect(readerRest.statusCode).toBe(403);
    expect(readerRest.json().error.message).toContain('read-only (reader role): it cannot resolve conflicts');

    // A conflict with a fact Mia may not read does not exist for her.
    const hidden = await grant('auth', false, false);
    const notFound = await resolve(t.member.token, { conflict_id, resolution_type: 'winner', winning_claim_id: gatewayFact, resolution: 'x' });
    expect(errorText(notFound)).toContain(`Conflict ${conflict_id} was not found in this workspace`);
    await call(t.ownerToken, 'DELETE', `/api/v1/scope-permissions/${hidden.json<{ permission_id: string }>().permission_id}`);

    // Keeping gateway's fact closes only auth's, which she may write: allowed.
    const ok = resolved(await resolve(t.member.token, { conflict_id, resolution_type: 'winner', winning_claim_id: gatewayFact, resolution: 'The gateway config wins.' }));
    expect(ok.closed_fact_ids).toEqual([authFact]);
  });

  it('commits merged_content from the dashboard as the caller and keeps it, once', async () => {
    const t = await team();
    const ids = await commitAndDetect(t, [
      { content: 'The billing service timeout is 30 seconds', scope: 'billing/api' },
      { content: 'The billing service timeout is 60 seconds', scope: 'billing/webhooks' },
    ]);
    const { conflict_id } = await conflictWith(t, ids);
    const body = { resolution_type: 'merge', resolution: 'API 30 s, webhooks 60 s.', merged_content: 'The billing API times out after 30 seconds; billing webhooks after 60 seconds' };
    const res = await call(t.member.token, 'POST', `/api/v1/conflicts/${conflict_id}/resolve`, body);
    expect(res.statusCode).toBe(200);
    const out = res.json<Resolved>();
    expect(Object.keys(out).sort()).toEqual(
      ['already_resolved', 'closed_fact_ids', 'conflict_id', 'note', 'resolution', 'resolution_type', 'resolved_at', 'settled_conflicts', 'status', 'winning_fact_id'].sort(),
    );
    expect(out).toMatchObject({ status: 'resolved', resolution_type: 'merge', closed_fact_ids: [...ids].sort(), already_resolved: false });
    const [merged] = await factRows([out.winning_fact_id!]);
    expect(merged).toMatchObject({
      content: body.merged_content,
      scope: 'billing/webhooks', // the newest fact's scope
      factType: 'decision',
      memberId: t.member.member_id,
      agentId: 'resolution', // a person's merge, not one of the coding agents
      validUntil: null,
      provenance: expect.stringContaining(conflict_id),
    });

    // A double submit answers the same result and commits nothing more; other text is refused.
    const twice = await call(t.member.token, 'POST', `/api/v1/conflicts/${conflict_id}/resolve`, body);
    expect(twice.json()).toMatchObject({ ...out, already_resolved: true, note: expect.any(String) });
    const list = await call(t.ownerToken, 'GET', '/api/v1/facts?q=webhooks');
    expect(list.json().total).toBe(1);
    const different = await call(t.member.token, 'POST', `/api/v1/conflicts/${conflict_id}/resolve`, { ...body, merged_content: 'Something else entirely' });
    expect(different.statusCode).toBe(409);
    expect(different.json().error.message).toContain(`by a merge into fact ${out.winning_fact_id}`);

    // An explicit scope is used as given.
    const more = await commitAndDetect(t, [
      { content: 'The billing worker concurrency is 4', scope: 'billing' },
      { content: 'The billing worker concurrency is 8', scope: 'billing' },
    ]);
    const second = await conflictWith(t, more);
    const scoped = await call(t.ownerToken, 'POST', `/api/v1/conflicts/${second.conflict_id}/resolve`, {
      resolution_type: 'merge',
      resolution: 'Depends on the queue.',
      merged_content: 'The billing worker concurrency is 4 for the invoice queue and 8 for the email queue',
      scope: 'billing/worker',
    });
    expect(scoped.statusCode).toBe(200);
    expect((await factRows([scoped.json<Resolved>().winning_fact_id!]))[0]!.scope).toBe('billing/worker');
  });

  it('lets exactly one of two concurrent, different resolutions win', async () => {
    const t = await team();
    const ids = await commitAndDetect(t, TIMEOUTS.slice(0, 2));
    const { conflict_id } = await conflictWith(t, ids);
    const [x, y] = await Promise.all(
      ids.map((id) => call(t.ownerToken, 'POST', `/api/v1/conflicts/${conflict_id}/resolve`, { resolution_type: 'winner', winning_claim_id: id, resolution: `keep ${id}` })),
    );
    expect([x!.statusCode, y!.statusCode].sort()).toEqual([200, 409]);
    const winner = [x!, y!].find((r) => r.statusCode === 200)!.json<Resolved>().winning_fact_id;
    const state = await windows(ids);
    expect(ids.map((id) => state[id]!.open)).toEqual(ids.map((id) => id === winner));
    expect(await feedbackOf(conflict_id)).toHaveLength(1);
  });
});

describe.each(isolatedServerEngines())('engram_resolve over a real MCP connection on $name', (engine) => {
  const suite = serverSuite(engine, { inProcessWorker: true });

  it('lists the tool with its annotations, and settles what the background detector raised', async () => {
    const created = await provisionOverHttp(suite.server.baseUrl);
    const client = await connectMcp(`${suite.server.baseUrl}/mcp`, created.owner_token);
    try {
      const { tools } = await client.listTools();
      const listed = tools.find((x) => x.name === 'engram_resolve');
      expect(listed?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
      expect(listed?.description).toContain('Only call this after the user answered');
      expect(Object.keys(listed?.inputSchema.properties ?? {}).sort()).toEqual(['conflict_id', 'resolution', 'resolution_type', 'winning_claim_id']);

      const first = await mustCall<{ fact_id: string }>(client, 'engram_commit', { content: 'The search service replica count is 3', scope: 'search', confidence: 1, agent_id: 'a' });
      const second = await mustCall<{ fact_id: string }>(client, 'engram_commit', { content: 'The search service replica count is 5', scope: 'search', confidence: 1, agent_id: 'b' });
      const conflictId = await eventually(
        async () => (await mustCall<{ groups: { conflicts: { conflict_id: string }[] }[] }>(client, 'engram_conflicts', {})).groups[0]?.conflicts[0]?.conflict_id,
        { intervalMs: 100, what: 'the detector raised a conflict' },
      );
      const out = await mustCall<Resolved>(client, 'engram_resolve', { conflict_id: conflictId, resolution_type: 'winner', winning_claim_id: second.fact_id, resolution: 'Scaled to 5 last week.' });
      expect(out).toMatchObject({ status: 'resolved', winning_fact_id: second.fact_id, closed_fact_ids: [first.fact_id], already_resolved: false });
      const retry = await mustCall<Resolved>(client, 'engram_resolve', { conflict_id: conflictId, resolution_type: 'winner', winning_claim_id: second.fact_id, resolution: 'retry' });
      expect(retry.already_resolved).toBe(true);
      const refused = await callTool(client, 'engram_resolve', { conflict_id: conflictId, resolution_type: 'dismissed', resolution: 'no' });
      expect(refused).toMatchObject({ ok: false, error: expect.stringContaining('already resolved') });
      expect((await mustCall<{ total: number }>(client, 'engram_conflicts', {})).total).toBe(0);
    } finally {
      await client.close();
    }
  });
});
