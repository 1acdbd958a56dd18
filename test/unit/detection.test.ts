/**
 * The deterministic tiers as pure functions: which timelines settle (only what cannot be a
 * mistake), which raise a probable update for people to confirm, which conflict, and how. The
 * sentences are made up for these tests; the eval sets measure the same behaviour on facts
 * written by others.
 */
import {
  analysisSteps,
  analyzeSlots,
  analyzeStatements,
  mergeOutcomes,
  matchKeysOf,
  probeKeysOf,
  withAnnouncedUpdates,
  candidatesOf,
  readFact,
  familyOf,
  groupBySharedSlots,
  indexingSteps,
  indexSlots,
  sameThing,
  viewOf,
  type Claim,
  type SlotIndex,
} from '@engram/core';
import type { ConflictRecord, DetectorFact } from '@engram/db';
import { describe, expect, it } from 'vitest';
import { detectorFact } from '../support/detector-facts.ts';

const fact = detectorFact;

/** Runs the tiers over values with every fact as a trigger (as a burst of commits would). */
const analyze = (facts: DetectorFact[], triggers = facts) => analyzeSlots(facts, new Set(triggers.map((f) => f.id)));

/** Both tiers (values and statements), every fact a trigger. */
function analyzeAll(facts: DetectorFact[]) {
  const ids = new Set(facts.map((f) => f.id));
  const slots = analyzeSlots(facts, ids);
  const statements = analyzeStatements(facts, ids);
  return withAnnouncedUpdates({ retirements: [...slots.retirements, ...statements.retirements], conflicts: [...slots.conflicts, ...statements.conflicts] }, facts, ids);
}

const retired = (outcome: { retirements: { factId: string }[] }) => outcome.retirements.map((r) => r.factId);
const pairs = (conflicts: readonly ConflictRecord[]) => conflicts.map((c) => [c.kind, new Set(c.factIds)]);
/** A claim's identity within a run: its fact and its place in the fact. */
const idOf = (c: Claim) => `${c.fact.id}/${c.index}`;
/** Claims detection compares: those stating a value or naming one as replaced. */
const claimsOf = (facts: readonly DetectorFact[]) => facts.flatMap((f) => viewOf(f).claims).filter((c) => c.values.length > 0 || (c.previous?.length ?? 0) > 0);

describe('finding the claims to compare', () => {
  it('meets, in a crowded measure, every claim about the same thing as a trigger, and not every claim of that measure', () => {
    const services = ['invoice', 'geo', 'quote', 'loyalty', 'parcel', 'fx', 'coupon', 'voucher', 'avatar', 'sitemap', 'thumbnail', 'webhook'];
    // Each service's consumers said five ways: named in the text, or only by the fact's scope.
    const said = [
      (s: string, n: number) => [`${s}-svc runs ${n} worker threads`, 'platform'],
      (s: string, n: number) => [`The ${s}-svc consumer concurrency is ${n}`, 'platform'],
      (s: string, n: number) => [`Worker threads in ${s}-svc: ${n}`, 'runtime'],
      (s: string, n: number) => [`The service runs ${n} worker threads`, `${s}-svc`],
      (s: string, n: number) => [`Consumer concurrency is ${n}`, s],
    ];
    const facts = services.flatMap((s, i) =>
      said.map((say, j) => {
        const [content, scope] = say(s, 4 + ((i + j) % 5) * 4);
        return fact(content!, { scope: scope!, hoursAgo: 100 + i * 7 + j });
      }),
    );
    const claims = claimsOf(facts);
    expect(claims).toHaveLength(facts.length);
    const index = indexSlots(facts);
    const peersOf = (t: Claim, among: readonly Claim[]) => among.filter((c) => c === t || sameThing(t, c)).map(idOf);
    let fewer = 0;
    for (const t of claims) {
      const met = [...candidatesOf(t, index)];
      // Exactly the claims about the same thing that checking every claim finds.
      expect(new Set(peersOf(t, met))).toEqual(new Set(peersOf(t, claims)));
      const sameMeasure = claims.filter((c) => familyOf(c.kind) === familyOf(t.kind) && c.measure === t.measure);
      if (met.length < sameMeasure.length) fewer++;
    }
    // Not vacuous: a service's claims, however phrased, are about one thing.
    expect(claims.filter((t) => peersOf(t, claims).length >= 3).length).toBeGreaterThan(services.length);
    expect(fewer).toBeGreaterThan(claims.length / 2);
  });

  it('builds the index in steps that pause between them, and the steps build the same index as one piece', () => {
    const facts = Array.from({ length: 1_200 }, (_, i) =>
      fact(i % 2 ? `The shard${i % 90}-svc worker pool runs ${4 + (i % 7)} threads` : `Thread pool size is ${8 + (i % 5)} threads`, {
        scope: i % 2 ? 'platform' : `shard${i % 90}`,
        hoursAgo: 2_000 - i,
      }),
    );
    const whole = indexSlots(facts);
    const steps = indexingSteps(facts);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    const named = (index: SlotIndex) => [...index.byKey].map(([k, claims]) => [k, claims.map(idOf)]);
    expect(named(step.value)).toEqual(named(whole));
    // One claim per fact, a pause every 500 claims.
    expect(new Set([...whole.byKey.values()].flat()).size).toBe(1_200);
    expect(pauses).toBe(2);
  });

  it('analyses triggers of a crowded measure in steps that pause, with the outcome of one piece', () => {
    // 2,400 shards' pools in one scope: every one shares the trigger's keys, none is the same pool.
    const crowd = Array.from({ length: 2_400 }, (_, i) => fact(`The worker pool of shard-${i} runs ${4 + (i % 9)} threads`, { scope: 'ranking', hoursAgo: 3_000 - i }));
    const before = fact('The ranking worker pool runs 16 threads', { scope: 'ranking', hoursAgo: 500 });
    const trigger = fact('The ranking worker pool runs 8 threads', { scope: 'ranking', hoursAgo: 1 });
    const facts = [...crowd, before, trigger];
    const index = indexSlots(facts);
    // Three triggers, each meeting every pool of the crowd.
    const triggers = [crowd[7]!, crowd[1_500]!, trigger];
    for (const t of triggers) expect(candidatesOf(viewOf(t).claims[0]!, index).size).toBeGreaterThan(2_400);
    const ids = new Set(triggers.map((t) => t.id));
    const steps = analysisSteps(facts, ids, index);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    // A pause at least once for each trigger that meets more than a thousand claims.
    expect(pauses).toBeGreaterThanOrEqual(triggers.length);
    const whole = analyzeSlots(facts, ids, index);
    const named = (o: typeof whole) => ({ conflicts: o.conflicts.map((c) => [c.kind, [...c.factIds].sort()]), retirements: o.retirements.map((r) => [r.factId, r.byFactId]) });
    expect(named(step.value)).toEqual(named(whole));
    expect(named(whole)).toEqual({ conflicts: [['value_mismatch', [before.id, trigger.id].sort()]], retirements: [] });
  });

  it('only reads the timelines its trigger facts touch', () => {
    const a = fact('The thumbnail-svc job retry limit is 3 attempts', { scope: 'media', hoursAgo: 48 });
    const b = fact('The thumbnail-svc job retry limit is 8 attempts', { scope: 'media', hoursAgo: 24 });
    const unrelated = fact('The handbook site is generated with Hugo', { scope: 'docs', hoursAgo: 1 });
    expect(analyze([a, b, unrelated], [unrelated])).toMatchObject({ conflicts: [], retirements: [] });
    expect(pairs(analyze([a, b, unrelated], [b]).conflicts)).toEqual([['value_mismatch', new Set([a.id, b.id])]]);
  });

  it('reads triggers that share a slot together, and the others one at a time, in their order', () => {
    const a = fact('The session cache TTL of the quote-engine is 300 seconds', { scope: 'quotes', hoursAgo: 3 });
    const deploys = fact('Deploys are frozen on Fridays after the release cut', { scope: 'ops', hoursAgo: 2 });
    const b = fact('The session cache TTL of the quote-engine is 600 seconds', { scope: 'quotes', hoursAgo: 1 });
    expect(groupBySharedSlots([a, deploys, b]).map((g) => g.map((f) => f.id))).toEqual([[a.id, b.id], [deploys.id]]);
  });
});

