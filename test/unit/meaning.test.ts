/**
 * Claims read by meaning (packages/core/src/facts/meaning.ts and the tiers over them): frames
 * that align paraphrases and keep different things apart, open-class values, cues by
 * construction, statements and their polarity, deletion requests, dependencies, and the tiers
 * that settle or flag them. The sentences are made up for these tests; the eval sets measure the
 * same behaviour on facts written by others.
 */
import { alignedByMeaning, analyzeSlots, analyzeStatements, claimsOf, extractEntities, readText } from '@engram/core';
import type { DetectorFact, FactEntity } from '@engram/db';
import { describe, expect, it } from 'vitest';
import { detectorFact } from '../support/detector-facts.ts';

const fact = detectorFact;

const of = (content: string, type: string, scope = 'svc'): FactEntity[] => extractEntities(content, scope).filter((e) => e.type === type);
const claim = (content: string, scope = 'svc') => claimsOf(fact(content, { scope, hoursAgo: 1 }))[0]!;
/** Both tiers, every fact a trigger, as a burst of imports would run them. */
function analyze(facts: DetectorFact[]) {
  const ids = new Set(facts.map((f) => f.id));
  const slots = analyzeSlots(facts, ids);
  const statements = analyzeStatements(facts, ids);
  return {
    retired: new Set([...slots.retirements, ...statements.retirements].map((r) => r.factId)),
    conflicts: [...slots.conflicts, ...statements.conflicts],
  };
}

describe('the reader', () => {
  it('cuts clauses at subordinators and reads joined identifiers whole', () => {
    const reading = readText('Search latency dropped to 120 ms once the index on events.name landed');
    expect(reading.clauses.map((c) => c.subordinator)).toEqual([null, 'once']);
    expect(reading.words.map((w) => w.text)).toContain('events.name');
  });

  it('reads a plural noun the tagger took for a verb as a noun', () => {
    const words = readText('We keep application logs in Loki for 2 weeks').words;
    expect(words.find((w) => w.text === 'logs')?.pos).toBe('NOUN');
  });
});

describe('frames align paraphrases and keep different things apart', () => {
  it.each([
    ['The search API answers in 180 ms on average', 'Search latency dropped to 120 ms once the index landed'],
    ['The platform team has 6 engineers', 'Platform is now 8 people'],
    ['Logs are kept for 14 days', 'Log retention was raised to 30 days'],
  ])('"%s" and "%s" are one claim', (a, b) => {
    expect(alignedByMeaning(claim(a), claim(b))).toBe(true);
  });

  it.each([
    ['Auth timeout is 30 seconds', 'Auth session timeout is 30 minutes', 'a noun narrows the other'],
    ['Auth rate limit is 500 req/s', 'Payments rate limit is 1000 req/s', 'different subjects'],
    ['Logs are kept for 14 days', 'Audit logs are kept for 1 year', 'a noun narrows the other'],
    ['The worker HPA keeps at least 2 pods running', 'Worker autoscaling is capped at 10 pods', 'a minimum is not a maximum'],
    ['p99 latency of checkout is 300 ms', 'p50 latency of checkout is 120 ms', 'different percentiles'],
  ])('"%s" and "%s" are different claims (%s)', (a, b) => {
    expect(alignedByMeaning(claim(a), claim(b))).toBe(false);
  });
});

describe('open-class values', () => {
  it('reads money, written dates, channels, emails and hosts', () => {
    expect(of('The Team plan costs €49 per seat', 'money')[0]).toMatchObject({ value: 49, unit: 'eur' });
    expect(of('The launch is set for March 3, 2025', 'date')[0]).toMatchObject({ value: '2025-03-03' });
    expect(of('Insights GA slipped to the 14th of April', 'date')[0]).toMatchObject({ value: '--04-14' });
    expect(of('Deploy notifications post to #eng-releases', 'channel')[0]).toMatchObject({ value: '#eng-releases' });
    expect(of('Vulnerability reports go to psirt@lumen.io', 'email')[0]).toMatchObject({ value: 'psirt@lumen.io' });
    expect(of('Metabase is reachable at bi.internal.lumen.io', 'url')[0]).toMatchObject({ value: 'bi.internal.lumen.io' });
  });

  it('reads people and unlisted products where they hold the value, not where they modify a noun', () => {
    expect(of('Priya now runs releases', 'name')[0]).toMatchObject({ value: 'priya' });
    expect(of('Marta took over as security lead from Tom', 'name').map((e) => [e.value, e.previous ?? false])).toEqual([
      ['marta', false],
      ['tom', true],
    ]);
    expect(of('We have never had a Wise integration', 'name')).toEqual([]);
  });

  it('reads counts of any noun, and the state a setting is flipped to', () => {
    expect(of('The billing queue retries failed jobs 7 times', 'count')[0]).toMatchObject({ value: 7, unit: 'time' });
    expect(of('Flipped the ENABLE_BETA_SEARCH default to true in config/defaults.ts', 'boolean')[0]).toMatchObject({ value: true });
    expect(of('USE_TRAFFIC_LAYER=false in remote config', 'boolean')[0]).toMatchObject({ value: false });
  });

  it('reads a number inside a written date as the day, not a count', () => {
    expect(of('Meghan shot 50 photos of his March 15 event', 'count').map((e) => e.value)).toEqual([50]);
  });
});

