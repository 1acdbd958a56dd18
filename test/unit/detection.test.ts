/** The deterministic tiers as pure functions: which timelines settle, which conflict, and how. */
import { analysisSteps, analyzeSlots, cachedClaims, candidatesOf, groupBySharedSlots, indexingSteps, indexSlots, sameSlot, type SlotIndex } from '@engram/core';
import type { DetectorFact } from '@engram/db';
import { describe, expect, it } from 'vitest';
import { detectorFact } from '../support/detector-facts.ts';

const fact = detectorFact;

/** Runs the tiers with every fact as a trigger (as a burst of commits would). */
const analyze = (facts: DetectorFact[], triggers = facts) => analyzeSlots(facts, new Set(triggers.map((f) => f.id)));

describe('deterministic tiers', () => {
  it('meets, in a crowded slot, every claim that can be one slot with a trigger, and not all that share its words', () => {
    const services = ['billing', 'auth', 'search', 'ledger', 'payout', 'notify', 'export', 'ingest', 'media', 'geo', 'tax', 'mail'];
    const said = [
      (s: string, n: number) => [`The ${s}-api worker pool has ${n} threads`, 'infra'],
      (s: string, n: number) => [`Worker pool threads for ${s}-api: ${n}`, 'infra'],
      (s: string, n: number) => [`${s}-api runs its worker pool with ${n} threads`, 'platform'],
      (s: string, n: number) => [`The worker pool has ${n} threads`, `${s}-api`],
      (s: string, n: number) => [`Pool size is ${n} threads`, s],
      (s: string, n: number) => [`The ${s} worker pool has ${n} threads`, 'infra'],
    ];
    const facts = services.flatMap((s, i) => said.map((say, j) => {
      const [content, scope] = say(s, 4 + ((i + j) % 5) * 4);
      return fact(content!, { scope: scope!, hoursAgo: 100 + i * 7 + j });
    }));
    const read = cachedClaims();
    const claims = facts.flatMap(read);
    const index = indexSlots(facts, read);
    const met = (t: (typeof claims)[number]) => [...candidatesOf(t, index)].filter((c) => sameSlot(t, c)).map((c) => c.key + c.fact.id);
    let fewer = 0;
    for (const t of claims) {
      // Exactly the claims of the slot that checking every claim finds.
      expect(new Set(met(t))).toEqual(new Set(claims.filter((c) => sameSlot(t, c)).map((c) => c.key + c.fact.id)));
      const sharing = new Set([`${t.kind}:*`, ...index.keysOf.get(t)!].flatMap((k) => index.byKey.get(k) ?? []));
      if (candidatesOf(t, index).size < sharing.size) fewer++;
    }
    expect(claims.some((c) => c.implicit)).toBe(true);
    expect(fewer).toBeGreaterThan(claims.length / 2);
  });

  it('builds the slot index in steps that pause between them, and the steps build the same index as one piece', () => {
    const facts = Array.from({ length: 700 }, (_, i) =>
      fact(i % 2 ? `The svc${i % 90}-api worker pool has ${4 + (i % 7)} threads` : `Pool size is ${8 + (i % 5)} threads`, { scope: i % 2 ? 'infra' : `svc${i % 90}`, hoursAgo: 1_000 - i }),
    );
    const read = cachedClaims();
    const whole = indexSlots(facts, read);
    const steps = indexingSteps(facts, read);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    const named = (index: SlotIndex) => ({
      byKey: [...index.byKey].map(([k, claims]) => [k, claims.map((c) => `${c.fact.id}/${c.key}`)]),
      bySubject: [...index.bySubject].map(([k, claims]) => [k, claims.map((c) => `${c.fact.id}/${c.key}`)]),
      keysOf: [...index.keysOf].map(([c, keys]) => [`${c.fact.id}/${c.key}`, keys]),
    });
    expect(named(step.value)).toEqual(named(whole));
    // Two passes over 700 claims, a pause every 500 claims of each.
    expect(whole.keysOf.size).toBe(700);
    expect(pauses).toBe(2);
  });

  it('analyses one trigger of a crowded slot in steps that pause between them, with the outcome of one piece', () => {
    // 2,400 services' pools, each in its own scope: every one shares the trigger's keys.
    const crowd = Array.from({ length: 2_400 }, (_, i) => fact(`Pool size is ${4 + (i % 9)} threads`, { scope: `svc${i}`, hoursAgo: 3_000 - i }));
    const before = fact('Pool size is 16 threads', { scope: 'billing', hoursAgo: 500 });
    const trigger = fact('Pool size is 8 threads', { scope: 'billing', hoursAgo: 1 });
    const facts = [...crowd, before, trigger];
    const read = cachedClaims();
    const index = indexSlots(facts, read);
    const met = candidatesOf(read(trigger)[0]!, index).size;
    expect(met).toBeGreaterThan(2_400);
    const steps = analysisSteps(facts, new Set([trigger.id]), read, index);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    // A pause every thousand comparisons: at least one per thousand candidates met.
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(met / 1_000));
    const whole = analyzeSlots(facts, new Set([trigger.id]), read, index);
    const named = (o: typeof whole) => ({ conflicts: o.conflicts.map((c) => [c.kind, [...c.factIds].sort()]), retirements: o.retirements.map((r) => [r.factId, r.byFactId]) });
    expect(named(step.value)).toEqual(named(whole));
    expect(named(whole).conflicts).toEqual([['value_mismatch', [before.id, trigger.id].sort()]]);
  });

  it('flags two agents stating different values for one slot, with a question naming both', () => {
    const a = fact('The auth service rate limit is 1000 req/s per IP', { scope: 'auth', hoursAgo: 50 });
    const b = fact('The auth service rate limit is 2000 req/s per IP', { scope: 'auth', hoursAgo: 26 });
    const { conflicts, retirements } = analyze([a, b]);
    expect(retirements).toEqual([]);
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ kind: 'value_mismatch', detectedBy: 'tier2_numeric', severity: 'high' });
    expect(new Set(conflicts[0]!.factIds)).toEqual(new Set([a.id, b.id]));
    expect(conflicts[0]!.question).toBe('Which is the auth rate limit now: 1000 req/s or 2000 req/s?');
  });

  it('does not flag values that agree once units are normalized', () => {
    const a = fact('JWT access tokens expire after 1 hour', { scope: 'auth', hoursAgo: 48 });
    const b = fact('The access token expiry is 3600 seconds', { scope: 'auth', hoursAgo: 24 });
    expect(analyze([a, b]).conflicts).toEqual([]);
  });

  it('settles an agent refining its own note within a session, but not a day later', () => {
    const a = fact('Cache TTL is 300 seconds', { scope: 'cache', agent: 'agent-a', hoursAgo: 3 });
    const b = fact('Cache TTL is 600 seconds', { scope: 'cache', agent: 'agent-a', hoursAgo: 2.85 });
    const settled = analyze([a, b]);
    expect(settled.conflicts).toEqual([]);
    expect(settled.retirements).toEqual([{ factId: a.id, byFactId: b.id, at: b.committed_at }]);
    expect(settled.reasons.get(a.id)).toBe('same agent within a working session');

    const later = fact('Cache TTL is 900 seconds', { scope: 'cache', agent: 'agent-a', hoursAgo: 1 });
    const old = fact('Cache TTL is 300 seconds', { scope: 'cache', agent: 'agent-a', hoursAgo: 30 });
    expect(analyze([old, later]).conflicts).toHaveLength(1);
  });

  it('settles on change language and on naming the replaced value, not on a plan', () => {
    const a = fact('Rate limit is 500 req/s', { scope: 'api', hoursAgo: 48 });
    const b = fact('Rate limit is actually 1000 req/s, checked in the gateway config', { scope: 'api', hoursAgo: 24 });
    expect(analyze([a, b]).retirements.map((r) => r.factId)).toEqual([a.id]);

    const redis = fact('The auth service uses Redis for session caching', { scope: 'auth', hoursAgo: 1440 });
    const memcached = fact('We replaced Redis with Memcached for auth session caching', { scope: 'auth', hoursAgo: 720 });
    const settled = analyze([redis, memcached]);
    expect(settled.retirements.map((r) => r.factId)).toEqual([redis.id]);
    expect(settled.conflicts).toEqual([]);

    const mysql = fact("The billing service's database is MySQL 8", { scope: 'billing', hoursAgo: 240 });
    const plan = fact('Plan for Q3: migrate billing from MySQL to Postgres. Nothing has been moved yet', { scope: 'billing', hoursAgo: 30 });
    expect(analyze([mysql, plan])).toMatchObject({ retirements: [], conflicts: [] });
  });

  it('settles a number moved the way an earlier fact meant to move it, and flags one moved the other way', () => {
    const slow = fact('The nightly integration suite takes 40 minutes. The team wants to bring it down', { scope: 'ci', agent: 'agent-a', hoursAgo: 72 });
    const faster = fact('The nightly integration suite takes 25 minutes', { scope: 'ci', agent: 'agent-b', hoursAgo: 20 });
    const settled = analyze([slow, faster]);
    expect(settled.conflicts).toEqual([]);
    expect(settled.retirements.map((r) => r.factId)).toEqual([slow.id]);
    expect(settled.reasons.get(slow.id)).toBe('the earlier fact meant to change it, and the later one has it changed');
    const slower = fact('The nightly integration suite takes 55 minutes', { scope: 'ci', agent: 'agent-b', hoursAgo: 20 });
    expect(analyze([slow, slower]).conflicts).toHaveLength(1);

    const quota = fact('Each tenant gets 200 GB of storage; we plan to raise the quota', { scope: 'storage', agent: 'agent-a', hoursAgo: 90 });
    const raised = fact('Each tenant gets 500 GB of storage', { scope: 'storage', agent: 'agent-b', hoursAgo: 10 });
    expect(analyze([quota, raised]).retirements.map((r) => r.factId)).toEqual([quota.id]);
    // Without the intent, the same pair is two agents disagreeing.
    const plain = fact('Each tenant gets 200 GB of storage', { scope: 'storage', agent: 'agent-a', hoursAgo: 90 });
    expect(analyze([plain, raised]).conflicts).toHaveLength(1);
  });

  it('settles a later value on its way to a stated goal, and flags one going the other way', () => {
    const before = fact('Unit test coverage of the billing service is 62%', { scope: 'billing', agent: 'agent-a', hoursAgo: 100 });
    const goal = fact('The goal is to raise unit test coverage of the billing service to 85% this quarter', { scope: 'billing', agent: 'agent-c', hoursAgo: 90 });
    const progress = fact('Unit test coverage of the billing service is 71%', { scope: 'billing', agent: 'agent-b', hoursAgo: 20 });
    const settled = analyze([before, goal, progress]);
    expect(settled.conflicts).toEqual([]);
    expect(settled.retirements.map((r) => r.factId)).toEqual([before.id]);
    expect(settled.reasons.get(before.id)).toBe('the later value is progress toward a stated goal');
    const worse = fact('Unit test coverage of the billing service is 55%', { scope: 'billing', agent: 'agent-b', hoursAgo: 20 });
    expect(analyze([before, goal, worse]).conflicts).toHaveLength(1);
    // Without the goal, two agents disagree.
    expect(analyze([before, progress]).conflicts).toHaveLength(1);
  });

  it('calls A → B → A a reversal when the return is not announced', () => {
    const a = fact('We use REST for the public API', { scope: 'api', hoursAgo: 720 });
    const b = fact('We switched the public API to GraphQL', { scope: 'api', hoursAgo: 480 });
    const c = fact('The public API is REST-based', { scope: 'api', hoursAgo: 48 });
    const { conflicts, retirements } = analyze([a, b, c]);
    expect(retirements.map((r) => r.factId)).toEqual([a.id]);
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ kind: 'reversal', detectedBy: 'narrative_rules' });
    expect(conflicts[0]!.factIds).toEqual(expect.arrayContaining([b.id, c.id]));
    expect(conflicts[0]!.question).toBe('Which is the API style now: GraphQL or REST? The team had moved from REST to GraphQL, and the latest fact says REST again.');
  });

  it('calls an old version claim outliving newer ones stale, and a disagreement across scopes cross_scope', () => {
    const old = fact('Postgres 14 is our database version', { scope: 'infra/db', hoursAgo: 5760 });
    const recent = fact('pgvector builds cleanly against Postgres 17', { scope: 'infra/db', hoursAgo: 72 });
    expect(analyze([old, recent]).conflicts[0]).toMatchObject({ kind: 'stale', severity: 'medium' });

    const auth = fact('The rate limit is 1,000 req/s', { scope: 'auth', hoursAgo: 72 });
    const infra = fact('Auth allows 5,000 req/s per IP', { scope: 'infra', hoursAgo: 48 });
    expect(analyze([auth, infra]).conflicts[0]).toMatchObject({ kind: 'cross_scope', detectedBy: 'tier2b_cross_scope' });
  });

  it('keeps environments, subjects and attributes apart, but an unqualified claim meets a qualified one', () => {
    const prod = fact('Port is 8080 in prod', { scope: 'deploy', hoursAgo: 48 });
    const staging = fact('Port is 9090 in staging', { scope: 'deploy', hoursAgo: 24 });
    expect(analyze([prod, staging]).conflicts).toEqual([]);
    const timeout = fact('Auth timeout is 30 seconds', { scope: 'auth', hoursAgo: 30 });
    const session = fact('Auth session timeout is 30 minutes', { scope: 'auth', hoursAgo: 20 });
    expect(analyze([timeout, session]).conflicts).toEqual([]);
    const payments = fact('Payments rate limit is 1000 req/s', { scope: 'payments', hoursAgo: 20 });
    const auth = fact('Auth rate limit is 500 req/s', { scope: 'auth', hoursAgo: 30 });
    expect(analyze([auth, payments]).conflicts).toEqual([]);

    const everywhere = fact('Feature flag `checkout_v2` is enabled', { scope: 'flags', hoursAgo: 120 });
    const inProd = fact('checkout_v2 flag is disabled in production', { scope: 'flags', hoursAgo: 10 });
    expect(analyze([everywhere, inProd]).conflicts).toHaveLength(1);
  });

  it('keeps things named by an identifier apart: Module 0 and Module 1, Service A and Service B', () => {
    const modules = Array.from({ length: 6 }, (_, i) =>
      fact(`Module ${i} is written in ${i % 2 ? 'Go' : 'Rust'}.`, { agent: 'agent-1', hoursAgo: 1 - i / 100 }),
    );
    const services = [
      fact('Service A listens on port 8080', { agent: 'agent-1', hoursAgo: 0.5 }),
      fact('Service B listens on port 9090', { agent: 'agent-1', hoursAgo: 0.4 }),
    ];
    expect(analyze([...modules, ...services])).toMatchObject({ conflicts: [], retirements: [] });
    // The same identifier still meets itself.
    const again = fact('Service A listens on port 8081', { agent: 'agent-2', hoursAgo: 0.1 });
    expect(analyze([...services, again]).conflicts.map((c) => new Set(c.factIds))).toEqual([new Set([services[0]!.id, again.id])]);
  });

  it('keeps apart facts whose subject is only their scope when each names a thing the other never mentions', () => {
    // Under one top-level scope, an upgrade of the primary says nothing about other database servers.
    const others = [
      fact('mongo-support is on MongoDB 6.0 (Atlas).', { scope: 'infra/mongodb', hoursAgo: 1000 }),
      fact('mysql-growth-01 runs MySQL 8.0.36.', { scope: 'infra/mysql', hoursAgo: 900 }),
      fact('pg-discovery-02 runs Postgres 15.6.', { scope: 'infra/postgres', hoursAgo: 800 }),
    ];
    const primary = fact("Don't use MERGE in migrations — the primary is still on Postgres 14", { scope: 'infra/db', hoursAgo: 2000 });
    const upgrade = fact('Primary DB was upgraded to Postgres 16 over the weekend', { scope: 'infra/db', hoursAgo: 1 });
    const { retirements, conflicts } = analyze([...others, primary, upgrade], [upgrade]);
    expect(retirements.map((r) => r.factId)).toEqual([primary.id]);
    expect(conflicts).toEqual([]);
    // A thing both name (the notifier, as "notifier" in one text) still makes one slot.
    const mailgun = fact('notifier sends transactional email through Mailgun', { scope: 'notifications', hoursAgo: 2400 });
    const postmark = fact('Postmark replaced Mailgun as the transactional mail provider in notifier', { scope: 'notifications', hoursAgo: 180 });
    expect(analyze([mailgun, postmark]).retirements.map((r) => r.factId)).toEqual([mailgun.id]);
  });

  it('keeps apart facts that open by naming different components', () => {
    const spellcheck = fact('spellcheck-worker is owned by Discovery; Vinh is the primary contact.', { scope: 'discovery/spellcheck-worker', hoursAgo: 900 });
    const preview = fact('preview-env-api is owned by Developer Experience; Esteban is the primary contact.', { scope: 'devex', hoursAgo: 10 });
    expect(analyze([spellcheck, preview], [preview])).toMatchObject({ conflicts: [], retirements: [] });
    // The same component named again still meets itself.
    const again = fact('preview-env-api is owned by Developer Experience; Tobias is the primary contact.', { scope: 'devex', hoursAgo: 1 });
    expect(analyze([preview, again], [again]).conflicts.map((c) => new Set(c.factIds))).toEqual([new Set([preview.id, again.id])]);
  });

  it('keeps apart facts that name different components anywhere, and teams their scopes name', () => {
    const apart = (a: string, aScope: string, b: string, bScope: string) => {
      const older = fact(a, { scope: aScope, hoursAgo: 900 });
      const newer = fact(b, { scope: bScope, hoursAgo: 10 });
      return analyze([older, newer], [newer]);
    };
    const none = { conflicts: [], retirements: [] };
    // Named mid-sentence: services, DAGs, clusters, topics.
    expect(apart('Memory limit for ledger-worker is 1Gi; CPU request 250m.', 'billing/ledger-worker', 'Memory limit for tax-proxy is 768Mi; CPU request 100m.', 'billing/tax-proxy')).toMatchObject(none);
    expect(apart('retries=5, retry_delay=15m on billing_subscription_daily', 'data/airflow', 'retries=1, retry_delay=10m on security_key_rotation_daily', 'data/airflow')).toMatchObject(none);
    expect(apart('Backup retention on mongo-identity is 35 days.', 'infra/mongodb', 'Backup retention on mongo-messaging is 30 days.', 'infra/mongodb')).toMatchObject(none);
    expect(apart('alert.events.v1: retention.ms = 2592000000 (30 days).', 'infra/kafka', 'embedding.events.v1: retention.ms = 259200000 (3 days).', 'infra/kafka')).toMatchObject(none);
    // Teams named by their scope: two teams' sprints.
    expect(apart('Sprints on Identity are 2 weeks long.', 'team/identity', 'Sprints on Support Tools are 1 week long.', 'team/support')).toMatchObject(none);
    // English compounds are not names, and a name both mention is one thing.
    expect(apart('The retry limit is invite-only 3 attempts', 'queue', 'The retry limit is server-side 10 attempts', 'queue').conflicts).toHaveLength(1);
    expect(apart('Memory limit for ledger-worker is 1Gi.', 'billing', 'ledger-worker pods get a 2Gi memory limit.', 'billing').conflicts).toHaveLength(1);
    // One component's two measures, sharing nothing but its name, are two things.
    expect(apart('Cache TTL for credit note lookups in credit-note-api is 5 minutes.', 'billing/credit-note-api', 'Load test on credit-note-api: p99 35ms at twice peak traffic.', 'billing/credit-note-api')).toMatchObject(none);
    expect(apart('Memory limit for velocity-worker is 1Gi.', 'risk', 'subscription-reconciler pods request 100m CPU with a 512Mi memory limit.', 'risk')).toMatchObject(none);
    expect(apart('Client timeout from subscription-exporter to payout-api is 15 seconds.', 'billing', 'Idempotency keys in payout-api are stored for 48h.', 'billing')).toMatchObject(none);
    // Two calls that share one end are two interfaces.
    expect(apart('shipment-sync calls shipment-api over REST.', 'fulfillment', 'shipment-api → customs-gateway is a gRPC call with a generated client.', 'fulfillment')).toMatchObject(none);
    // Named in a path, or given a value with "=": still the component.
    expect(apart('Rafael Mensah is the code owner for tidewell/dunning-indexer', 'billing', 'Kalani Reyes is the code owner for tidewell/subscription-exporter', 'billing')).toMatchObject(none);
    expect(apart('container port for labeling-proxy = 8443', 'ml', 'container port for chat-proxy = 8080', 'ml')).toMatchObject(none);
    // A name that is the value itself is what the fact claims, not what it is about.
    expect(apart('The primary database lives in us-east-1', 'infra', 'The primary database lives in eu-west-1', 'infra').conflicts).toHaveLength(1);
  });

  it('only reads the slots its trigger facts touch', () => {
    const a = fact('Queue retry limit is 3 attempts', { scope: 'queue', hoursAgo: 48 });
    const b = fact('Queue retry limit is 10 attempts', { scope: 'queue', hoursAgo: 24 });
    const unrelated = fact('The docs site is built with Docusaurus', { scope: 'docs', hoursAgo: 1 });
    expect(analyze([a, b, unrelated], [unrelated]).conflicts).toEqual([]);
    expect(analyze([a, b, unrelated], [b]).conflicts).toHaveLength(1);
  });

  it('raises a conflict instead of settling again a fact a human restored', () => {
    const b = fact('Cache TTL is 600 seconds', { scope: 'cache', agent: 'agent-a', hoursAgo: 2.85 });
    const a = fact('Cache TTL is 300 seconds', { scope: 'cache', agent: 'agent-a', hoursAgo: 3, retired_by: 'restored', retired_for_fact_id: b.id });
    const { conflicts, retirements } = analyze([a, b]);
    expect(retirements).toEqual([]);
    expect(conflicts).toHaveLength(1);
  });

  it('asks which fact is right, naming the values in the order the facts are listed (oldest first)', () => {
    const question = (older: string, newer: string, scope: string) =>
      analyze([fact(older, { scope, hoursAgo: 48 }), fact(newer, { scope, hoursAgo: 24 })]).conflicts[0]?.question;
    expect(question('The auth service uses JWT tokens', 'The auth service does not use JWT tokens', 'auth')).toBe(
      'Which is right now: auth uses JWT, or it does not?',
    );
    expect(question('Debug mode is enabled in production', 'Debug mode is disabled in production', 'config')).toBe(
      'Which is right now: debug mode in prod is enabled, or disabled?',
    );
    expect(question('Deployment target is us-east-1', 'Deployment target is eu-west-1', 'deploy')).toBe(
      'Which is the deployment target now: us-east-1 or eu-west-1?',
    );
  });

  it('reads triggers that share a slot together, and the others one at a time, in their order', () => {
    const a = fact('The cache TTL of the auth service is 300 seconds', { scope: 'auth', hoursAgo: 3 });
    const deploys = fact('Deploys run on Fridays after the release train', { scope: 'ops', hoursAgo: 2 });
    const b = fact('The cache TTL of the auth service is 600 seconds', { scope: 'auth', hoursAgo: 1 });
    const groups = groupBySharedSlots([a, deploys, b]);
    expect(groups.map((g) => g.map((f) => f.id))).toEqual([[a.id, b.id], [deploys.id]]);
  });
});