describe('settling: only what cannot be a mistake', () => {
  it('settles a correction in the same lineage, whoever wrote it and however late', () => {
    const a = fact('The geo-lookup cache holds 5000 entries', { scope: 'geo', agent: 'agent-a', hoursAgo: 400 });
    const b = fact('The geo-lookup cache holds 8000 entries', { scope: 'geo', agent: 'agent-b', hoursAgo: 2, lineage_id: a.lineage_id });
    const outcome = analyze([a, b]);
    expect(outcome.conflicts).toEqual([]);
    expect(outcome.retirements).toEqual([{ factId: a.id, byFactId: b.id, at: b.committed_at, reason: 'the later fact corrects its lineage' }]);
  });

  it.each([
    ['from X to Y', 'We raised the loyalty-api connection pool size from 20 to 40'],
    ['now Y (was X)', 'The loyalty-api connection pool size is now 40 (was 20)'],
    ['Y instead of X', 'The loyalty-api connection pool size is 40 instead of 20'],
    ['Y, up from X', 'The loyalty-api connection pool size is now 40, up from 20'],
  ])('settles a later fact that replaces the older value explicitly (%s)', (_, later) => {
    const older = fact('The loyalty-api connection pool size is 20', { scope: 'loyalty', hoursAgo: 300 });
    const newer = fact(later, { scope: 'loyalty', hoursAgo: 10 });
    const outcome = analyze([older, newer]);
    expect(outcome.conflicts).toEqual([]);
    expect(outcome.retirements).toEqual([{ factId: older.id, byFactId: newer.id, at: newer.committed_at, reason: 'the later fact names this value as the one it replaces' }]);
  });

  it.each([
    ['replaced X with Y', 'The parcel-tracker replaced RabbitMQ with Kafka as its message broker'],
    ['Y instead of X', 'The parcel-tracker now uses Kafka instead of RabbitMQ as its message broker'],
    ['now Y (was X)', 'The parcel-tracker message broker is now Kafka (was RabbitMQ)'],
  ])('settles an explicit replacement of a technology (%s)', (_, later) => {
    const older = fact('The parcel-tracker uses RabbitMQ as its message broker', { scope: 'shipping', hoursAgo: 900 });
    const newer = fact(later, { scope: 'shipping', hoursAgo: 100 });
    expect(analyze([older, newer])).toMatchObject({ conflicts: [], retirements: [{ factId: older.id, byFactId: newer.id }] });
  });

  it('meets two values of one setting key whatever measure the words around them suggest', () => {
    const a = fact('`log_retention_period = 14` for every Redis instance.', { scope: 'infra/redis', agent: 'agent-a', hoursAgo: 300 });
    const b = fact('Redis logs are retained 30 days (`log_retention_period = 30`).', { scope: 'infra/redis', agent: 'agent-b', hoursAgo: 200 });
    expect(pairs(analyze([a, b]).conflicts)).toEqual([['value_mismatch', new Set([a.id, b.id])]]);
  });

  it('settles an agent restating its own value within 30 minutes, but not later, and not another agent', () => {
    const a = fact('The sitemap crawler timeout is 300 seconds', { scope: 'seo', agent: 'agent-a', hoursAgo: 3 });
    const b = fact('The sitemap crawler timeout is 600 seconds', { scope: 'seo', agent: 'agent-a', hoursAgo: 3 - 20 / 60 });
    const settled = analyze([a, b]);
    expect(settled.conflicts).toEqual([]);
    expect(settled.retirements).toEqual([{ factId: a.id, byFactId: b.id, at: b.committed_at, reason: 'the same agent refined its own note within a working session' }]);

    const later = fact('The sitemap crawler timeout is 600 seconds', { scope: 'seo', agent: 'agent-a', hoursAgo: 3 - 40 / 60 });
    expect(analyze([a, later])).toMatchObject({ retirements: [], conflicts: [{ kind: 'value_mismatch' }] });
    const other = fact('The sitemap crawler timeout is 600 seconds', { scope: 'seo', agent: 'agent-b', hoursAgo: 3 - 20 / 60 });
    expect(analyze([a, other])).toMatchObject({ retirements: [], conflicts: [{ kind: 'value_mismatch' }] });
  });

  it.each([
    ['a plan', 'Next quarter we will raise the loyalty-api connection pool size from 20 to 40'],
    ['a plan in progress', 'We are planning to raise the loyalty-api connection pool size from 20 to 40'],
    ['a conditional', 'If the soak test passes, we raise the loyalty-api connection pool size from 20 to 40'],
  ])('never settles by %s, and raises nothing either', (_, later) => {
    const older = fact('The loyalty-api connection pool size is 20', { scope: 'loyalty', hoursAgo: 300 });
    const newer = fact(later, { scope: 'loyalty', hoursAgo: 10 });
    expect(analyze([older, newer])).toMatchObject({ retirements: [], conflicts: [] });
  });

  it('never settles by a plan or a conditional of the same agent within 30 minutes', () => {
    const older = fact('The loyalty-api connection pool size is 20', { scope: 'loyalty', agent: 'agent-a', hoursAgo: 1 });
    const plan = fact('We plan to raise the loyalty-api connection pool size to 40', { scope: 'loyalty', agent: 'agent-a', hoursAgo: 0.9 });
    const conditional = fact('If traffic doubles, the loyalty-api connection pool size goes to 40', { scope: 'loyalty', agent: 'agent-a', hoursAgo: 0.9 });
    expect(analyze([older, plan])).toMatchObject({ retirements: [], conflicts: [] });
    expect(analyze([older, conditional])).toMatchObject({ retirements: [], conflicts: [] });
  });

  it('never settles by the same agent within 30 minutes when either note is a plan or a question in some clause', () => {
    const older = fact('The thumbnail worker batch size is 200', { scope: 'media', agent: 'agent-a', hoursAgo: 1 });
    const hedged = fact('The thumbnail worker batch size is 500, while we evaluate a queue-based design', { scope: 'media', agent: 'agent-a', hoursAgo: 0.9 });
    expect(analyze([older, hedged]).retirements).toEqual([]);
    const asking = fact('The thumbnail worker batch size is 500, can you check the memory use?', { scope: 'media', agent: 'agent-a', hoursAgo: 0.9 });
    expect(analyze([older, asking])).toMatchObject({ retirements: [], conflicts: [] });
  });

  it('compares no two bare figures or times of a scope that name nothing: list lines are many things', () => {
    const first = fact('- 14:00: "Kiosk demo"', { scope: 'events', agent: 'agent-a', hoursAgo: 1 });
    const second = fact('- 19:00: "Release party"', { scope: 'events', agent: 'agent-a', hoursAgo: 0.9 });
    expect(analyze([first, second])).toMatchObject({ retirements: [], conflicts: [] });
    const one = fact('= 120.', { scope: 'notes', agent: 'agent-a', hoursAgo: 1 });
    const other = fact('It is 3.', { scope: 'notes', agent: 'agent-a', hoursAgo: 0.9 });
    expect(analyze([one, other])).toMatchObject({ retirements: [], conflicts: [] });
  });

  it('never settles across environments, even by an explicit replacement or the same agent', () => {
    const prod = fact('The loyalty-api connection pool size is 20 in production', { scope: 'loyalty', agent: 'agent-a', hoursAgo: 300 });
    const staging = fact('In staging we raised the loyalty-api connection pool size from 20 to 40', { scope: 'loyalty', agent: 'agent-b', hoursAgo: 10 });
    expect(analyze([prod, staging])).toMatchObject({ retirements: [], conflicts: [] });
    const a = fact('The loyalty-api connection pool size is 20 in production', { scope: 'loyalty', agent: 'agent-a', hoursAgo: 1 });
    const b = fact('The loyalty-api connection pool size is 40 in staging', { scope: 'loyalty', agent: 'agent-a', hoursAgo: 0.9 });
    expect(analyze([a, b])).toMatchObject({ retirements: [], conflicts: [] });
  });

  it('takes a hosting platform and a serverless runtime as answers to one question: where a thing runs', () => {
    const older = fact('The admin dashboard is deployed to Netlify', { scope: 'apps/admin', hoursAgo: 300 });
    const moved = fact('The admin dashboard moved over to Cloud Run behind the shared load balancer', { scope: 'apps/admin', hoursAgo: 10 });
    expect(analyzeAll([older, moved]).conflicts).toMatchObject([{ kind: 'probable_update', factIds: [older.id, moved.id] }]);
  });

  it('asks whether the older value still holds when a change is announced without naming it', () => {
    const older = fact('The loyalty-api connection pool size is 20', { scope: 'loyalty', hoursAgo: 300 });
    const bumped = fact('We raised the loyalty-api connection pool size to 40', { scope: 'loyalty', hoursAgo: 10 });
    const outcome = analyze([older, bumped]);
    expect(outcome.retirements).toEqual([]);
    expect(outcome.conflicts).toHaveLength(1);
    expect(outcome.conflicts[0]).toMatchObject({ kind: 'probable_update', detectedBy: 'tier2_numeric', severity: 'medium', factIds: [older.id, bumped.id] });
    expect(outcome.conflicts[0]!.question).toBe('Probable update: is the pool of loyalty-api still 20, or is 40 now, as a later fact says?');

    const broker = fact('The parcel-tracker uses RabbitMQ as its message broker', { scope: 'shipping', hoursAgo: 900 });
    const moved = fact('The parcel-tracker moved its message broker to Kafka', { scope: 'shipping', hoursAgo: 100 });
    expect(analyze([broker, moved])).toMatchObject({
      retirements: [],
      conflicts: [{ kind: 'probable_update', factIds: [broker.id, moved.id], question: 'Probable update: is the message broker of parcel-tracker still RabbitMQ, or is Kafka now, as a later fact says?' }],
    });
  });

  it('keeps asking the probable update when a still later fact agrees with the change, rather than flagging the old fact', () => {
    const older = fact('The ledger worker image builds on Python 3.11', { scope: 'ledger', hoursAgo: 900 });
    const upgraded = fact('Upgraded the ledger worker image to Python 3.12', { scope: 'ledger', hoursAgo: 300 });
    const agrees = fact('The ledger worker image builds on Python 3.12.4', { scope: 'ledger', hoursAgo: 10 });
    const outcome = analyze([older, upgraded, agrees]);
    expect(outcome.retirements).toEqual([]);
    expect(pairs(outcome.conflicts)).toEqual([['probable_update', new Set([older.id, upgraded.id])]]);
  });

  it('asks a later value of one setting key, a week or more on in its scope, as a probable update, not as a disagreement', () => {
    const older = fact('Export batch cap: `EXPORT_BATCH_ROWS=500`.', { scope: 'data/export', hoursAgo: 900 });
    const later = fact('Export batch size is `EXPORT_BATCH_ROWS=2000`; smaller batches starved the writer.', { scope: 'data/export', hoursAgo: 200 });
    expect(pairs(analyze([older, later]).conflicts)).toEqual([['probable_update', new Set([older.id, later.id])]]);
    // A day apart, two current facts disagree; so do two scopes, each setting its own.
    const sameDay = fact('Export batch size is `EXPORT_BATCH_ROWS=2000`; smaller batches starved the writer.', { scope: 'data/export', hoursAgo: 880 });
    expect(analyze([older, sameDay]).conflicts.map((c) => c.kind)).toEqual(['value_mismatch']);
    const elsewhere = fact('Export batch size is `EXPORT_BATCH_ROWS=2000`; smaller batches starved the writer.', { scope: 'data/import', hoursAgo: 200 });
    expect(analyze([older, elsewhere]).conflicts.map((c) => c.kind)).not.toContain('probable_update');
    // The key read beside the figure in words too ("20 minutes (`KEY=20`)"): the one question, not "which is right?" as well.
    const idle = fact('Kiosk idle logout: 20 minutes (`KIOSK_IDLE_MIN=20`).', { scope: 'apps/kiosk', hoursAgo: 900 });
    const shorter = fact('Kiosk idle logout is 10 minutes; `KIOSK_IDLE_MIN=10` shipped Tuesday.', { scope: 'apps/kiosk', hoursAgo: 200 });
    expect(analyze([idle, shorter]).conflicts.map((c) => c.kind)).toEqual(['probable_update']);
  });

  it('links a replacement naming its old value and no measure to the fact of its scope stating that value, whatever measure it read', () => {
    const older = fact('`ledger export --target prod` runs daily at 02:00 UTC from the Airflow DAG `ledger_daily`.', { scope: 'data/ledger', hoursAgo: 900 });
    const moved = fact('Moved `ledger_daily` from 02:00 to 03:30 UTC: the 02:00 run kept racing the nightly backup.', { scope: 'data/ledger', hoursAgo: 100 });
    expect(analyze([older, moved]).conflicts.map((c) => [c.kind, c.factIds])).toEqual([['probable_update', [older.id, moved.id]]]);
    // Not a bare count: many things of a scope hold a 2.
    const replicas = fact('ledger-api runs 2 replicas', { scope: 'data/ledger', hoursAgo: 900 });
    expect(analyze([replicas, fact('Cut it from 2 to 1', { scope: 'data/ledger', hoursAgo: 100 })]).conflicts).toEqual([]);
  });

  it('does not ask a fact of one environment about a change in another, whatever environment the change\'s date sits near', () => {
    const prod = fact('Prod EKS node groups: `general` (m7i.xlarge, 6–30 nodes), `batch` (c6i.2xlarge, 3–12).', { scope: 'infra/terraform', hoursAgo: 900 });
    const staging = fact('Staging EKS `acme-staging` was upgraded to Kubernetes 1.30 on Oct 30 as the dress rehearsal for prod.', { scope: 'infra/terraform', hoursAgo: 100 });
    expect(analyzeAll([prod, staging]).conflicts).toEqual([]);
  });

  it('compares a setting beside a component both name whatever config file one names, and asks it as the change its fact names', () => {
    const older = fact('`thumb-worker` autoscaling in `values-prod.yaml`: `maxReplicas: 40`, scaled on queue depth.', { scope: 'infra/helm', hoursAgo: 330 });
    const newer = fact('Prod thumb-worker HPA caps at 24 replicas (`autoscaling.maxReplicas: 24`).', { scope: 'infra/helm', hoursAgo: 310 });
    expect(analyze([older, newer]).conflicts.map((c) => c.kind)).toEqual(['value_mismatch']);
    // In two services' files, two settings.
    const api = fact('Request timeout is 30 s in `api.yaml`', { scope: 'infra/helm', hoursAgo: 330 });
    expect(analyze([api, fact('Request timeout is 60 s in `worker.yaml`', { scope: 'infra/helm', hoursAgo: 310 })]).conflicts).toEqual([]);
    // The key's figure in parentheses changes with the clause that names the old value.
    const ping = fact('The driver app sends a location ping every 15 seconds (`PING_INTERVAL_S=15` in `src/config/tracking.ts`).', { scope: 'mobile', hoursAgo: 900 });
    const faster = fact('Location ping interval: 15s → 10s (`PING_INTERVAL_S=10`), shipping with app 4.8.0.', { scope: 'mobile', hoursAgo: 100 });
    expect(analyze([ping, faster]).conflicts.map((c) => c.kind)).not.toContain('value_mismatch');
  });

  it('does not ask about another setting that happened to hold the replaced value', () => {
    const threads = fact('`ledger-worker` sets `DRAIN_SECONDS=8`; its `terminationGracePeriodSeconds` is 12 so nothing is killed mid-drain.', { scope: 'ledger', hoursAgo: 300 });
    const depth = fact('Raised `QUEUE_DEPTH` for `ledger-worker` in production from 8 to 16 per pod.', { scope: 'ledger', hoursAgo: 10 });
    expect(analyze([threads, depth]).conflicts).toEqual([]);
  });

  it('asks, rather than flags an ambiguity, when another clause of the later fact announces the change', () => {
    const older = fact('The thumbnailer runs as an AWS Lambda function', { scope: 'media', hoursAgo: 600 });
    const moved = fact('The thumbnailer no longer runs on Lambda; it is a container on ECS Fargate', { scope: 'media', hoursAgo: 40 });
    const outcome = analyzeAll([older, moved]);
    expect(outcome.retirements).toEqual([]);
    // Both tiers ask (the run records one conflict per fact set); neither calls it an ambiguity.
    expect(new Set(outcome.conflicts.map((c) => `${c.kind} ${c.factIds.join(' ')}`))).toEqual(new Set([`probable_update ${older.id} ${moved.id}`]));
  });

  it('asks about every value a later fact restates when one of its clauses announces a change', () => {
    const a = fact('Quote webhook: endpoint `/hooks/quote`, retried 3 times with 10s backoff.', { scope: 'quotes', hoursAgo: 900 });
    const b = fact('The quote webhook is now `/api/hooks/quote/v2`, and retried 6 times with 4s backoff.', { scope: 'quotes', hoursAgo: 10 });
    const kinds = analyzeAll([a, b]).conflicts.map((c) => c.kind);
    expect(kinds.length).toBeGreaterThan(0);
    expect(new Set(kinds)).toEqual(new Set(['probable_update']));
  });

  it('asks, rather than settles, when a later fact corrects the record without naming the old value', () => {
    const older = fact('The coupon-api burst limit is 500 req/s', { scope: 'coupons', hoursAgo: 48 });
    const actually = fact('The coupon-api burst limit is actually 900 req/s', { scope: 'coupons', hoursAgo: 24 });
    expect(analyze([older, actually])).toMatchObject({ retirements: [], conflicts: [{ kind: 'probable_update', factIds: [older.id, actually.id] }] });
  });

  it('asks which holds, rather than retiring, a fact stating several things when one of them is replaced', () => {
    const both = fact('The loyalty-api connection pool size is 20 and its request timeout is 30 seconds', { scope: 'loyalty', agent: 'agent-a', hoursAgo: 300 });
    const pool = fact('We raised the loyalty-api connection pool size from 20 to 40', { scope: 'loyalty', agent: 'agent-b', hoursAgo: 10 });
    expect(analyze([both, pool])).toMatchObject({ retirements: [], conflicts: [{ kind: 'probable_update', factIds: [both.id, pool.id] }] });
    // The same agent restating one of them within 30 minutes does not retire the other either.
    const soon = fact('The loyalty-api connection pool size is 40', { scope: 'loyalty', agent: 'agent-a', hoursAgo: 300 - 10 / 60 });
    expect(analyze([both, soon])).toMatchObject({ retirements: [], conflicts: [{ kind: 'probable_update', factIds: [both.id, soon.id] }] });
  });

  it('does not settle a later value because an earlier fact meant to change it', () => {
    const slow = fact('The contract-test suite takes 40 minutes; we want to bring it down', { scope: 'ci', agent: 'agent-a', hoursAgo: 72 });
    const faster = fact('The contract-test suite takes 25 minutes', { scope: 'ci', agent: 'agent-b', hoursAgo: 20 });
    expect(analyze([slow, faster])).toMatchObject({ retirements: [], conflicts: [{ kind: 'value_mismatch' }] });
    const before = fact('Branch coverage of the tariff package is 62%', { scope: 'pricing', agent: 'agent-a', hoursAgo: 100 });
    const goal = fact('The goal is to raise branch coverage of the tariff package to 85% this quarter', { scope: 'pricing', agent: 'agent-c', hoursAgo: 90 });
    const progress = fact('Branch coverage of the tariff package is 71%', { scope: 'pricing', agent: 'agent-b', hoursAgo: 20 });
    const outcome = analyze([before, goal, progress]);
    expect(outcome.retirements).toEqual([]);
    expect(pairs(outcome.conflicts)).toEqual([['value_mismatch', new Set([before.id, progress.id])]]);
  });

  it('raises a conflict instead of settling again a fact a person restored', () => {
    const b = fact('The sitemap crawler timeout is 600 seconds', { scope: 'seo', agent: 'agent-a', hoursAgo: 2.85 });
    const a = fact('The sitemap crawler timeout is 300 seconds', { scope: 'seo', agent: 'agent-a', hoursAgo: 3, retired_by: 'restored', retired_for_fact_id: b.id });
    const { conflicts, retirements } = analyze([a, b]);
    expect(retirements).toEqual([]);
    // Within the agent's session, the later value still probably updates the earlier one: people are asked.
    expect(pairs(conflicts)).toEqual([['probable_update', new Set([a.id, b.id])]]);
  });
});