describe('cues by construction', () => {
  const cues = (content: string) => extractEntities(content, 'svc').filter((e) => e.type === 'cue').map((e) => e.value);
  it.each([
    'Log retention was raised to 30 days',
    'Priya is the new release manager',
    'Update: the staging bucket lives in eu-west-1',
    'The payouts rotation grew to 6 after Q2 hiring',
    'From 1 July the hourly base for drivers is €15.20',
  ])('"%s" announces a change', (content) => {
    expect(cues(content)).toContain('change');
  });

  it.each(['We plan to move search to OpenSearch next quarter', 'The migration to Postgres 17 is underway', 'Darryl is considering moving to YNAB'])(
    '"%s" is only a plan',
    (content) => {
      expect(cues(content)).toContain('tentative');
    },
  );

  it('does not read a date after "starting" as work starting', () => {
    expect(cues('The budget was increased to $550 starting September 15')).not.toContain('tentative');
  });
});

describe('statements, deletion requests and dependencies', () => {
  it('reads what a denial denies, and a bound as no denial', () => {
    expect(of('There is no staging environment yet', 'statement')[0]).toMatchObject({ value: false, target: expect.arrayContaining(['staging']) });
    expect(of('A search query returns no more than 2,000 docs', 'statement').every((s) => s.value === true)).toBe(true);
  });

  it('reads deletion requests however they are put', () => {
    expect(of('Forget the note about the old OpenVPN profile', 'deletion')[0]?.target).toEqual(expect.arrayContaining(['profil']));
    expect(of('cron-01 was terminated last week, so drop that crontab note', 'deletion')[0]?.target).toEqual(['crontab']);
    expect(of('tele-legacy-02 has been decommissioned, so that SSH note can go', 'deletion')[0]?.target).toEqual(['ssh']);
    expect(of('Remove the PW_LEGACY_AUTH tip from memory', 'deletion')).toHaveLength(1);
  });

  it('reads what a fact depends on', () => {
    expect(of("Release tarballs are signed with the security lead's GPG key", 'dependency')[0]?.target).toEqual(expect.arrayContaining(['owner', 'secur']));
    expect(of('Writes to the orders table are paused until the migration finishes', 'dependency')[0]).toMatchObject({ ends: true });
  });
});