describe('conflicts between current facts', () => {
  it('flags two agents stating different values for one thing, with a question naming both, oldest first', () => {
    const a = fact('The fx-rates feed timeout is 20 seconds', { scope: 'fx', hoursAgo: 50 });
    const b = fact('The fx-rates feed timeout is 45 seconds', { scope: 'fx', hoursAgo: 26 });
    const { conflicts, retirements } = analyze([a, b]);
    expect(retirements).toEqual([]);
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ kind: 'value_mismatch', detectedBy: 'tier2_numeric', severity: 'high' });
    expect(new Set(conflicts[0]!.factIds)).toEqual(new Set([a.id, b.id]));
    expect(conflicts[0]!.question).toBe('Which is the timeout of fx-rates feed now: 20 seconds or 45 seconds?');
  });

  it('does not flag values that agree once units are normalized', () => {
    const a = fact('The avatar-cdn signed URLs stay valid for 1 hour', { scope: 'media', hoursAgo: 48 });
    const b = fact('The avatar-cdn signed URL lifetime is 3600 seconds', { scope: 'media', hoursAgo: 24 });
    expect(analyze([a, b])).toMatchObject({ conflicts: [], retirements: [] });
    const c = fact('The thumbnail-svc heap limit is 1 GiB', { scope: 'media', hoursAgo: 48 });
    const d = fact('The thumbnail-svc heap limit is 1024 MiB', { scope: 'media', hoursAgo: 24 });
    expect(analyze([c, d])).toMatchObject({ conflicts: [], retirements: [] });
  });

  it('asks which fact is right, naming the values in the order the facts are listed (oldest first)', () => {
    const question = (older: string, newer: string, scope: string) => analyze([fact(older, { scope, hoursAgo: 48 }), fact(newer, { scope, hoursAgo: 24 })]).conflicts[0]?.question;
    expect(question('Maintenance mode is enabled in production', 'Maintenance mode is disabled in production', 'storefront')).toBe('Which is maintenance mode in prod now: enabled or disabled?');
    expect(question('Maintenance mode is disabled in production', 'Maintenance mode is enabled in production', 'storefront')).toBe('Which is maintenance mode in prod now: disabled or enabled?');
    expect(question('The fx-rates feed timeout is 45 seconds', 'The fx-rates feed timeout is 20 seconds', 'fx')).toBe('Which is the timeout of fx-rates feed now: 45 seconds or 20 seconds?');
    expect(question('The voucher archive bucket lives in ap-south-1', 'The voucher archive bucket lives in sa-east-1', 'vouchers')).toMatch(/ now: ap-south-1 or sa-east-1\?$/);
  });

  it('calls A → B → A a reversal, keeps the earlier side current, and asks about it as when the change came', () => {
    const a = fact('The partner API of the quote-engine uses SOAP', { scope: 'quotes', hoursAgo: 720 });
    const b = fact('We switched the partner API of the quote-engine to gRPC', { scope: 'quotes', hoursAgo: 480 });
    const c = fact('The quote-engine partner API speaks SOAP', { scope: 'quotes', hoursAgo: 48 });
    const { conflicts, retirements } = analyze([a, b, c]);
    expect(retirements).toEqual([]);
    expect(conflicts.map((x) => x.kind)).toEqual(['reversal', 'probable_update']);
    expect(conflicts[0]).toMatchObject({ detectedBy: 'narrative_rules' });
    expect(new Set(conflicts[0]!.factIds)).toEqual(new Set([a.id, b.id, c.id]));
    expect(conflicts[0]!.question).toBe('Which is the API style of quote-engine partner now: gRPC or SOAP? The team had moved from SOAP to gRPC, and the latest fact says SOAP again.');
    // The switch's own question, whether the first fact still holds, is asked in one run as it is
    // when the switch is committed before the return: a reversal through the pair does not ask it.
    expect(conflicts[1]!.factIds).toEqual([a.id, b.id]);
    const stepwise = [analyze([a, b], [b]).conflicts, analyze([a, b, c], [c]).conflicts].flat();
    expect(stepwise.map((x) => [x.kind, new Set(x.factIds)])).toEqual(conflicts.map((x) => [x.kind, new Set(x.factIds)]).reverse());
  });

  it('finds a reversal when the return says the version and then, after ", so", what follows from it', () => {
    const a = fact('The quote-api service builds on Go 1.21', { scope: 'quotes', hoursAgo: 900 });
    const b = fact('Bumped the quote-api service to Go 1.22 last sprint', { scope: 'quotes', hoursAgo: 480 });
    const c = fact('The quote-api runtime is Go 1.21, so don\'t reach for `iter-helpers` there', { scope: 'quotes', hoursAgo: 20 });
    const kinds = analyzeAll([a, b, c]).conflicts.filter((x) => x.factIds.includes(b.id) && x.factIds.includes(c.id)).map((x) => x.kind);
    expect(kinds).toEqual(['reversal']);
  });

  it('reads a word of the measure itself as naming nothing else ("build pipelines" of the CI system)', () => {
    const a = fact('Continuous integration runs on Jenkins', { scope: 'ci', hoursAgo: 900 });
    const b = fact('CI moved to Buildkite', { scope: 'ci', hoursAgo: 400 });
    const c = fact('Build pipelines are defined in ci/pipelines.yml and run on Jenkins', { scope: 'ci', hoursAgo: 10 });
    const [ca, cb, cc] = [a, b, c].map((x) => viewOf(x).claims.find((claim) => claim.kind === 'technology')!);
    expect(sameThing(cb!, cc!)).toBe(true);
    expect(sameThing(ca!, cc!)).toBe(true);
    const reversal = analyzeAll([a, b, c]).conflicts.find((x) => x.kind === 'reversal');
    expect(new Set(reversal?.factIds)).toEqual(new Set([a.id, b.id, c.id]));
    // A word that is not the measure's still names another thing: the mobile app's CI is not the team's.
    const mobile = fact('Mobile builds are defined in mobile/ci.yml and run on CircleCI', { scope: 'ci', hoursAgo: 5 });
    expect(sameThing(cb!, viewOf(mobile).claims.find((claim) => claim.kind === 'technology')!)).toBe(false);
  });

  it('calls a value an explicit replacement left, said again later, a reversal; the fact it replaced stays replaced', () => {
    const a = fact('The parcel-tracker uses RabbitMQ as its message broker', { scope: 'shipping', hoursAgo: 900 });
    const b = fact('The parcel-tracker replaced RabbitMQ with Kafka as its message broker', { scope: 'shipping', hoursAgo: 100 });
    const c = fact('The parcel-tracker uses RabbitMQ as its message broker again', { scope: 'shipping', hoursAgo: 5 });
    const all = analyze([a, b, c]);
    // The replacement named a's own value: a is settled. Whether the team went back is the reversal's question, which tells the whole story.
    expect(retired(all)).toEqual([a.id]);
    expect(all.conflicts).toHaveLength(1);
    expect(all.conflicts[0]).toMatchObject({ kind: 'reversal', factIds: [a.id, b.id, c.id] });
    expect(all.conflicts[0]!.question).toBe(
      'Which is the message broker of parcel-tracker now: Kafka or RabbitMQ? The team had moved from RabbitMQ to Kafka, and the latest fact says RabbitMQ again.',
    );
  });

  it('calls an old version claim outliving another by a week stale, and a younger one a mismatch; a later, higher one an upgrade', () => {
    const old = fact('The invoice-renderer runs on Node 22', { scope: 'billing', hoursAgo: 4_000 });
    const recent = fact('The invoice-renderer container is built on Node 18', { scope: 'billing', hoursAgo: 50 });
    const stale = analyze([old, recent]).conflicts;
    expect(stale).toHaveLength(1);
    expect(stale[0]).toMatchObject({ kind: 'stale', detectedBy: 'narrative_rules', severity: 'medium', question: 'Which is the version of node now: 22 or 18? The 22 fact was never updated.' });
    const days = fact('The invoice-renderer runs on Node 22', { scope: 'billing', hoursAgo: 100 });
    expect(analyze([days, recent]).conflicts[0]).toMatchObject({ kind: 'value_mismatch', severity: 'high' });
    const upgraded = fact('The invoice-renderer container is built on Node 24', { scope: 'billing', hoursAgo: 50 });
    expect(analyze([old, upgraded]).conflicts.map((c) => [c.kind, c.factIds])).toEqual([['probable_update', [old.id, upgraded.id]]]);
  });

  it('calls a disagreement across scopes cross_scope, naming each scope', () => {
    const a = fact('The fx-rates feed timeout is 20 seconds', { scope: 'fx', hoursAgo: 100 });
    const b = fact('The fx-rates feed timeout is 45 seconds', { scope: 'platform', hoursAgo: 50 });
    const { conflicts } = analyze([a, b]);
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ kind: 'cross_scope', detectedBy: 'tier2b_cross_scope' });
    expect(conflicts[0]!.question).toContain('20 seconds (as scope "fx" says) or 45 seconds (as scope "platform" says)');
  });

  it('keeps environments, components and measures apart, but an unqualified claim meets a qualified one', () => {
    const none = { conflicts: [], retirements: [] };
    const two = (a: string, b: string, scope = 'svc') => analyze([fact(a, { scope, hoursAgo: 48 }), fact(b, { scope, hoursAgo: 24 })]);
    expect(two('The coupon-api listens on port 8080 in production', 'The coupon-api listens on port 9090 in staging')).toMatchObject(none);
    expect(two('The coupon-api request timeout is 30 seconds', 'The voucher-api request timeout is 45 seconds')).toMatchObject(none);
    expect(two('The coupon-api request timeout is 30 seconds', 'The coupon-api retry backoff is 45 seconds')).toMatchObject(none);
    expect(two('The coupon-api timeout is 30 seconds', 'The coupon-api session timeout is 30 minutes')).toMatchObject(none);
    expect(two('p99 latency of the coupon-api is 300 ms', 'p50 latency of the coupon-api is 120 ms')).toMatchObject(none);
    expect(two('The coupon-api connection pool size is 20', 'The coupon-api connection pool size is 40 in staging').conflicts).toHaveLength(1);
    expect(two('The `loyalty_tiers` flag is enabled', 'The loyalty_tiers flag is disabled in production', 'flags').conflicts).toHaveLength(1);
  });

  it('keeps apart facts that name different components, and lets the same component meet itself', () => {
    const apart = (a: string, aScope: string, b: string, bScope: string) => analyze([fact(a, { scope: aScope, hoursAgo: 900 }), fact(b, { scope: bScope, hoursAgo: 10 })]);
    const none = { conflicts: [], retirements: [] };
    expect(apart('Memory limit for quote-renderer is 1Gi.', 'quotes/quote-renderer', 'Memory limit for fx-poller is 768Mi.', 'fx/fx-poller')).toMatchObject(none);
    expect(apart('Backup retention on pg-loyalty-01 is 35 days.', 'infra/postgres', 'Backup retention on pg-loyalty-02 is 14 days.', 'infra/postgres')).toMatchObject(none);
    expect(apart('Topic coupon.events.v2 keeps messages for 7 days.', 'infra/kafka', 'Topic voucher.events.v1 keeps messages for 3 days.', 'infra/kafka')).toMatchObject(none);
    expect(apart('container port for thumbnail-proxy = 8443', 'media', 'container port for avatar-proxy = 8080', 'media')).toMatchObject(none);
    expect(apart('Client timeout from quote-engine to fx-rates is 15 seconds.', 'quotes', 'Idempotency keys in fx-rates are stored for 48h.', 'quotes')).toMatchObject(none);
    // The same component, named again, still meets itself.
    expect(apart('Memory limit for quote-renderer is 1Gi.', 'quotes', 'quote-renderer pods get a 2Gi memory limit.', 'quotes').conflicts).toHaveLength(1);
    // A name that is the value itself is what the fact claims, not what it is about.
    expect(apart('The voucher archive bucket lives in ap-south-1', 'vouchers', 'The voucher archive bucket lives in sa-east-1', 'vouchers').conflicts).toHaveLength(1);
  });

  it('asks about the fact an upgrade names, and leaves alone the other servers of its scope', () => {
    const others = [
      fact('mongo-reviews runs MongoDB 6.0.', { scope: 'infra/mongodb', hoursAgo: 1_000 }),
      fact('mysql-legacy-03 runs MySQL 8.0.36.', { scope: 'infra/mysql', hoursAgo: 900 }),
      fact('pg-analytics-02 runs Postgres 15.6.', { scope: 'infra/postgres', hoursAgo: 800 }),
    ];
    const primary = fact('Avoid generated columns for now: the main database is still on Postgres 13', { scope: 'infra/db', hoursAgo: 2_000 });
    const upgrade = fact('The main database was upgraded to Postgres 17 during the maintenance window', { scope: 'infra/db', hoursAgo: 1 });
    const { retirements, conflicts } = analyze([...others, primary, upgrade], [upgrade]);
    expect(retirements).toEqual([]);
    expect(pairs(conflicts)).toEqual([['probable_update', new Set([primary.id, upgrade.id])]]);
  });
});

describe('facts said of dated periods', () => {
  it('raises nothing between two rota entries of different weeks, and still compares two of one week', () => {
    const first = fact('Week of 2026-03-02 on-call: Ines Duarte primary, Kofi Mensah secondary.', { scope: 'team/rota', hoursAgo: 900 });
    const second = fact('2026-03-16 week: Kofi Mensah is primary on-call, Lena Wirth secondary.', { scope: 'team/rota', hoursAgo: 500 });
    expect(analyzeAll([first, second]).conflicts).toEqual([]);
    const again = fact('Week of 2026-03-02 on-call: Lena Wirth primary, Kofi Mensah secondary.', { scope: 'team/rota', hoursAgo: 400 });
    expect(analyzeAll([first, again]).conflicts.map((c) => c.factIds)).toEqual([[first.id, again.id]]);
  });
});

describe('statements, deletion requests and dependencies', () => {
  it('calls a denial against an assertion of what it denies an ambiguity, asking about the statement', () => {
    const prisma = fact('The reviews-api uses Drizzle as its ORM', { scope: 'reviews', hoursAgo: 900 });
    const none = fact('We do not use an ORM in the reviews-api', { scope: 'reviews', hoursAgo: 100 });
    const { conflicts, retirements } = analyzeAll([prisma, none]);
    expect(retirements).toEqual([]);
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ kind: 'ambiguity', detectedBy: 'tier0_entity', factIds: [prisma.id, none.id] });
    expect(conflicts[0]!.question).toBe('Which is right now: that the reviews-api uses Drizzle as its ORM, or that it is not so?');
  });

  it('asks whether the assertion still holds when the later denial announces the change', () => {
    const prisma = fact('The reviews-api uses Drizzle as its ORM', { scope: 'reviews', hoursAgo: 900 });
    const noLonger = fact('The reviews-api no longer uses an ORM', { scope: 'reviews', hoursAgo: 100 });
    expect(analyzeAll([prisma, noLonger])).toMatchObject({ retirements: [], conflicts: [{ kind: 'probable_update', severity: 'medium', factIds: [prisma.id, noLonger.id] }] });
    const dropped = fact('We dropped Drizzle from the reviews-api', { scope: 'reviews', hoursAgo: 100 });
    const gone = analyzeAll([prisma, dropped]);
    expect(gone).toMatchObject({ retirements: [], conflicts: [{ kind: 'probable_update', factIds: [prisma.id, dropped.id] }] });
    expect(gone.conflicts[0]!.question).toMatch(/still Drizzle, or is it gone now/);
  });

  it('asks about a product named as gone where the later fact names only products of its own beside it', () => {
    const netlify = fact('Storefront deploys to Netlify from `release`, with a preview link per branch.', { scope: 'apps/storefront', hoursAgo: 1000 });
    const moved = fact('Storefront ships to S3 + CloudFront via the `publish-web` GitHub Actions job now; the Netlify site was deleted.', { scope: 'apps/storefront', hoursAgo: 80 });
    expect(analyzeAll([netlify, moved])).toMatchObject({ retirements: [], conflicts: [{ kind: 'probable_update', factIds: [netlify.id, moved.id] }] });
  });

  it('keeps denials apart from assertions about another subject, another place or another act', () => {
    const quiet = (a: string, aScope: string, b: string, bScope: string) => analyzeAll([fact(a, { scope: aScope, hoursAgo: 600 }), fact(b, { scope: bScope, hoursAgo: 30 })]);
    const none = { conflicts: [], retirements: [] };
    expect(quiet('The desktop app sends crash telemetry to Sentry', 'desktop', 'The kiosk app sends no telemetry', 'kiosk')).toMatchObject(none);
    expect(quiet('The ratings-api uses Drizzle as its ORM', 'ratings', 'We do not use an ORM in the reviews-api', 'reviews')).toMatchObject(none);
    expect(quiet('Ingrid wrote the refunds runbook', 'ops', 'Ingrid has never reviewed the refunds runbook', 'ops')).toMatchObject(none);
    // The act itself asserted is denied.
    expect(quiet('Ingrid reviewed the refunds runbook last week', 'ops', 'Ingrid has never reviewed the refunds runbook', 'ops').conflicts).toHaveLength(1);
    // Not using a product denies what is done with it, whatever the verb; a change away from it denies nothing.
    expect(quiet('Release notes are generated with Changesets on every merge', 'web', "web: we don't use Changesets, release notes are written by hand", 'web').conflicts).toHaveLength(1);
    expect(quiet('The web team replaced Changesets with Release Please', 'web', "web: we don't use Changesets", 'web')).toMatchObject(none);
  });

  it('retires the earlier facts a deletion request names all of, and nothing else', () => {
    const wireguard = fact('To reach the render farm, connect through the WireGuard gateway at wg.render.example.net', { scope: 'access', hoursAgo: 2_000 });
    const jump = fact('The render farm jump host is jump-rf.example.net on port 2200', { scope: 'access', hoursAgo: 400 });
    const forget = fact('Forget the note about the WireGuard gateway, it was shut down', { scope: 'access', hoursAgo: 20 });
    const outcome = analyzeAll([wireguard, jump, forget]);
    expect(outcome.retirements).toEqual([{ factId: wireguard.id, byFactId: forget.id, at: forget.committed_at, reason: 'a later fact asks to forget it' }]);
    expect(outcome.conflicts).toEqual([]);

    const upload = fact('Build artifacts are uploaded to the old Artifactory repository', { scope: 'build', hoursAgo: 2_000 });
    const mirror = fact('Artifactory also hosts our Maven mirror', { scope: 'build', hoursAgo: 1_500 });
    const drop = fact('Please drop the note about the old Artifactory repository', { scope: 'build', hoursAgo: 20 });
    expect(retired(analyzeAll([upload, mirror, drop]))).toEqual([upload.id]);
    // A file named alone is the file a path leads to.
    const fixture = fact('staging billing reads plans from `billing/fixtures/plans_tmp.json` for now', { scope: 'billing', hoursAgo: 600 });
    const forgetFile = fact('Please forget the `plans_tmp.json` note; the fixture is deleted', { scope: 'billing', hoursAgo: 20 });
    expect(retired(analyzeAll([fixture, forgetFile]))).toEqual([fixture.id]);
    // Of any language a team writes in (a Swift or a Dart file, a SQL script).
    const source = fact('The kiosk reads its API host from `ios/Kiosk/Config/Endpoints.swift`', { scope: 'kiosk', hoursAgo: 600 });
    const forgetSource = fact('Please forget the note about `endpoints.swift`; the host comes from the MDM profile', { scope: 'kiosk', hoursAgo: 20 });
    expect(retired(analyzeAll([source, forgetSource]))).toEqual([source.id]);
    // One plain word is no note: every fact naming a gateway is not what a request means; a word no dictionary holds is.
    const gateways = fact('The edge gateway terminates TLS for the kiosk API', { scope: 'kiosk', hoursAgo: 600 });
    expect(retired(analyzeAll([gateways, fact('Please forget the gateway note', { scope: 'kiosk', hoursAgo: 20 })]))).toEqual([]);
    const cron = fact('Receipts are purged by a crontab entry on the batch host', { scope: 'kiosk', hoursAgo: 600 });
    expect(retired(analyzeAll([cron, fact('Please forget the crontab note', { scope: 'kiosk', hoursAgo: 20 })]))).toEqual([cron.id]);
  });

  it('matches a deletion request by the words a fact says, not only what it mentions; a removal reported in the past asks to forget nothing', () => {
    // "Dana" is a word of the fact, though what it mentions is the person "Dana Ortiz".
    const tip = fact('Ask Dana Ortiz for read access to the billing replica', { scope: 'data', hoursAgo: 500 });
    const other = fact('The billing replica lags the primary by about 2 seconds', { scope: 'data', hoursAgo: 400 });
    const forget = fact('Forget the note about asking Dana for billing replica access', { scope: 'data', hoursAgo: 10 });
    expect(retired(analyzeAll([tip, other, forget]))).toEqual([tip.id]);
    // "Removed the X flag" reports a change to the code: the fact about the flag is not forgotten with nothing asked.
    const flag = fact('The `checkout.one-click` flag stays on until the holiday freeze ends', { scope: 'web', hoursAgo: 300 });
    const removed = fact('Removed the `checkout.one-click` flag and its old code path', { scope: 'web', hoursAgo: 5 });
    expect(readFact(removed.content).some((e) => e.type === 'deletion')).toBe(false);
    expect(retired(analyzeAll([flag, removed]))).toEqual([]);
  });

  it('asks, and retires nothing, where one fact names all but one of what a deletion request names', () => {
    const workaround = fact('Workaround: kiosks with firmware `K9` drop card taps shorter than 40 ms from the reader.', { scope: 'kiosk', hoursAgo: 500 });
    const other = fact('Kiosk card readers report taps over USB.', { scope: 'kiosk', hoursAgo: 400 });
    const forget = fact('Disregard the note about K9 kiosks and a tap debounce; it was a loose cable.', { scope: 'kiosk', hoursAgo: 10 });
    const outcome = analyzeAll([workaround, other, forget]);
    expect(outcome.retirements).toEqual([]);
    expect(outcome.conflicts.map((c) => [c.kind, c.factIds])).toEqual([['probable_update', [workaround.id, forget.id]]]);
    // Two such facts: the guess would be a coin toss, and nothing is asked.
    const second = fact('Kiosks with firmware `K9` restart after 40 card taps.', { scope: 'kiosk', hoursAgo: 450 });
    expect(analyzeAll([workaround, second, forget])).toMatchObject({ retirements: [], conflicts: [] });
  });

  it('honours a deletion request whichever of the two reaches the worker first, and never argues with it', () => {
    const secret = fact('The billing worker reads its Stripe key from secrets.yaml in the repo root', { scope: 'billing', hoursAgo: 600 });
    const forget = fact('Delete the secrets.yaml memory. It was wrong, and that file must never exist in the repo', { scope: 'billing', hoursAgo: 20 });
    // The request ran first; the fact it names arrives in a later run as the only trigger.
    const late = analyzeStatements([secret, forget], new Set([secret.id]));
    expect(late.retirements.map((r) => [r.factId, r.byFactId])).toEqual([[secret.id, forget.id]]);
    expect(late.conflicts).toEqual([]);
    expect(retired(analyzeAll([secret, forget]))).toEqual([secret.id]);
    // A request naming something else is not a denial of the fact either.
    const other = fact('Delete the note about the old staging VPN. It was never used', { scope: 'billing', hoursAgo: 10 });
    expect(analyzeStatements([secret, other], new Set([secret.id, other.id]))).toEqual({ retirements: [], conflicts: [] });
    // A path in code quotes is named by the path.
    const endpoint = fact('`POST /v3/bulk-quotes` queues up to 200 quotes per call', { scope: 'services/quotes', hoursAgo: 300 });
    const never = fact('Ignore my earlier note about `/v3/bulk-quotes` — it never shipped', { scope: 'services/quotes', hoursAgo: 20 });
    expect(retired(analyzeAll([endpoint, never]))).toEqual([endpoint.id]);
  });

  it('retires a fact naming a thing a later fact asks to forget by its name and its kind', () => {
    const endpoint = fact('`billing-api` exposes `POST /v2/refunds/batch`, which takes up to 100 refunds per call.', { scope: 'services/billing', hoursAgo: 300 });
    const never = fact('Please forget the note about a `POST /v2/refunds/batch` endpoint; that route never existed.', { scope: 'services/billing', hoursAgo: 20 });
    expect(retired(analyzeAll([endpoint, never]))).toEqual([endpoint.id]);
    // The kind alone, with no name, is still all it names: a fact must say it.
    const gateway = fact('The VPN gateway allows 40 tunnels.', { scope: 'infra/net', hoursAgo: 300 });
    const forget = fact('Forget the note about the WireGuard gateway.', { scope: 'infra/net', hoursAgo: 20 });
    expect(retired(analyzeAll([gateway, forget]))).toEqual([]);
  });

  it('asks whether a host still holds when a later fact says the thing moved to another', () => {
    const before = fact('Grafana is reachable at grafana.ops.example.net (office network only)', { scope: 'observability', hoursAgo: 600 });
    const moved = fact('Grafana moved to dashboards.example.net behind Okta', { scope: 'observability', hoursAgo: 30 });
    expect(pairs(analyzeAll([before, moved]).conflicts)).toEqual([['probable_update', new Set([before.id, moved.id])]]);
  });

  it('asks a change with no old value named of the earlier fact naming most of what it names', () => {
    const manager = fact('When a build alert is still open 45 minutes after it fired, Opsgenie rings the release manager, Ravi Menon.', { scope: 'team/ci', hoursAgo: 300 });
    const backup = fact('Opsgenie policy: if the first responder has not acked a build alert within 15 minutes, it escalates to the backup responder.', { scope: 'team/ci', hoursAgo: 290 });
    const change = fact('Opsgenie now escalates an unacked build alert to the backup responder after 8 minutes.', { scope: 'team/ci', hoursAgo: 20 });
    expect(pairs(analyzeAll([manager, backup, change]).conflicts)).toEqual([['probable_update', new Set([backup.id, change.id])]]);
  });

  // An earlier and a later fact, and the one question they raise, if any ([older, scope], [newer, scope], kind).
  it.each([
    ['meets a component named by its path in one scope and in words in another',
      ['`services/billing` is owned by the Core team (lead: Dana Lee).', 'billing'],
      ['The billing service belongs to the Ledger squad under Ana Reyes; reviews for `services/billing` go to them.', 'team/oncall'], 'cross_scope'],
    ['does not compare two joined names of one shape, whatever words they share',
      ['OTel head sampling for log-worker is 25% (LOG_WORKER_OTEL_SAMPLE_RATIO=0.25).', 'observability'],
      ['OTel head sampling for mail-worker is 1% (MAIL_WORKER_OTEL_SAMPLE_RATIO=0.01).', 'observability'], null],
    ['asks a change naming only the component its scope names of an earlier fact naming another',
      ['Redis 6.2 on `cache.m5.large` with one replica; cluster mode is off.', 'services/matchups'],
      ['Matchups cache is now Valkey 7.2, cluster mode on with 2 shards.', 'services/matchups'], 'probable_update'],
    ['does not flag a fact that holds until something ends when a later fact only changes something of the same name',
      ['Prod stays on Postgres 15 until the release freeze ends.', 'infra/db'],
      ['The dashboard now reads the freeze rate from the new video stats table.', 'data'], null],
    ['flags a fact that holds for as long as something lasts as stale once a later fact says it ended',
      ['SMS codes go through Twilio for as long as the Twilio contract runs.', 'auth/sms'],
      ['The Twilio contract ended Oct 31 and was not renewed.', 'vendors'], 'stale'],
    ['reads a state said to be over after a form of "be" as an end',
      ['Checkout computes tax with the legacy module while the Taxly migration is in progress.', 'payments'],
      ['The Taxly migration is done.', 'payments'], 'stale'],
    ['ends a wait by two of its words, one specific, not all of them',
      ['Merges to `services/api` are frozen until the MySQL → Aurora move finishes.', 'infra'],
      ['The Aurora move finished on Tuesday.', 'infra'], 'stale'],
    ['ends a wait by the tracked item the earlier fact names',
      ['While the `orders` table split (OPS-410) is in progress, writes go to both tables.', 'services/orders'],
      ['OPS-410 closed on Monday: backfill verified.', 'services/orders'], 'stale'],
    ['does not end a wait by an item the earlier fact says is over itself',
      ['OPS-411 resolved. Order exports lag until the backfill lands.', 'incidents'],
      ['Handoff: OPS-411 resolved, the replica was resized.', 'team/oncall'], null],
    ['ends a person\'s absence by the first name, said back',
      ['While Dana Whitby is on leave, Lee approves schema changes.', 'team'],
      ['Dana is back since Monday.', 'team'], 'stale'],
    ['ends a wait on a named thing in the middle of a change when the change is said done',
      ['No merges to `services/sync` while Shopwell rolls out its 3.0 API.', 'services/sync'],
      ['Shopwell 3.0 rollout finished for every store.', 'vendors'], 'stale'],
    ['reads no wait in what happens each time something changes',
      ['Writes queue while a deploy rolls out.', 'services/sync'],
      ['The deploy rollout finished for every store.', 'vendors'], null],
    ['ends what holds during a named episode once a later fact says it closed',
      ['During incident OPS-77 the signup rate limit is 5 per IP per hour.', 'api'],
      ['OPS-77 resolved and closed.', 'incidents'], 'stale'],
    ['ends what a freeze holds for a named episode once a later fact says the episode is over',
      ['Deploy freeze on `services/shop` for the Spring Sale: only P1 fixes ship.', 'release'],
      ['The Spring Sale is wrapped; traffic is back to baseline.', 'marketing'], 'stale'],
    ['reads no wait in a freeze for a moment that recurs',
      ['Writes to the ledger are frozen for the nightly backup.', 'services/ledger'],
      ['The nightly backup finished at 02:10.', 'services/ledger'], null],
    ['reads no wait in a record of what happened during an episode',
      ['Observed 2026-05-02: the queue peaked at 40 messages during the OPS-78 import.', 'api'],
      ['OPS-78 resolved and closed.', 'incidents'], null],
    ['ends a wait on a name said as a phrase by its words',
      ['Code freeze on `services/shop` until the Spring Sale event ends.', 'release'],
      ['Spring Sale wrapped on 14 Apr.', 'marketing'], 'stale'],
    ['asks whether a fact using a vendor still holds once its contract was not renewed, a vendor no list knows too',
      ['Login codes are texted through Textlyn; the sender id is ACME.', 'auth/sms'],
      ['We did not renew the Textlyn contract; it lapses at the end of June.', 'vendors'], 'probable_update'],
    ['asks whether a fact using a product still holds once the writer reports cancelling it',
      ['Ledger alerts page the on-call engineer through Pagerlyx.', 'services/ledger'],
      ['We cancelled Pagerlyx on Nov 1.', 'team/oncall'], 'probable_update'],
    ['asks whether a fact using a product still holds once a headline removes it among others',
      ['Start `npm run storybook` to browse the components; Storybook stories sit next to each component.', 'web/app'],
      ['Removed Storybook and every addon from the web app.', 'web/build'], 'probable_update'],
    ['asks whether a fact using a removed product still holds though the removal names a product of another kind',
      ['Start `npm run storybook` to browse the components locally.', 'web/app'],
      ['Removed Storybook from the web app; it held back the Vite 6 move.', 'web/build'], 'probable_update'],
    ['asks whether a fact naming a person by the first name still holds once that person, named in full, left',
      ['Anything about the billing DSL, ask Ingrid; she wrote the parser.', 'services/billing'],
      ['Ingrid Dunn left the company on Friday.', 'team/people'], 'probable_update'],
    ['asks whether a fact using a path still holds once the prefix it sits under was removed',
      ['The web app loads invoices from `GET /v2/invoices/:id`.', 'apps/web'],
      ['The `/v2` routes were deleted with the 3.0 release; only `/v3` is served now.', 'services/api'], 'probable_update'],
    ['reads a count of none as a denial that agrees with "no"',
      ['Upgraded the lab cluster `lab-1` to 1.30 on 2026-04-01. `kubent` found no removed APIs; addons bumped.', 'infra/k8s'],
      ['Readiness for 1.31: `kubent` against `lab-1` on 2026-05-04 found 0 removed APIs; the upgrade waits for June.', 'infra/k8s'], null],
    ['tells numbered items of a series apart: two sprints\' dates are two things',
      ['Sprint 12 runs 2026-03-02 to 2026-03-13; planning on day 1.', 'team/process'],
      ['Sprint 13 runs 2026-03-16 to 2026-03-27. Goals: the billing export.', 'team/process'], null],
    ['asks nothing of a log entry when a later fact announces a change: the entry stays true of its day',
      ['Rollout log: flag `search.rerank_v2` was enabled for 10% of shoppers on 2026-04-02 after the load test.', 'apps/web'],
      ['Raised `search.rerank_v2` to 50% of shoppers; errors flat.', 'apps/web'], null],
    ['compares figures measured over two windows as two things',
      ['SLO `cart-api availability`: 99.5% over rolling 28 days, measured from load balancer 5xx on `cart`.', 'observability'],
      ['cart-api availability SLO: 100% over the past week; 30 of the 201 min monthly error budget left.', 'observability'], null],
    ['reads schema migration tools as one kind of technology, two of them for one service a question',
      ['invoice-api schema migrations use dbmate; SQL files live in `services/invoice-api/db/`.', 'services/invoice-api'],
      ['Schema changes for invoice-api are managed with Liquibase; CI applies them before the deploy.', 'services/invoice-api'], 'ambiguity'],
    ['reads a denial of using a product as denying what is done with it, the product\'s kind named beside it or not',
      ['Schema migrations are applied with Liquibase during the deploy job.', 'services/orders'],
      ['orders: we don\'t use Liquibase; migrations run from `sqitch deploy` in the release hook.', 'services/orders'], 'ambiguity'],
    ['meets an API path by the resource it ends in',
      ['Partner API: `POST /v2/invoices` is limited to 20 requests/min per API key.', 'services/billing'],
      ['Creating invoices through the partner API is capped at 1 request per second per key; callers past it get 429.', 'services/billing'], 'value_mismatch'],
    ['asks nothing of a log entry when a thing it names goes away: the entry stays true of its day',
      ['Soak test on `perf-stage-2` (2026-05-12): 2x March peak for 1 h, writer CPU 61%, p99 540 ms.', 'infra/perf'],
      ['`perf-stage-2` destroyed on 2026-05-12 after the soak test.', 'infra/perf'], null],
    ['reads no vendor in a sentence\'s first English word before a contract',
      ['Hosting costs are tracked in the FinOps sheet.', 'finance'],
      ['Hosting contract ended on Nov 30.', 'vendors'], null],
    ['ends a wait on a contract by its signing',
      ['Until the Paylane contract is countersigned, only sandbox cards can be issued.', 'cards'],
      ['The Paylane contract was countersigned on 2026-10-02.', 'legal'], 'stale'],
  ] as const)('%s', (_title, [olderText, olderScope], [newerText, newerScope], kind) => {
    const older = fact(olderText, { scope: olderScope, hoursAgo: 400 });
    const newer = fact(newerText, { scope: newerScope, hoursAgo: 20 });
    expect(pairs(analyzeAll([older, newer]).conflicts)).toEqual(kind ? [[kind, new Set([older.id, newer.id])]] : []);
  });

  it('compares a person holding a role with a name no list knows holding it', () => {
    const owner = fact('Maren Holt owns `services/ledger-api`; ask her about reconciliation.', { scope: 'services/ledger-api', hoursAgo: 400 });
    const moved = fact('ledger-api ownership has moved to Foxtrot.', { scope: 'services/ledger-api', hoursAgo: 20 });
    expect(analyzeAll([owner, moved]).conflicts.map((c) => new Set(c.factIds))).toEqual([new Set([owner.id, moved.id])]);
    // A name merely beside a person holding a role elsewhere is not compared with them.
    const team = fact('ledger-api belongs to Foxtrot; Maren is the contact.', { scope: 'services/ledger-api', hoursAgo: 20 });
    expect(analyzeAll([owner, team]).conflicts).toEqual([]);
  });

  it('asks a change of an earlier rule with a condition, not of an earlier fact holding a plan', () => {
    const rule = fact('`ledger-oncall` rota: if nobody acknowledges a page within 20 min, the backup engineer is called.', { scope: 'oncall', hoursAgo: 400 });
    const changed = fact('Changed the `ledger-oncall` rota: the backup engineer now gets called after 10 minutes with no acknowledgement.', { scope: 'oncall', hoursAgo: 20 });
    expect(pairs(analyzeAll([rule, changed]).conflicts)).toEqual([['probable_update', new Set([rule.id, changed.id])]]);
    const planned = fact('`ledger-oncall` rota: if nobody acknowledges a page within 20 min, the backup engineer is called. We plan to move paging to Opsgenie next quarter.', { scope: 'oncall', hoursAgo: 400 });
    expect(analyzeAll([planned, changed]).conflicts).toEqual([]);
  });

  it('asks nothing of a fact holding no value of the share a monthly report compares with its own last month', () => {
    const promise = fact('The escalation queue takes about 6% of refund requests and billing ops staff it.', { scope: 'support/refunds', hoursAgo: 400 });
    const report = fact('March: 1,940 refund requests completed (84%, up from 79% in February), thanks to the escalation queue.', { scope: 'support/refunds', hoursAgo: 20 });
    expect(analyzeAll([promise, report]).conflicts).toEqual([]);
    // A change of that share, old value named, is still asked about.
    const changed = fact('The share of refund requests in the escalation queue went from 6% to 4% after the new form.', { scope: 'support/refunds', hoursAgo: 20 });
    expect(pairs(analyzeAll([promise, changed]).conflicts)).toEqual([['probable_update', new Set([promise.id, changed.id])]]);
  });

  it('flags a fact that holds until something ends as stale once a later fact says it ended', () => {
    const paused = fact('Writes to the refunds table are paused until the index rebuild finishes', { scope: 'payments', hoursAgo: 200 });
    const done = fact('The refunds index rebuild finished this morning', { scope: 'payments', hoursAgo: 20 });
    const { conflicts } = analyzeAll([paused, done]);
    expect(pairs(conflicts)).toEqual([['stale', new Set([paused.id, done.id])]]);
    const unrelated = fact('The refunds dashboard was redesigned this morning', { scope: 'payments', hoursAgo: 20 });
    expect(analyzeAll([paused, unrelated]).conflicts).toEqual([]);
    // What it waits for is the freeze, not the word for its end.
    const blocked = fact("Don't deploy the quote-api to prod until the billing freeze ends — ask Ines first.", { scope: 'quotes', hoursAgo: 200 });
    const lifted = fact('Billing freeze was lifted Monday; deploys are back to normal.', { scope: 'team/billing', hoursAgo: 20 });
    expect(pairs(analyzeAll([blocked, lifted]).conflicts)).toEqual([['stale', new Set([blocked.id, lifted.id])]]);
  });

  it('asks once whether a fact that waited on something still holds, with the first later fact that ended it', () => {
    const waits = fact('The search reindex waits until the billing freeze ends.', { scope: 'search', hoursAgo: 200 });
    const ended = fact('Billing freeze ended Monday morning.', { scope: 'team', hoursAgo: 40 });
    const again = fact('Billing freeze was lifted; the release train runs again.', { scope: 'team', hoursAgo: 20 });
    expect(pairs(analyzeAll([waits, again, ended]).conflicts)).toEqual([['stale', new Set([waits.id, ended.id])]]);
    // Each later fact alone makes it doubtful.
    expect(pairs(analyzeAll([waits, again]).conflicts)).toEqual([['stale', new Set([waits.id, again.id])]]);
  });
});