describe('tiers over meaning', () => {
  it('settles a paraphrased update and flags a paraphrased disagreement', () => {
    const a = fact('The search API answers in 180 ms on average', { hoursAgo: 600 });
    const b = fact('Search latency dropped to 120 ms once the index landed', { hoursAgo: 30 });
    expect(analyze([a, b])).toEqual({ retired: new Set([a.id]), conflicts: [] });
    const c = fact('The platform team has 6 engineers', { hoursAgo: 600 });
    const d = fact('The platform team is 9 people', { hoursAgo: 30 });
    expect(analyze([c, d]).conflicts.map((k) => new Set(k.factIds))).toEqual([new Set([c.id, d.id])]);
  });

  it('flags a denial against an assertion of what it denies, and keeps denials of other things apart', () => {
    const staging = fact('Staging runs on Fly.io in the ams region', { scope: 'infra', hoursAgo: 600 });
    const none = fact('There is no staging environment yet; PRs go straight to prod', { scope: 'infra', hoursAgo: 30 });
    const conflicts = analyze([staging, none]).conflicts;
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ kind: 'ambiguity' });
    const cli = fact('The CLI sends no telemetry', { scope: 'cli', hoursAgo: 600 });
    const web = fact('The web app sends telemetry to PostHog', { scope: 'web', hoursAgo: 30 });
    expect(analyze([cli, web]).conflicts).toEqual([]);
  });

  it('reads "A, never B" as denying the act for B, and keeps denials about another component apart', () => {
    const replica = fact('Query pg-billing-01 through the replica with `tw db connect pg-billing-01 --ro`, never the primary.', { scope: 'runbooks', hoursAgo: 600 });
    const size = fact('pg-billing-01 primary is a db.r6g.2xlarge.', { scope: 'infra/postgres', hoursAgo: 30 });
    const schedule = fact('Pages for ledger-gateway go to the billing primary PagerDuty schedule.', { scope: 'billing', hoursAgo: 30 });
    expect(analyze([replica, size, schedule]).conflicts).toEqual([]);
    // The act itself asserted is still denied.
    const writes = fact('The nightly report job connects to the primary of pg-billing-01 directly.', { scope: 'data', hoursAgo: 30 });
    expect(analyze([replica, writes]).conflicts).toHaveLength(1);
    const pnpm = fact('We use pnpm, not npm', { scope: 'web', hoursAgo: 600 });
    const npm = fact('The web app uses npm for installs', { scope: 'web', hoursAgo: 30 });
    expect(analyze([pnpm, npm]).conflicts.filter((c) => c.question.endsWith('or that it is not so?'))).toHaveLength(1);
  });

  it('retires what a deletion request names, and nothing else', () => {
    const vpn = fact("To reach internal services, import the 'Lumen VPN (legacy)' OpenVPN profile", { scope: 'access', hoursAgo: 2000 });
    const bastion = fact('The staging bastion is bastion-stg.lumen.io, port 2222', { scope: 'access', hoursAgo: 400 });
    const forget = fact('Forget the note about the old OpenVPN profile, that VPN was shut down', { scope: 'access', hoursAgo: 20 });
    expect(analyze([vpn, bastion, forget]).retired).toEqual(new Set([vpn.id]));
  });

  it('flags a derived claim whose basis changed as stale', () => {
    const signed = fact("Release tarballs are signed with the security lead's personal GPG key", { scope: 'release', hoursAgo: 1500 });
    const handover = fact('Marta took over as security lead from Tom this sprint', { scope: 'security', hoursAgo: 30 });
    const stale = analyze([signed, handover]).conflicts.filter((c) => c.kind === 'stale');
    expect(stale.map((c) => new Set(c.factIds))).toEqual([new Set([signed.id, handover.id])]);
  });

  it('retires a fact whose value a later fact says is gone', () => {
    const old = fact('Vulnerability reports should be emailed to security@lumen.io', { scope: 'security', hoursAgo: 3000 });
    const gone = fact('security@lumen.io was retired; researchers now write to psirt@lumen.io', { scope: 'security', hoursAgo: 100 });
    expect(analyze([old, gone]).retired).toEqual(new Set([old.id]));
  });

  it('judges, step by step over one array of facts, each pair that holds a trigger, on whichever side it is, and no other', () => {
    const mail = fact('Vulnerability reports should be emailed to security@lumen.io', { scope: 'security', hoursAgo: 3000 });
    const mailGone = fact('security@lumen.io was retired; researchers now write to psirt@lumen.io', { scope: 'security', hoursAgo: 100 });
    const signed = fact("Release tarballs are signed with the security lead's personal GPG key", { scope: 'release', hoursAgo: 1500 });
    const handover = fact('Marta took over as security lead from Tom this sprint', { scope: 'security', hoursAgo: 30 });
    const staging = fact('Staging runs on Fly.io in the ams region', { scope: 'infra', hoursAgo: 600 });
    const noStaging = fact('There is no staging environment yet; PRs go straight to prod', { scope: 'infra', hoursAgo: 20 });
    const docs = fact('The docs site is built with Astro', { scope: 'web', hoursAgo: 1 });
    // A run's steps pass the same array, each with a few of its facts as triggers.
    const facts = [mail, mailGone, signed, handover, staging, noStaging, docs];
    const step = (...triggers: DetectorFact[]) => analyzeStatements(facts, new Set(triggers.map((t) => t.id)));
    const pairs = (outcome: ReturnType<typeof step>) => outcome.conflicts.map((c) => new Set(c.factIds));
    // The older fact as the trigger: the later one that says its value is gone, or changes its basis, still counts.
    expect(step(mail).retirements.map((r) => [r.factId, r.byFactId])).toEqual([[mail.id, mailGone.id]]);
    expect(pairs(step(signed))).toEqual([new Set([signed.id, handover.id])]);
    expect(pairs(step(staging))).toEqual([new Set([staging.id, noStaging.id])]);
    // The newer fact as the trigger.
    expect(step(mailGone).retirements.map((r) => r.factId)).toEqual([mail.id]);
    expect(pairs(step(handover))).toEqual([new Set([signed.id, handover.id])]);
    expect(pairs(step(noStaging))).toEqual([new Set([staging.id, noStaging.id])]);
    // A pair without a trigger was judged when one of its facts was one.
    const quiet = step(docs);
    expect([quiet.retirements, quiet.conflicts]).toEqual([[], []]);
  });

  it('reads a weight in pounds as a count, not money, so a new baseline settles the old one', () => {
    expect(of('Dana weighs 152 pounds after the marathon block', 'count', 'health')).toMatchObject([{ value: 152, unit: 'pound' }]);
    expect(of('Dana weighs 152 pounds after the marathon block', 'money', 'health')).toEqual([]);
    const old = fact('Dana currently weighs 152 pounds and targets 145 pounds', { scope: 'health', agent: 'a', hoursAgo: 80 });
    const update = fact('Dana has a new baseline weight of 149 pounds', { scope: 'health', agent: 'b', hoursAgo: 20 });
    expect(analyze([old, update])).toMatchObject({ retired: new Set([old.id]), conflicts: [] });
  });

  it('lets a done change of a goal retire the goal, and a mere second plan not', () => {
    const goal = fact('The reading club is aiming for 20 novels by December', { scope: 'club', agent: 'a', hoursAgo: 80 });
    const extended = fact('The reading club extended its goal to 24 novels', { scope: 'club', agent: 'b', hoursAgo: 20 });
    expect(analyze([goal, extended])).toMatchObject({ retired: new Set([goal.id]), conflicts: [] });
    const otherPlan = fact('The reading club plans to read 30 novels', { scope: 'club', agent: 'b', hoursAgo: 20 });
    expect(analyze([goal, otherPlan]).retired).toEqual(new Set());
  });

  it('treats a value inside a bound as agreeing with it, and a limit that is the thing itself as a value', () => {
    const bound = fact('Coverage must stay at least 80% on the payments package', { scope: 'payments', agent: 'a', hoursAgo: 80 });
    const inside = fact('Coverage on the payments package is 86%', { scope: 'payments', agent: 'b', hoursAgo: 20 });
    expect(analyze([bound, inside]).conflicts).toEqual([]);
    const outside = fact('Coverage on the payments package is 71%', { scope: 'payments', agent: 'b', hoursAgo: 20 });
    expect(analyze([bound, outside]).conflicts).toHaveLength(1);
    const limit = fact('The export API rate limit is 600 requests per minute', { scope: 'export', agent: 'a', hoursAgo: 80 });
    const lower = fact('The export API allows 200 requests per minute', { scope: 'export', agent: 'b', hoursAgo: 20 });
    expect(analyze([limit, lower]).conflicts).toHaveLength(1);
  });

  it('reads "goes up to" as a change, not as a bound', () => {
    const old = fact('Nightly backups keep 7 snapshots', { scope: 'ops', agent: 'a', hoursAgo: 80 });
    const update = fact('Nightly backup retention goes up to 10 snapshots', { scope: 'ops', agent: 'b', hoursAgo: 20 });
    expect(claimsOf(update).some((c) => c.statistics.has('max'))).toBe(false);
    expect(analyze([old, update])).toMatchObject({ retired: new Set([old.id]), conflicts: [] });
  });

  it('denies only the verb a denial negates, and reads a gerund object as the act', () => {
    const denial = fact('Omar has never apologized to the client for missing the launch deadline', { scope: 'accounts', agent: 'a', hoursAgo: 20 });
    const missed = fact("Omar missed the client's launch deadline on May 2", { scope: 'accounts', agent: 'b', hoursAgo: 80 });
    expect(analyze([missed, denial]).conflicts).toEqual([]);
    const apologized = fact('Omar apologized to the client in person for missing the launch deadline', { scope: 'accounts', agent: 'b', hoursAgo: 80 });
    expect(analyze([apologized, denial]).conflicts).toHaveLength(1);
    const never = fact('Lena has never reviewed "Designing Data-Intensive Applications"', { scope: 'reading', agent: 'a', hoursAgo: 20 });
    const started = fact('Lena started reviewing "Designing Data-Intensive Applications" on June 3', { scope: 'reading', agent: 'b', hoursAgo: 80 });
    expect(analyze([started, never]).conflicts).toHaveLength(1);
  });

  it('does not read a change verb governed by a subordinator as a reported change', () => {
    const cues = (text: string) => of(text, 'cue').map((e) => e.value);
    expect(cues('Ines has not sent the contract yet; she wants a review before moving it to legal')).not.toContain('change');
    expect(cues('Ines moved the contract to legal')).toContain('change');
  });

  it('keeps the dates of different events apart when verbs name the event', () => {
    const outage = fact("Omar's grandmother passed away on March 3, 2025", { scope: 'family', agent: 'a', hoursAgo: 80 });
    const review = fact("Omar's grandmother's memorial was at the Oak Street chapel on March 10, 2025, with 40 guests", { scope: 'family', agent: 'b', hoursAgo: 20 });
    expect(analyze([outage, review]).conflicts).toEqual([]);
  });
});