describe('explaining a disagreement', () => {
  it('names each value once, with every fact that states it, however many facts repeat it', () => {
    const facts = [
      fact('The billing service timeout is 30 seconds', { scope: 'billing', hoursAgo: 50 }),
      fact('Billing service timeout: 30 s', { scope: 'billing', hoursAgo: 40 }),
      fact('The billing service timeout is 60 seconds', { scope: 'billing', hoursAgo: 30 }),
      fact('Billing service timeout: 60 seconds', { scope: 'billing', hoursAgo: 20 }),
    ];
    const [conflict] = analyze(facts).conflicts;
    expect(conflict?.factIds).toHaveLength(4);
    const quoted = [...(conflict!.explanation ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    // One side per value (30 s is 30 seconds), never the same value listed again for another fact.
    expect(quoted).toEqual(['30 seconds', '60 seconds']);
    expect(conflict!.explanation).toMatch(/^Current facts state different values: "30 seconds" \(2 facts: billing, [A-Z][a-z]{2} \d{1,2}, \d{4}(; billing, [A-Z][a-z]{2} \d{1,2}, \d{4})?\) vs "60 seconds" \(2 facts: billing, /);
    // The question names each value once too.
    expect(conflict!.question).toBe('Which is the timeout of billing now: 30 seconds or 60 seconds?');
  });
});

describe('the two tiers merged', () => {
  it('keeps one conflict per confusion: a statement question whose facts a slot conflict holds is dropped, a probable update kept', () => {
    const record = (kind: ConflictRecord['kind'], factIds: string[]): ConflictRecord => ({ kind, detectedBy: 'narrative_rules', severity: 'high', factIds, question: 'q', explanation: 'e' });
    const slots = { retirements: [], conflicts: [record('reversal', ['a', 'b', 'c'])] };
    const statements = { retirements: [], conflicts: [record('reversal', ['a', 'b']), record('probable_update', ['b', 'c']), record('ambiguity', ['c', 'd'])] };
    expect(mergeOutcomes(slots, statements).conflicts.map((c) => c.factIds)).toEqual([['a', 'b', 'c'], ['b', 'c'], ['c', 'd']]);
  });
});

describe('changes announced in words no slot links', () => {
  const asked = (outcome: { conflicts: readonly ConflictRecord[] }) => outcome.conflicts.filter((c) => c.kind === 'probable_update').map((c) => c.factIds);

  it('asks about the one earlier fact of the scope the change most plausibly updates, and retires nothing', () => {
    const vendor = fact('Feature toggles are served by Flagsmith; the server key is FLAGSMITH_KEY in the api env', { scope: 'web/toggles', hoursAgo: 900 });
    const naming = fact('Toggle names are kebab-case and start with the owning team', { scope: 'web/toggles', hoursAgo: 800 });
    const moved = fact('Toggles moved off Flagsmith to a self-hosted GrowthBook; the api reads GROWTHBOOK_URL now', { scope: 'web/toggles', hoursAgo: 20 });
    const outcome = analyzeAll([vendor, naming, moved]);
    expect(outcome.retirements).toEqual([]);
    expect(asked(outcome)).toEqual([[vendor.id, moved.id]]);
    expect(outcome.conflicts.find((c) => c.factIds.includes(moved.id))!.question).toMatch(/^Probable update: is "Feature toggles are served by Flagsmith.*" still true, now that a later fact says "Toggles moved off Flagsmith/);
  });

  it('still asks of a change whose only conflict so far is with a later fact', () => {
    const vendor = fact('Feature toggles are served by Flagsmith; the server key is FLAGSMITH_KEY in the api env', { scope: 'web/toggles', hoursAgo: 900 });
    const moved = fact('Toggles moved off Flagsmith to a self-hosted GrowthBook; the api reads GROWTHBOOK_URL now', { scope: 'web/toggles', hoursAgo: 20 });
    const later = fact('Toggle reads are cached for 30s in the api', { scope: 'web/toggles', hoursAgo: 5 });
    const withLater: ConflictRecord = { kind: 'ambiguity', detectedBy: 'tier0_entity', severity: 'high', factIds: [moved.id, later.id], question: 'q', explanation: 'e' };
    const ids = new Set([vendor.id, moved.id, later.id]);
    expect(asked(withAnnouncedUpdates({ retirements: [], conflicts: [withLater] }, [vendor, moved, later], ids))).toEqual([[vendor.id, moved.id]]);
    // One with an earlier fact has found what it updates.
    const withEarlier: ConflictRecord = { ...withLater, factIds: [vendor.id, moved.id] };
    expect(asked(withAnnouncedUpdates({ retirements: [], conflicts: [withEarlier] }, [vendor, moved, later], ids))).toEqual([]);
  });

  it('asks nothing more of a change that already settled the fact it replaced', () => {
    const moved = fact('Quote release train is now weekly (was every two weeks)', { scope: 'mobile/quotes', hoursAgo: 20 });
    const old = fact('Quote release train: every two weeks', { scope: 'mobile/quotes', hoursAgo: 900, valid_until: new Date(), retired_by: 'detector', retired_for_fact_id: moved.id });
    const other = fact('Beta testers get each quote release train 48h before the store build', { scope: 'mobile/quotes', hoursAgo: 300 });
    expect(asked(analyzeAll([old, other, moved]))).toEqual([]);
  });

  it('asks about a fact naming the value a replacement names, when the product is in no list', () => {
    const tiles = fact('The route planner draws its map with Leafmap tiles from the vendor CDN', { scope: 'web/planner', hoursAgo: 700 });
    const replaced = fact('Replaced Leafmap with Protomaps for the route planner; the vendor token is gone', { scope: 'web/planner', hoursAgo: 30 });
    expect(asked(analyzeAll([tiles, replaced]))).toEqual([[tiles.id, replaced.id]]);
  });

  it('asks nothing for a plan, a condition, another environment, another setting, or an earlier fact that already says it', () => {
    const window = fact('Cluster upgrades happen in the Wednesday maintenance window, 04:00-06:00 UTC', { scope: 'infra/k8s', hoursAgo: 900 });
    const planned = fact('Planned: cluster upgrade to 1.31 in a Wednesday maintenance window once the mesh upgrade lands', { scope: 'infra/k8s', hoursAgo: 10 });
    expect(asked(analyzeAll([window, planned]))).toEqual([]);

    const retries = fact('The invoice-sync job retries a failed upload against the ledger three times', { scope: 'billing/sync', hoursAgo: 900 });
    const conditional = fact('If the ledger upload fails for an hour, invoice-sync moves the batch to the dead-letter queue', { scope: 'billing/sync', hoursAgo: 10 });
    expect(asked(analyzeAll([retries, conditional]))).toEqual([]);

    const prod = fact('In production the quote-api runs 6 workers behind the quote gateway', { scope: 'quotes', hoursAgo: 900 });
    const staging = fact('In staging we switched the quote-api gateway to Envoy', { scope: 'quotes', hoursAgo: 10 });
    expect(asked(analyzeAll([prod, staging]))).toEqual([]);

    const table = fact('order_events is append-only and very hot; keep queries on it index-only', { scope: 'data/pg', hoursAgo: 900 });
    const setting = fact('autovacuum_analyze_scale_factor is lowered to 0.01 on order_events because it grows fast', { scope: 'data/pg', hoursAgo: 10 });
    expect(asked(analyzeAll([table, setting]))).toEqual([]);

    // A change naming its old value updates what states that value, not what merely uses the thing.
    const uses = fact('`quote-api` (Fastify, port 3000) reaches its database through Knex, with a pool of 10', { scope: 'quotes', hoursAgo: 900 });
    const bumped = fact('Bumped Knex from 2.4 to 2.5 in `quote-api`; no migrations came with it', { scope: 'quotes', hoursAgo: 10 });
    expect(asked(analyzeAll([uses, bumped]))).toEqual([]);

    const raised = fact('Raised the audit-log topic partitions from 12 to 24 for the consumer lag', { scope: 'data/kafka', hoursAgo: 900 });
    const reminder = fact('Reminder: the audit-log topic has 24 partitions now, so consumers can scale to 24', { scope: 'data/kafka', hoursAgo: 10 });
    expect(asked(analyzeAll([raised, reminder]))).toEqual([]);
  });

  it('asks nothing when each names components of its own: two records alike in words are two things', () => {
    const one = fact('INC-2041: ledger-sync timed out on a third of requests for 40 minutes; root cause was a lock held by a slow migration', { scope: 'incidents', hoursAgo: 900 });
    const other = fact('INC-2107: kb-indexer timed out on requests for 12 minutes; root cause was a library upgrade that changed its default timeouts', { scope: 'incidents', hoursAgo: 10 });
    expect(analyzeAll([one, other]).conflicts).toEqual([]);
  });

  it('asks nothing when each names tracked items of its own, none in common: two findings alike in words are two things', () => {
    const one = fact('Audit day 1: finding AUD-311 — the billing export bucket allows public listing; owner is platform', { scope: 'security', hoursAgo: 900 });
    const other = fact('Audit day 2: finding AUD-312 — the billing webhook skips signature checks. Fixed and shipped the same day', { scope: 'security', hoursAgo: 10 });
    expect(asked(analyzeAll([one, other]))).toEqual([]);
    // The same item named in both is the link.
    const followUp = fact('Audit day 3: for AUD-311 the billing export bucket was switched to private listing', { scope: 'security', hoursAgo: 5 });
    expect(asked(analyzeAll([one, followUp]))).toEqual([[one.id, followUp.id]]);
  });

  it('asks nothing when each names an HTTP endpoint of its own: one path under two methods is two endpoints', () => {
    const create = fact('`POST /v2/invoices` accepts an `Idempotency-Key` header; keys are kept 24h in Redis.', { scope: 'billing/api', hoursAgo: 900 });
    const listed = fact('`GET /v2/invoices` now uses cursor pagination; the `page` param is still accepted with a `Deprecation` header.', { scope: 'billing/api', hoursAgo: 10 });
    expect(asked(analyzeAll([create, listed]))).toEqual([]);
    // The same endpoint named in both is the link.
    const changed = fact('`POST /v2/invoices` now keeps `Idempotency-Key` values in Redis for 48h instead.', { scope: 'billing/api', hoursAgo: 5 });
    expect(analyzeAll([create, changed]).conflicts.map((c) => c.factIds)).toEqual([[create.id, changed.id]]);
  });

  it('asks nothing when the later fact names no new value and says the earlier one\'s again as unchanged', () => {
    const metrics = fact('Metrics: Prometheus agent → Mimir, 30-day retention. Scrape interval 15s in prod, 60s in staging.', { scope: 'infra/observability', hoursAgo: 900 });
    const other = fact('Only audit retention changed for OPS-88. Metric scrape interval is still 15s in prod and Mimir still keeps 30 days.', { scope: 'infra/observability', hoursAgo: 10 });
    expect(asked(analyzeAll([metrics, other]))).toEqual([]);
    // A new value is a change of what it names, whatever it says is unchanged.
    const raised = fact('Audit retention changed for OPS-88, and the metric scrape interval in prod went to 30s; Mimir still keeps 30 days.', { scope: 'infra/observability', hoursAgo: 5 });
    expect(analyzeAll([metrics, raised]).conflicts.map((c) => c.factIds)).toEqual([[metrics.id, raised.id]]);
  });

  it('links a change to the earlier fact naming what it says is no longer so', () => {
    const proxy = fact('Kiosk screens fetch prices through the `pricebook-lite` proxy on `localhost:7070`.', { scope: 'kiosk/pricing', hoursAgo: 1400 });
    const moved = fact('We now call the in-process `tally` client for lookups everywhere; the proxy is no longer deployed.', { scope: 'kiosk/pricing', hoursAgo: 160 });
    expect(asked(analyzeAll([proxy, moved]))).toEqual([[proxy.id, moved.id]]);
    // Not where what ended is another thing.
    const cache = fact('We now call the in-process `tally` client for lookups everywhere; the old cache is no longer deployed.', { scope: 'kiosk/pricing', hoursAgo: 160 });
    expect(asked(analyzeAll([proxy, cache]))).toEqual([]);
  });

  it('asks nothing when two earlier facts match the change equally: the guess would be a coin toss', () => {
    const a = fact('The export-worker writes reports to the reports bucket', { scope: 'reports', hoursAgo: 900 });
    const b = fact('The export-worker reads reports from the reports bucket too', { scope: 'reports', hoursAgo: 800 });
    const moved = fact('The export-worker moved to the shared bucket', { scope: 'reports', hoursAgo: 10 });
    expect(asked(analyzeAll([a, b, moved]))).toEqual([]);
  });
});

describe('changes announced, asked about every fact stating the old value', () => {
  const asked = (outcome: { conflicts: readonly ConflictRecord[] }) => outcome.conflicts.filter((c) => c.kind === 'probable_update').map((c) => c.factIds).sort();

  it('asks about each earlier fact that names the value a change replaced, however many tie', () => {
    const pool = fact('ledger-db pgbouncer default_pool_size is 30 for ledger-api', { scope: 'ledger/db', hoursAgo: 900 });
    const cap = fact('ledger-api gets at most 30 server connections from pgbouncer (its default_pool_size); ask Ines before adding pods', { scope: 'ledger/db', hoursAgo: 800 });
    const raised = fact('Raised pgbouncer default_pool_size for ledger-api from 30 to 50 for the month-end batch', { scope: 'ledger/db', hoursAgo: 10 });
    expect(asked(analyzeAll([pool, cap, raised]))).toEqual([[cap.id, raised.id], [pool.id, raised.id]].sort());
  });

  it('asks about the fact of its scope stating the replaced value when the change names nothing but its measure', () => {
    const expiry = fact('Temporary download URLs from files-gw expire after 10 minutes', { scope: 'storage/edge', hoursAgo: 900 });
    const other = fact('files-gw keeps access logs for 30 days', { scope: 'storage/edge', hoursAgo: 800 });
    const changed = fact('Changed GET expiry from 10 min to 45 min (`DL_TTL=2700`)', { scope: 'storage/edge', hoursAgo: 10 });
    expect(asked(analyzeAll([expiry, other, changed]))).toEqual([[expiry.id, changed.id]]);
  });

  it('counts another value of the measure that changed as a thing in common', () => {
    const queue = fact('Async work in billing-app runs on Sidekiq backed by Redis (config/sidekiq.yml)', { scope: 'billing/app', hoursAgo: 900 });
    const other = fact('billing-app logs go to Loki with a 14 day retention', { scope: 'billing/app', hoursAgo: 800 });
    const moved = fact('Async work in billing-app now runs on SQS through Shoryuken', { scope: 'billing/app', hoursAgo: 10 });
    expect(asked(analyzeAll([queue, other, moved]))).toEqual([[queue.id, moved.id]]);
  });

  it('asks nothing of a fact that tells the replaced value as history, a minimum against a changed maximum, or the scope\'s own component', () => {
    const notes = fact('Release notes ledger-api 4.2: bumped `pg-driver` from 8.1.0 to 8.2.0 and dropped the v1 routes', { scope: 'ledger/api', hoursAgo: 900 });
    const bump = fact('ledger-api 4.3 bumps pg-driver from 8.2.0 to 8.3.1', { scope: 'ledger/api', hoursAgo: 10 });
    expect(asked(analyzeAll([notes, bump]))).toEqual([]);

    const floor = fact('`quote-api` autoscaler in prod keeps minReplicas 5 and targets 70% CPU', { scope: 'infra/k8s', hoursAgo: 900 });
    const ceiling = fact('Raised the `quote-api` autoscaler maxReplicas in prod to 40 for the sale', { scope: 'infra/k8s', hoursAgo: 10 });
    expect(asked(analyzeAll([floor, ceiling]))).toEqual([]);

    const approvals = fact('Refund approvals: 2 reviewers by default, configurable up to 4 per region', { scope: 'services/refund-api', hoursAgo: 900 });
    const fixed = fact('`refund-api` has no autoscaler; it stays at a fixed 3 pods', { scope: 'services/refund-api', hoursAgo: 10 });
    expect(asked(analyzeAll([approvals, fixed]))).toEqual([]);
  });

  it('asks nothing of a staging fact when the change names a resource of another environment ("cache-prod-eu")', () => {
    const staging = fact('Staging `quote-api` keeps `QUOTE_POOL=6`; the staging Memcached is one small node', { scope: 'infra/cache', hoursAgo: 900 });
    const rotated = fact('Rotated the `quotes-prod-eu` Memcached SASL password on 2026-02-10; `quote-api` reloaded it without downtime', { scope: 'infra/cache', hoursAgo: 10 });
    expect(asked(analyzeAll([staging, rotated]))).toEqual([]);
  });

  it('asks nothing of a draft that was not adopted', () => {
    const slo = fact('Latency budget for `quote-api`: p99 stays under 250 ms on 30-day windows', { scope: 'quotes/slo', hoursAgo: 900 });
    const draft = fact('Draft H2 goal: tighten the `quote-api` p99 latency target to 150ms. Not adopted; the current target is unchanged.', { scope: 'quotes/slo', hoursAgo: 10 });
    expect(asked(analyzeAll([slo, draft]))).toEqual([]);
  });

  it('asks nothing of a fact holding the replaced figure as a count of something else', () => {
    const pods = fact('`mailer` runs 2 pods with 8 sends in flight per pod', { scope: 'services/mailer', hoursAgo: 900 });
    const raised = fact('Raised the bounce budget from 2 to 4 after the provider throttled the second attempt', { scope: 'services/mailer', hoursAgo: 10 });
    expect(asked(analyzeAll([pods, raised]))).toEqual([]);
    // The same figure as a value of what changed is asked about.
    const budget = fact('`mailer` bounce budget: 2 per message', { scope: 'services/mailer', hoursAgo: 800 });
    expect(asked(analyzeAll([pods, budget, raised])).flat()).not.toContain(pods.id);
  });

  it('asks nothing when the earlier fact already states the later value of the thing, beside another', () => {
    const both = fact('The search indexer runs hourly for deltas, and a full rebuild of it runs daily at 01:00 UTC.', { scope: 'services/search', hoursAgo: 900 });
    const again = fact("Reminder: the search indexer's full rebuild runs daily now, after the nightly backup.", { scope: 'services/search', hoursAgo: 10 });
    expect(analyzeAll([both, again]).conflicts).toEqual([]);
  });

  it('asks nothing of a change of one thing against another thing of the scope that the change only mentions', () => {
    const sync = fact('The vendor sync for `crm-to-warehouse` runs at 01:00 UTC', { scope: 'data/warehouse', hoursAgo: 900 });
    const moved = fact('Moved the warehouse backup schedule to 01:45 UTC so it starts after the 01:00 vendor sync', { scope: 'data/warehouse', hoursAgo: 10 });
    expect(asked(analyzeAll([sync, moved]))).toEqual([]);
  });

  it('asks nothing about a fact of another component that shares only a setting name', () => {
    const hot = fact('`cache.hot` keeps entries for 2 hours (ttl_seconds=7200)', { scope: 'svc/cache', hoursAgo: 900 });
    const cold = fact('Extended `cache.cold` TTL to 3 days (`ttl_seconds=259200`)', { scope: 'svc/cache', hoursAgo: 10 });
    expect(asked(analyzeAll([hot, cold]))).toEqual([]);
  });
});

describe('denials, dates and endpoints that are not claims about the current state', () => {
  it('denies with an acronym only facts naming it: "no EU staging cluster" is not about every staging fact', () => {
    const denial = fact('There is no EU staging cluster; EU code paths are tested with eu tenants in the main staging cluster', { scope: 'infra/k8s', hoursAgo: 10 });
    const staging = fact('ledger staging: POOL_SIZE=5', { scope: 'infra/k8s', hoursAgo: 900 });
    const previews = fact('Each PR gets a preview environment backed by staging APIs', { scope: 'infra/k8s', hoursAgo: 800 });
    expect(analyzeAll([staging, previews, denial]).conflicts).toEqual([]);
  });

  it('raises nothing between records of releases on their dates', () => {
    const first = fact('Kiosk-app 3.1.0 (shipped 2026-02-02) reached 40% of devices on 2026-02-05', { scope: 'mobile/kiosk', hoursAgo: 900 });
    const second = fact('Kiosk-app 3.2.0 (shipped 2026-03-02) had 99.7% crash-free sessions in its first week', { scope: 'mobile/kiosk', hoursAgo: 500 });
    expect(analyzeAll([first, second]).conflicts).toEqual([]);
  });

  it('keeps apart two endpoints of one service', () => {
    const a = fact('`PUT /v2/users/{id}` accepts at most 50 fields per request', { scope: 'api/users', hoursAgo: 900 });
    const b = fact('`PUT /v2/teams/{id}` honours an `If-Match` header', { scope: 'api/users', hoursAgo: 10 });
    expect(analyzeAll([a, b]).conflicts).toEqual([]);
  });
});

describe('named things said to be gone', () => {
  it('asks whether a fact using a service still holds once a later fact says it was decommissioned', () => {
    const user = fact('Invoices get their tax region from `taxgeo-api` at `http://taxgeo-api.internal/v2/lookup`', { scope: 'billing/invoices', hoursAgo: 900 });
    const gone = fact('taxgeo-api was decommissioned this week; its namespace is deleted', { scope: 'infra/k8s', hoursAgo: 10 });
    const asked = analyzeAll([user, gone]).conflicts.filter((c) => c.kind === 'probable_update');
    expect(asked.map((c) => c.factIds)).toEqual([[user.id, gone.id]]);
  });

  it('asks about a fact posting to a channel a later fact says was archived, though the archiving names it as replaced', () => {
    const user = fact('Build alerts are posted to Slack `#quotes-builds-old` by the ci bot', { scope: 'team/quotes', hoursAgo: 900 });
    const archived = fact('`#quotes-builds-old` was archived in the workspace tidy-up; nothing can post there', { scope: 'team/ops', hoursAgo: 10 });
    expect(analyzeAll([user, archived]).conflicts.map((c) => [c.kind, c.factIds])).toEqual([['probable_update', [user.id, archived.id]]]);
  });

  it('asks about a fact naming a person a later fact says has left, by first name or full name', () => {
    const owner = fact('Ask Marta Quinlan for the `quotes-ro` role; she owns the grants file', { scope: 'infra/db', hoursAgo: 900 });
    const left = fact("Marta's last day was Friday; the grants file has no owner for now", { scope: 'team/people', hoursAgo: 10 });
    expect(analyzeAll([owner, left]).conflicts.map((c) => [c.kind, c.factIds])).toEqual([['probable_update', [owner.id, left.id]]]);
    // A handle leaving, in a terse note.
    const signer = fact("release tags signed with @bexley's key, ask him", { scope: 'process/releases', hoursAgo: 900 });
    expect(analyzeAll([signer, fact('@bexley left end of Q2; @ines signs now', { scope: 'team', hoursAgo: 10 })]).conflicts.map((c) => c.kind)).toEqual(['probable_update']);
    // Someone else leaving says nothing of her.
    expect(analyzeAll([owner, fact('Tomas left the quotes team last week', { scope: 'team/people', hoursAgo: 10 })]).conflicts).toEqual([]);
    // Away for months, named by a first name no list knows.
    const pager = fact('Failed payout runs page Oyelaran Bello directly, as the only one who knows the bank adapter', { scope: 'services/payouts', hoursAgo: 900 });
    const away = fact('Oyelaran is on sabbatical leave until June; Dana Ortiz covers the bank adapter', { scope: 'team/payouts', hoursAgo: 10 });
    expect(analyzeAll([pager, away]).conflicts.map((c) => [c.kind, c.factIds])).toEqual([['probable_update', [pager.id, away.id]]]);
    // Gone by a full name, named before by the first.
    const reviewer = fact('Changes to `grants/roles.yaml` need a review from Oyelaran; he owns the role map', { scope: 'infra/db', hoursAgo: 900 });
    const gone = fact('Oyelaran Bello left the company on Friday; the role map goes to Dana', { scope: 'team/people', hoursAgo: 10 });
    expect(analyzeAll([reviewer, gone]).conflicts.map((c) => [c.kind, c.factIds])).toEqual([['probable_update', [reviewer.id, gone.id]]]);
    // A fact naming someone only as the one it replaced already says they are no longer there.
    const handedOver = fact('The routing pager lead moved from Maria Lopez to Kai Berg.', { scope: 'team/oncall', hoursAgo: 900 });
    const onLeave = fact('Maria is on leave until February and off the `pager-primary` rotation.', { scope: 'team/oncall', hoursAgo: 10 });
    expect(analyzeAll([handedOver, onLeave]).conflicts).toEqual([]);
    // Facts about her leaving (that she is leaving, her handover, her farewell) are not uses of her: her going is what they say.
    const leaving = fact('Marta is leaving the data team; handover plan due March 3', { scope: 'team/people', hoursAgo: 300 });
    const handover = fact("Marta's handover: the grants file goes to the platform team", { scope: 'infra/db', hoursAgo: 200 });
    const farewell = fact('Farewell drinks for Marta on Thursday at 17:00', { scope: 'team/people', hoursAgo: 100 });
    expect(analyzeAll([leaving, handover, farewell, left]).conflicts).toEqual([]);
  });

  it('asks about a joined name said to be gone only where a fact names all of it, not one of its words', () => {
    const removed = fact('Removed the `grafana-agent` DaemonSet from both clusters last week.', { scope: 'infra/k8s', hoursAgo: 100 });
    const dashboards = fact('Service dashboards live in Grafana; alerts page through Opsgenie.', { scope: 'infra/observability', hoursAgo: 900 });
    const scraper = fact('Node metrics are scraped by the `grafana-agent` DaemonSet every 15 s.', { scope: 'infra/observability', hoursAgo: 900 });
    expect(analyzeAll([dashboards, scraper, removed]).conflicts.map((c) => c.factIds)).toEqual([[scraper.id, removed.id]]);
  });

  it('reads a headline naming a thing and the word for its end as that thing gone', () => {
    const user = fact('weekly exports run on the `etl-box-3` host via cron', { scope: 'infra/etl', hoursAgo: 900 });
    expect(analyzeAll([user, fact('`etl-box-3` shut down fri, cron moved to k8s', { scope: 'infra/ci', hoursAgo: 10 })]).conflicts.map((c) => c.kind)).toEqual(['probable_update']);
    const docs = fact('quote-api docs build from openapi.yaml in the quote-api repo', { scope: 'services/quotes', hoursAgo: 900 });
    expect(analyzeAll([docs, fact('quote-api repo archived, moved into the monorepo', { scope: 'team', hoursAgo: 10 })]).conflicts.map((c) => c.kind)).toEqual(['probable_update']);
    // With the kind of thing between ("`etl-box-3` host decommissioned").
    expect(analyzeAll([user, fact('`etl-box-3` host decommissioned; cron jobs run on k8s', { scope: 'infra/ci', hoursAgo: 10 })]).conflicts.map((c) => c.kind)).toEqual(['probable_update']);
    // Not a thing that describes others as archived.
    expect(analyzeAll([docs, fact('quote-api lists archived repos on its status page', { scope: 'team', hoursAgo: 10 })]).conflicts).toEqual([]);
  });

  it('reads what rows are deleted from as no product gone', () => {
    const db = fact('orders-db runs Postgres 16', { scope: 'infra/db', hoursAgo: 900 });
    const purge = fact('Retention: customer emails are deleted from Postgres 30 days after the account is closed.', { scope: 'security', hoursAgo: 600 });
    expect(viewOf(purge).claims.some((c) => c.previous?.includes('postgres'))).toBe(false);
    expect(analyzeAll([db, purge]).conflicts).toEqual([]);
  });

  it('reads a removal done as what is gone, and not a habit or what a preposition adds', () => {
    const user = fact('Date math goes through `src/dates.ts`, which wraps `luxon-tz`', { scope: 'web', hoursAgo: 900 });
    expect(analyzeAll([user, fact('luxon-tz was dropped from package.json; nothing imports it', { scope: 'web', hoursAgo: 10 })]).conflicts.map((c) => c.kind)).toEqual(['probable_update']);
    const consumer = fact('`ship.events` consumers commit offsets every 5 seconds', { scope: 'svc/ship', hoursAgo: 900 });
    const habit = fact('Duplicates from re-sent `ship.events` are dropped by a dedupe key', { scope: 'svc/ship', hoursAgo: 10 });
    expect(analyzeAll([consumer, habit]).conflicts).toEqual([]);
    // Each of two retirements joined by "and".
    const counters = fact('Quote throttling keeps its counters in Redis `qt-redis`', { scope: 'svc/quotes', hoursAgo: 900 });
    const both = fact('The proxies are gone from every pod and `qt-redis` has been decommissioned.', { scope: 'infra', hoursAgo: 10 });
    expect(analyzeAll([counters, both]).conflicts.map((c) => [c.kind, c.factIds])).toEqual([['probable_update', [counters.id, both.id]]]);
  });

  it('asks about a later fact using a joined name an earlier fact said is gone, and not one telling its history', () => {
    const deleted = fact('Deleted `libs/quote-fallback` in PR #812; nothing imports it any more.', { scope: 'libs', hoursAgo: 400 });
    const tip = fact('For slow quotes, tune the detour factor in `libs/quote-fallback`, where every estimate is computed.', { scope: 'services/quotes', hoursAgo: 20 });
    expect(analyzeAll([deleted, tip]).conflicts.map((c) => [c.kind, c.factIds])).toEqual([['stale', [tip.id, deleted.id]]]);
    expect(matchKeysOf(deleted.entities, deleted.scope).filter((k) => probeKeysOf(tip.entities, tip.scope).includes(k))).toContain('gone:libs/quote-fallback');
    const history = fact('We removed `libs/quote-fallback` last month after the router went multi-region.', { scope: 'services/quotes', hoursAgo: 20 });
    expect(analyzeAll([deleted, history]).conflicts).toEqual([]);
  });

  it('asks about a later fact stating a product an earlier fact said was shut down, and not one naming it only as a qualifier', () => {
    const shut = fact('Search moved to OpenSearch and the Elasticsearch cluster was decommissioned.', { scope: 'services/search', hoursAgo: 400 });
    expect(viewOf(shut).gone).toEqual(['elasticsearch']);
    const tip = fact('Reindexing: run the reindex job against Elasticsearch, which holds the product index.', { scope: 'services/search', hoursAgo: 20 });
    expect(analyzeAll([shut, tip]).conflicts.map((c) => [c.kind, c.factIds])).toEqual([['stale', [tip.id, shut.id]]]);
    // A product qualifying what went is not itself gone ("Argo CD sync windows are removed" keeps Argo CD).
    expect(viewOf(fact('Elasticsearch snapshot schedules are removed.', { scope: 'services/search', hoursAgo: 400 })).gone).toEqual([]);
  });

  it('reads capitalised words run together as a product\'s name, not a setting\'s key, and a product replaced as gone', () => {
    const moved = fact('Builds moved from CircleCI to Buildkite last spring.', { scope: 'ci', hoursAgo: 400 });
    expect(viewOf(moved).claims.find((c) => c.values.includes('buildkite'))?.previous).toEqual(['circleci']);
    expect(viewOf(fact('Alerting moved from PageKeeper to Opsgenie last spring.', { scope: 'team/oncall', hoursAgo: 400 })).claims.find((c) => c.values.includes('opsgenie'))?.previous).toEqual(['pagekeeper']);
    // Replaced, it is gone: a later fact that sends to it is asked about; one that denies it or tells its history is not.
    const later = fact('The new release job runs on CircleCI like the others.', { scope: 'ci', hoursAgo: 20 });
    expect(analyzeAll([moved, later]).conflicts.map((c) => [c.kind, c.factIds])).toEqual([['stale', [later.id, moved.id]]]);
    const denial = fact('The mobile app never used CircleCI.', { scope: 'ci', hoursAgo: 20 });
    const history = fact('Build logs from before March live in the CircleCI export.', { scope: 'ci', hoursAgo: 20 });
    expect(analyzeAll([moved, denial]).conflicts).toEqual([]);
    expect(analyzeAll([moved, history]).conflicts).toEqual([]);
    expect(viewOf(fact('The chart sets maxReplicas to 12.', { scope: 'infra', hoursAgo: 4 })).claims[0]).toMatchObject({ values: ['12'] });
  });
});

describe('qualifiers and plans written as asides', () => {
  it('keeps apart values whose environment is named alone in parentheses', () => {
    const prod = fact('checkout-api HPA (prod): minReplicas=4 maxReplicas=30', { scope: 'services/checkout', hoursAgo: 500 });
    const staging = fact('checkout-api HPA (staging): min 1, max 4.', { scope: 'services/checkout', hoursAgo: 490 });
    expect(analyzeAll([prod, staging]).conflicts).toEqual([]);
  });

  it('reads a sentence headed "WIP:" as work under way, its asides included', () => {
    const owner = fact('Priyanka Rao leads the mobile squad', { scope: 'team/process', hoursAgo: 500 });
    const wip = fact('WIP: halfway through moving the search dashboards to Kibana 9, 10/40 done (owner: Ravi Iyer).', { scope: 'team/process', hoursAgo: 300 });
    expect(analyzeAll([owner, wip]).conflicts).toEqual([]);
  });

  it('counts an earlier figure of the kind that changed as a thing in common', () => {
    const cap = fact('Largest attachment a ticket accepts: 25 MB, checked in intake-api.', { scope: 'support/intake', hoursAgo: 900 });
    const raised = fact('Attachment limit raised to 100 MB; uploads now stream to object storage.', { scope: 'support/intake', hoursAgo: 20 });
    const asked = analyzeAll([cap, raised]).conflicts.filter((c) => c.kind === 'probable_update').map((c) => c.factIds);
    expect(asked).toEqual([[cap.id, raised.id]]);
  });
});
