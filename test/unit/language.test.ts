/**
 * The language module (packages/core/src/language/): values read by their shape, claims (what a
 * value measures, its qualifiers, plans and conditions, values named as replaced, negation), and
 * the alignment detection runs on (when two claims are about one thing, when they disagree, what
 * a denial denies). The sentences are made up for these tests; the assertions are about robust
 * properties (kinds, measures, values), not about every anchor, which is still being tuned.
 */
import { denies, disagree, matchKeysOf, mentions, namesReplaced, normalizeText, probeKeysOf, readFact, readText, sameThing, sameValue, viewOf, type Claim, type ClaimEntity } from '@engram/core';
import { describe, expect, it } from 'vitest';
import { valuesByShape } from '../../packages/core/src/language/values.ts';
import { detectorFact } from '../support/detector-facts.ts';

/** The values a text holds by shape, as [kind, canonical value]. */
const shapes = (text: string) => valuesByShape(normalizeText(text)).map((v) => [v.kind, v.value]);
/** The one value of a text, by shape. */
function shape(text: string) {
  const found = valuesByShape(normalizeText(text));
  expect(found, `values in "${text}"`).toHaveLength(1);
  return found[0]!;
}

/** The claims a fact's text holds. */
const claimsIn = (content: string) => readFact(content).filter((e): e is ClaimEntity => e.type === 'claim');
/** The one claim of a text stating a value of this kind (or naming one as replaced). */
function claim(content: string, kind?: string): ClaimEntity {
  const found = claimsIn(content).filter((c) => (kind === undefined || c.kind === kind) && (c.values.length > 0 || (c.previous?.length ?? 0) > 0));
  expect(found, `${kind ?? 'claims'} in "${content}"`).toHaveLength(1);
  return found[0]!;
}

/** The claims of a stored fact, as detection reads them. */
const claimsOf = (content: string, scope = 'svc', hoursAgo = 1) => viewOf(detectorFact(content, { scope, hoursAgo })).claims.filter((c) => c.values.length > 0 || (c.previous?.length ?? 0) > 0);
/** The one claim detection reads from a stored fact. */
function stored(content: string, scope = 'svc', hoursAgo = 1): Claim {
  const found = claimsOf(content, scope, hoursAgo);
  expect(found, `claims in "${content}"`).toHaveLength(1);
  return found[0]!;
}
/** Are two facts' claims about one thing (the older first, as detection compares them)? */
const same = (a: string, b: string, scopeA = 'svc', scopeB = scopeA) => sameThing(stored(a, scopeA, 10), stored(b, scopeB, 1));

describe('the reader', () => {
  it('cuts clauses at subordinators and reads joined identifiers whole', () => {
    const reading = readText('Checkout latency fell to 90 ms once the index on carts.updated_at shipped');
    expect(reading.clauses.map((c) => c.subordinator)).toEqual([null, 'once']);
    // "once a day" is how often, no clause.
    expect(claim('The kiosk export runs once a day at 03:00 UTC', 'duration')).toMatchObject({ measure: 'interval', values: ['86400'] });
    expect(readText('Refunds are greyed out once a booking is 90 days old').clauses.map((c) => c.subordinator)).toEqual([null, 'once']);
    expect(reading.words.map((w) => w.text)).toContain('carts.updated_at');
    // A prefix written with its trailing underscore keeps it, and not the bracket after it.
    expect(readText('Live keys start with a prefix (sk_live_) and rotate yearly').words.map((w) => w.text)).toContain('sk_live_');
    // A sentence the tokenizer ends inside parentheses ("(MR !77)") keeps the clause they interrupted.
    expect(readText('Removed the `old_export` job (MR !77) last week.').clauses.map((c) => c.words.map((w) => w.text).join(' '))).toContain('Removed the ` old_export ` job');
    // A colon in code quotes is a key's, joining no two statements.
    expect(claim('The `lint` job has `timeout-minutes: 12` (PR #88); the rules grew.', 'duration')).toMatchObject({ measure: 'timeout', values: ['720'] });
  });

  it('reads a plural noun the tagger could take for a verb as a noun', () => {
    expect(readText('We keep gateway logs in Loki for 10 days').words.find((w) => w.text === 'logs')?.pos).toBe('NOUN');
    // With the word's own lemma, not its last letter cut: "retries" is a retry.
    expect(readText('Max retries is 5').words.find((w) => w.text === 'retries')).toMatchObject({ pos: 'NOUN', lemma: 'retry' });
    expect(claim('Max retries is 5')).toMatchObject({ measure: 'retry', values: ['5'] });
  });

  it('reads a verb between a determiner and a noun as a noun that modifies it', () => {
    expect(readText('The owner of the build pipeline is Dana').words.find((w) => w.text === 'build')?.pos).toBe('NOUN');
  });

  it('reads a verb inside code quotes as part of a command, not the sentence\'s verb', () => {
    const words = readText('`run migrate` now stops when a lock is held').words;
    expect(words.find((w) => w.text === 'run')?.pos).not.toBe('VERB');
    expect(words.find((w) => w.text === 'stops')?.pos).toBe('VERB');
    expect(readText('Deploys run migrate first').words.find((w) => w.text === 'run')?.pos).toBe('VERB');
  });

  it('reads a closing parenthesis the tokenizer joined to the stop after it as two marks: the remark ends there', () => {
    const reading = readText('Deploys wait on the cutover (OPS-1234): nothing merges to `main` before it.');
    expect(reading.clauses.map((c) => c.subordinator)).toEqual([null, '(', ':', 'before']);
  });

  it('reads code quotes as holding no clause boundary and no question: "`?after=&limit=`" is a query string', () => {
    const reading = readText('Search endpoints page with `?after=&limit=` (max 50 per page).');
    expect(reading.clauses.map((c) => c.subordinator)).toEqual([null, '(']);
    expect(readFact('Search endpoints page with `?after=&limit=` (max 50 per page).').find((e) => e.type === 'mentions')).not.toHaveProperty('planned');
    // Also when a joined word holds its opening backtick.
    expect(readText('Bumped the image in `.ci/build.yml` to `node:22` — the warnings are gone.').clauses.length).toBe(2);
    // A question outside them asks; it states nothing.
    expect(readFact('Should we raise the search pool to 40?').find((e) => e.type === 'mentions')).toHaveProperty('planned', true);
    // Nor is a rule said with "won't" a plan; a change is ("won't move").
    expect(readFact("The kiosk API won't accept refunds past 120 days.").find((e) => e.type === 'mentions')).not.toHaveProperty('planned');
    expect(readFact("We won't move the kiosk queue to SQS.").find((e) => e.type === 'mentions')).toHaveProperty('planned', true);
  });

  it('reads what a question asks about in its sentence as stating nothing, unless that reports a change made', () => {
    expect(claim('The export worker batch size is 500, can you check it against the queue limit?', 'number')).toHaveProperty('mode', 'plan');
    expect(claim("I've raised the export worker batch size to 500, can you check it against the queue limit?", 'number')).not.toHaveProperty('mode');
    // A question in another sentence leaves the statement stated.
    expect(claim('The export worker batch size is 500. Can you check it against the queue limit?', 'number')).not.toHaveProperty('mode');
  });

  it('reads "I\'m" as the pronoun and "am", as it reads "we\'re": no name, and "I\'m raising" is under way', () => {
    expect(readText("I'm raising the pool size to 40.").words.slice(0, 2).map((w) => [w.text, w.lemma, w.pos])).toEqual([['I', 'i', 'PRON'], ["'m", 'be', 'AUX']]);
    const raising = claim("I'm raising the ingest pool size to 40.");
    expect(raising.mode).toBe('plan');
    expect(raising.anchors).not.toContain("i'm");
  });
});

describe('values by shape', () => {
  it('reads durations in seconds, as people write them', () => {
    expect(shape('Requests to the pricing-api time out after 250ms')).toMatchObject({ kind: 'duration', value: '0.25' });
    expect(shape('Idle carts are dropped after half an hour')).toMatchObject({ kind: 'duration', value: '1800' });
    expect(shape('Responders have a quarter of an hour to claim an incident')).toMatchObject({ kind: 'duration', value: '900' });
    expect(shape('Exports take three quarters of an hour')).toMatchObject({ kind: 'duration', value: '2700' });
    expect(shape('The full reindex takes an hour and a half')).toMatchObject({ kind: 'duration', value: '5400' });
    expect(shape('The ledger export takes 2-5 minutes')).toMatchObject({ kind: 'duration', value: '120-300', number: 120, high: 300 });
    // One hour is 3600 seconds.
    expect(shape('Signed links expire after 1 hour').value).toBe(shape('Signed links expire after 3600 seconds').value);
    expect(shape('Raw clickstream is kept for 7 years').value).toBe(String(7 * 365 * 86_400));
  });

  it('reads a duration written in parts, largest first, as one duration', () => {
    expect(shape('The nightly vacuum takes 1h 30m')).toMatchObject({ kind: 'duration', value: '5400' });
    expect(shape('WORKER_DRAIN_TIMEOUT=2m30s')).toMatchObject({ kind: 'duration', value: '150' });
    expect(shape('The lease is held for 2 hours and 15 minutes').value).toBe(shape('The lease is held for 135 minutes').value);
    // Not parts of one duration: steps of a backoff, each its own.
    expect(shapes('Retries back off 2s 4s 8s')).toEqual([['duration', '2'], ['duration', '4'], ['duration', '8']]);
  });

  it('reads sizes in bytes, binary and decimal units apart', () => {
    expect(shape('The renderer heap limit is 1 GiB').value).toBe(String(1024 ** 3));
    expect(shape('The renderer heap limit is 1024 MiB').value).toBe(String(1024 ** 3));
    expect(shape('The sidecar gets 512Mi of memory')).toMatchObject({ kind: 'size', value: String(512 * 1024 ** 2) });
    expect(shape('Attachments are capped at 25 MB')).toMatchObject({ kind: 'size', value: '25000000' });
  });

  it('reads rates per second, percentages, and numbers written with separators or k', () => {
    expect(shape('The edge proxy allows 1,000 req/s')).toMatchObject({ kind: 'rate', value: '1000' });
    expect(shape('The export API allows 600 requests per minute')).toMatchObject({ kind: 'rate', value: '10', of: 'request' });
    expect(shape('The search API allows 3k requests per minute')).toMatchObject({ kind: 'rate', value: '50' });
    expect(shape('The error budget is 0.5%')).toMatchObject({ kind: 'percentage', value: '0.5' });
  });

  it('reads a weekday a schedule names, not the day of one event nor a named day of the calendar', () => {
    expect(shapes('Deploys are frozen on Fridays')).toEqual([['weekday', 'friday']]);
    expect(shapes("Quiet week apart from Tuesday's paging storm")).toEqual([]);
    // "sat" and "sun" written small are words ("the job sat in the queue"), not days.
    expect(shapes('The kiosk export sat in the queue for 3 hours')).toEqual([['duration', '10800']]);
    expect(shapes('Kiosk maintenance runs sat-sun')).toEqual([['weekday', 'saturday-sunday']]);
    expect(shapes('The Black Friday freeze starts at noon')).toEqual([['time', '12:00']]);
    // A weekday written before a date is that date's day.
    expect(shapes('The kiosk freeze lifts on Wed Nov 4')).toEqual([['date', '--11-04']]);
    expect(shapes('The kiosk freeze lifts Monday, 2026-03-09')).toEqual([['date', '2026-03-09']]);
  });

  it('reads times of day in 24 hours, with their zone and ranges', () => {
    expect(shape('Standup is at 9:30am CET')).toMatchObject({ kind: 'time', value: '09:30 cet' });
    expect(shape('The freeze check runs at 9am UTC').value).toBe(shape('The freeze check runs at 09:00 UTC').value);
    expect(shape('Pairing hours are 10:00-16:00 UTC')).toMatchObject({ kind: 'time', value: '10:00-16:00 utc' });
    expect(shape('The deploy window opens at noon')).toMatchObject({ kind: 'time', value: '12:00' });
    // Also before a label's colon ("2:00 PM: deploy"); not a clock with a third field.
    expect(shape('- **2:00 PM:** deploy the kiosk build')).toMatchObject({ kind: 'time', value: '14:00' });
    expect(shapes('at 12:30: lunch')).toEqual([['time', '12:30']]);
    expect(shapes('aspect 16:9:4')).toEqual([]);
    // A cron line at a fixed time each day is that time; any other is a schedule.
    expect(shape('The compaction cron is 0 3 * * *')).toMatchObject({ kind: 'time', value: '03:00' });
    expect(shape('The cleanup cron is */15 * * * *')).toMatchObject({ kind: 'schedule', value: '*/15 * * * *' });
  });

  it('reads weekdays and their ranges', () => {
    expect(shape('Mobile releases ship on Tuesdays')).toMatchObject({ kind: 'weekday', value: 'tuesday' });
    expect(shape('Office hours run Mon-Thu')).toMatchObject({ kind: 'weekday', value: 'monday-thursday' });
    expect(shape('Nobody deploys on weekends')).toMatchObject({ kind: 'weekday', value: 'saturday-sunday' });
  });

  it('reads the time zone times are held in: UTC, or a place\'s local wall-clock time', () => {
    expect(shape('`orders.placed_at` is UTC')).toMatchObject({ kind: 'zone', value: 'utc' });
    expect(shape('placed_at is a timestamptz')).toMatchObject({ kind: 'zone', value: 'utc' });
    expect(shape('placed_at holds store-local wall-clock time')).toMatchObject({ kind: 'zone', value: 'local' });
    expect(shape('placed_at is a timestamp without time zone')).toMatchObject({ kind: 'zone', value: 'local' });
    // A zone after a clock is that time's.
    expect(shapes('The export runs at 02:00 UTC')).toEqual([['time', '02:00 utc']]);
    expect(same('`orders.placed_at` is UTC', '`orders.placed_at` is stored in local time')).toBe(true);
    expect(same('`orders.placed_at` is UTC', '`orders.shipped_at` is stored in local time')).toBe(false);
  });

  it('reads dates, with or without their year', () => {
    expect(shape('The change freeze starts on 2026-12-18')).toMatchObject({ kind: 'date', value: '2026-12-18' });
    expect(shape('The partner launch is set for March 3, 2027')).toMatchObject({ kind: 'date', value: '2027-03-03' });
    expect(shape('The beta slipped to the 14th of April')).toMatchObject({ kind: 'date', value: '--04-14' });
  });

  it('reads versions, of image tags and toolchain keys too, with what they are the version of', () => {
    expect(shape('The web image is built from node:22-alpine')).toMatchObject({ kind: 'version', value: '22', of: 'node' });
    expect(shape('Staging deploys ghcr.io/fernhill/ledger:v1.4.2')).toMatchObject({ kind: 'version', value: '1.4.2', of: 'ledger' });
    expect(shape('The database image is postgres:16.2')).toMatchObject({ kind: 'version', value: '16.2', of: 'postgres' });
    expect(shape('The lint job runs python3.12')).toMatchObject({ kind: 'version', value: '3.12', of: 'python' });
    expect(shape('The functions runtime is node20')).toMatchObject({ kind: 'version', value: '20', of: 'node' });
    expect(shape('The build agents run Node.js v24.1.0')).toMatchObject({ kind: 'version', value: '24.1.0' });
    // A date a version word names is that version, of the product whose interface it versions; after a preposition it is a day.
    expect(claim('Stripe API version pinned to 2023-10-16', 'version')).toMatchObject({ values: ['2023-10-16'], of: 'stripe' });
    expect(claim('Moved the Stripe API version 2023-10-16 → 2024-04-10', 'version')).toMatchObject({ values: ['2024-04-10'], previous: ['2023-10-16'], of: 'stripe' });
    expect(claimsIn('We shipped version 3.2.1 on 2026-01-12').map((c) => c.kind).sort()).toEqual(['date', 'version']);
    // A managed platform's build names its product after the number.
    expect(shape('The kiosk cluster runs 1.30.5-eks-ce1d5eb')).toMatchObject({ kind: 'version', value: '1.30.5', of: 'kubernetes' });
    expect(shape('The kiosk SDK is 2.4.1-beta')).toMatchObject({ kind: 'version', value: '2.4.1-beta' });
    // A package no list knows, its version after a label, an equals sign or the word for which release it is.
    expect(claim('wren-client latest = 4.2.0, pin ^4.2 in apps', 'version')).toMatchObject({ values: ['4.2.0'], of: 'wren-client' });
    expect(claim('wren-client: 4.3.1', 'version')).toMatchObject({ values: ['4.3.1'], of: 'wren-client' });
    // The technology a thing is built on, joined to the word for how.
    expect(claim('Webhook payloads are HS512-signed and retried hourly', 'technology')).toMatchObject({ values: ['hs512'], measure: 'signing_algorithm' });
    expect(claim('The audit queue is Kafka-based', 'technology')).toMatchObject({ values: ['kafka'], measure: 'message_broker' });
    // A size tier after the word for its size is a machine type.
    expect(claim('The analytics cluster `an-01` runs at size LARGE', 'machine')).toMatchObject({ values: ['large'], measure: 'machine_type' });
    expect(claim('`an-01` resized to X-Small over the holidays', 'machine')).toMatchObject({ values: ['xsmall'] });
    // At the end of a sentence too; the product written before the version, not the image it is built into; a key for it.
    expect(claim('The image uses avconv-lite 6.1.1.', 'version')).toMatchObject({ values: ['6.1.1'], of: 'avconv-lite' });
    expect(claim('The render image is based on avconv-lite 6.1.1 per its Dockerfile', 'version')).toMatchObject({ of: 'avconv-lite' });
    expect(claim('Pinned `AVCONV_VERSION` to 7.1.4 for the render jobs', 'version')).toMatchObject({ values: ['7.1.4'], of: 'avconv' });
    expect(same('wren-client latest = 4.2.0', 'wren-client 4.3.1 published to the registry')).toBe(true);
    // A host and a number is a port, not a version.
    expect(shape('The admin UI is on localhost:4000')).toMatchObject({ kind: 'port', value: '4000' });
  });

  it('reads ports however they are introduced', () => {
    expect(shape('Valkey runs on port 6380')).toMatchObject({ kind: 'port', value: '6380' });
    expect(shape('The gateway listens on 8443')).toMatchObject({ kind: 'port', value: '8443' });
    expect(shape('The collector scrapes the sidecar on :9464')).toMatchObject({ kind: 'port', value: '9464' });
    expect(shape('The ledger binds `:7443`')).toMatchObject({ kind: 'port', value: '7443' });
  });

  it('reads paths, URLs, emails, channels, handles and regions', () => {
    expect(shape('Carrier callbacks post to /v2/callbacks/dhl')).toMatchObject({ kind: 'path', value: '/v2/callbacks/dhl' });
    expect(shape('The job is defined in .github/workflows/nightly.yml')).toMatchObject({ kind: 'path', value: '.github/workflows/nightly.yml' });
    // Not the sentence's full stop; a directory is the same path with or without its slash.
    expect(shape('The job is defined in ci/jobs/nightly.yml.')).toMatchObject({ kind: 'path', value: 'ci/jobs/nightly.yml' });
    expect(shape('Fixtures live under `test/fixtures/`')).toMatchObject({ kind: 'path', value: 'test/fixtures' });
    expect(shape('API docs live at https://docs.fernhill.dev/api/')).toMatchObject({ kind: 'url', value: 'https://docs.fernhill.dev/api' });
    expect(shape('The ops board is at grafana.ops.fernhill.internal/d/x1')).toMatchObject({ kind: 'url', value: 'grafana.ops.fernhill.internal/d/x1' });
    expect(shape('Abuse reports go to abuse@fernhill.dev')).toMatchObject({ kind: 'email', value: 'abuse@fernhill.dev' });
    expect(shape('Deploy alerts post to #shipping-alerts')).toMatchObject({ kind: 'channel', value: '#shipping-alerts' });
    expect(shape('Ask @ana-lopez for staging access')).toMatchObject({ kind: 'person', value: 'ana-lopez' });
    expect(shape('The analytics cluster is in eu-central-1')).toMatchObject({ kind: 'region', value: 'eu-central-1' });
    expect(shape('The EU tenants run in europe-west4')).toMatchObject({ kind: 'region', value: 'europe-west4' });
  });

  it('reads money with its currency, however it is written', () => {
    expect(shape('The Pro tier costs €49 per seat')).toMatchObject({ kind: 'money', value: '49 eur' });
    expect(shape('The support contract is $1,200 a month')).toMatchObject({ kind: 'money', value: '1200 usd' });
    expect(shape('The workshop budget is 120 EUR')).toMatchObject({ kind: 'money', value: '120 eur' });
    expect(shape('The seed round was $2.5m')).toMatchObject({ kind: 'money', value: '2500000 usd' });
    // A scale is a word of its own: "$300 monthly" is not $300 million.
    expect(shape('Trial accounts get a $300 monthly credit')).toMatchObject({ kind: 'money', value: '300 usd' });
  });

  it('reads how often something happens as an interval: "every two weeks" is not "weekly"', () => {
    const twoWeeks = shape('The dependency sync runs every two weeks');
    expect(twoWeeks).toMatchObject({ kind: 'duration', measure: 'interval', value: String(14 * 86_400) });
    expect(shape('The dependency sync runs weekly')).toMatchObject({ kind: 'duration', measure: 'interval', value: String(7 * 86_400) });
    expect(shape('The dependency sync runs every other week').value).toBe(twoWeeks.value);
    expect(shape('The dependency sync runs fortnightly').value).toBe(twoWeeks.value);
    expect(shape('Signing keys rotate every 15 minutes')).toMatchObject({ kind: 'duration', value: '900', measure: 'interval' });
    expect(shape('Snapshots are taken twice a day')).toMatchObject({ kind: 'duration', value: '43200', measure: 'interval' });
    expect(shape('Snapshots are taken every night')).toMatchObject({ kind: 'duration', value: '86400', measure: 'interval' });
    // "every second Thursday" is every other one, not once a second.
    expect(valuesByShape(normalizeText('The release review is every second Thursday')).find((v) => v.kind === 'duration')?.value).toBe(twoWeeks.value);
    expect(shape('The health probe runs every second').value).toBe('1');
  });

  it('reads a size tier written with its x\'s as a size, not as a header named with X-', () => {
    expect(shape('The reporting warehouse is `RPT_WH` (X-Small)')).toMatchObject({ kind: 'machine', value: 'xsmall' });
    expect(shape('Webhooks carry an X-Request-Id header')).toMatchObject({ kind: 'header', value: 'x-request-id' });
    expect(shape('The db instance is m7g.xlarge')).toMatchObject({ kind: 'machine', value: 'm7g.xlarge' });
  });

  it('reads several values of one text in order', () => {
    expect(shapes('The fx-poller runs every 5 minutes from 06:00-22:00 UTC and retries after 30 s')).toEqual([
      ['duration', '300'],
      ['time', '06:00-22:00 utc'],
      ['duration', '30'],
    ]);
  });
});

describe('claims', () => {
  it('reads a timeout however it is said: "timeout", "times out after", "gives up after"', () => {
    for (const text of ['The ledger-sync request timeout is 45 seconds', 'Calls from ledger-sync time out after 45 s', 'ledger-sync gives up on a call after 45 seconds']) {
      expect(claim(text, 'duration'), text).toMatchObject({ measure: 'timeout', values: ['45'] });
    }
  });

  it('reads a retention however it is said: "retention", "kept for", "deleted after"', () => {
    for (const text of ['Session recordings have a retention of 30 days', 'Session recordings are kept for 30 days', 'Session recordings are deleted after 30 days']) {
      expect(claim(text, 'duration'), text).toMatchObject({ measure: 'retention', values: [String(30 * 86_400)] });
    }
  });

  it('reads other measures from their words', () => {
    expect(claim('The fx-poller retries a failed fetch 5 times')).toMatchObject({ measure: 'retry', values: ['5'] });
    expect(claim('The ranking-api keeps 7 replicas', 'count')).toMatchObject({ measure: 'replicas', values: ['7'] });
    expect(claim('The ranking-api p99 latency is 240 ms')).toMatchObject({ kind: 'duration', measure: 'latency', stat: 'p99', values: ['0.24'] });
    // A statistic of what led to a change is not the new figure's; one of when a figure was measured is.
    expect(claim('Raised the ranking-api pool to 30 after timeouts during the Friday peak', 'number').stat).toBeUndefined();
    expect(claim('The ranking-api ran 9 replicas during the Friday peak', 'count')).toMatchObject({ stat: 'peak' });
    expect(claim('The ranking-api uses Valkey as its cache', 'technology')).toMatchObject({ measure: 'cache', values: ['valkey'] });
    // What expires after a while has a lifetime, as a TTL does: not data kept for a period.
    expect(claim('Signed download links expire after 2 hours', 'duration')).toMatchObject({ measure: 'timeout' });
    expect(same('Signed download links have a 15 minute TTL', 'Signed download links expire after 2 hours')).toBe(true);
    // A measure's phrase written joined, as in keys and terse notes.
    expect(claim('tern-gw poolsize 40', 'number')).toMatchObject({ measure: 'pool' });
  });

  it('reads whom a value is counted for as its qualifier, not as a thing it is about', () => {
    const perKey = claim('tern-gw ratelimit: 50 rps per api key, burst 80', 'rate');
    expect(perKey).toMatchObject({ measure: 'limit', per: 'key' });
    expect(perKey.anchors).not.toContain('api');
    expect(same('tern-gw ratelimit: 50 rps per api key', 'tern-gw per-key cap = 600 req/min')).toBe(true);
    expect(same('tern-gw ratelimit: 50 rps per api key', 'tern-gw anonymous limit 5 rps per IP')).toBe(false);
    // After "each" the noun is singular; a plural form past it is the verb the tagger may take for a noun.
    expect(claim('Each worker pod opens at most 30 Redis connections - the pool size is set in the chart.', 'count')).toMatchObject({ per: 'pod' });
  });

  it('compares values written with one setting key as that setting, in one scope and environment, unless either names a thing of its own', () => {
    expect(same('Importer cap: `IMPORT_ROW_LIMIT=5000`.', 'The importer rejects files with more than 8000 rows (`IMPORT_ROW_LIMIT`).')).toBe(true);
    expect(same('`EXPORT_WAIT_MS=8000` in the exporter chart', 'The exporter waits 20 s before it aborts (`EXPORT_WAIT_MS`).')).toBe(true);
    // Each scope sets its own; a staging value is not prod's; a role the other never names is another thing.
    expect(same('Importer cap: `IMPORT_ROW_LIMIT=5000`.', 'The importer takes at most 8000 rows (`IMPORT_ROW_LIMIT`).')).toBe(true);
    expect(same('Importer cap: `IMPORT_ROW_LIMIT=5000`.', 'The importer takes at most 8000 rows (`IMPORT_ROW_LIMIT`).', 'svc/a', 'svc/b')).toBe(false);
    expect(same('Importer cap: `IMPORT_ROW_LIMIT=5000`.', 'staging `IMPORT_ROW_LIMIT` is 8000')).toBe(false);
    // A value said with no environment meets prod's.
    expect(same('Importer cap: `IMPORT_ROW_LIMIT=5000`.', 'The importer `IMPORT_ROW_LIMIT` is 8000 in the prod chart')).toBe(true);
    expect(same('`lock_timeout` is 2s', 'The `reporting` role has lock_timeout 30s')).toBe(false);
  });

  it('reads where a value is set (a chart, its values, a manifest) as no thing of its own', () => {
    expect(same('quote-api prod pods: `resources.limits.memory: 2Gi`.', 'Prod helm values give each quote-api pod 3Gi of memory.')).toBe(true);
    expect(same('`EXPORT_WAIT_MS=8000`', 'The exporter chart sets `EXPORT_WAIT_MS` to 20000')).toBe(true);
    // A thing of its own still is one.
    expect(same('quote-api prod pods: `resources.limits.memory: 2Gi`.', 'Prod sidecar of each quote-api pod: 3Gi of memory.')).toBe(false);
  });

  it('reads how often a thing runs as a quality of what it takes: the hourly run is not the nightly one', () => {
    const during = (text: string) => claimsOf(text).find((c) => c.kind === 'duration' && c.measure === 'duration')!;
    expect(during('Hourly sync jobs take about 2 minutes').qualities).toContain('hourly');
    expect(sameThing(during('The nightly reindex finishes in ~40 minutes'), during('Hourly reindex runs take ~3 minutes'))).toBe(false);
    expect(sameThing(during('The nightly reindex finishes in ~40 minutes'), during('The reindex now takes ~25 minutes'))).toBe(true);
    // "the weekly reset" says which reset: the day it runs on is that reset's day, not an interval.
    expect(claim('Moved the weekly quota reset to Sunday', 'weekday').measure).toBe('');
    const day = (text: string) => claimsOf(text).find((c) => c.kind === 'weekday')!;
    expect(sameThing(day('The weekly quota reset is on Monday at 00:00 UTC'), day('Moved the weekly quota reset to Sunday'))).toBe(true);
  });

  it('reads an amount of money no word names as what a thing costs', () => {
    expect(claim('Pro tier: €20 a month')).toMatchObject({ kind: 'money', measure: 'cost' });
    expect(same('Pro tier: €20 a month', 'The Pro tier costs €25 a month', 'billing')).toBe(true);
    expect(claim('The Pro tier has a €500 monthly quota')).toMatchObject({ kind: 'money', measure: 'limit' });
  });

  it('reads configuration keys by their words, and tells a minimum, a maximum and a request apart', () => {
    expect(claim('intake queue: VisibilityTimeout=90s', 'duration')).toMatchObject({ measure: 'timeout', values: ['90'] });
    expect(claim('Helm sets DB_POOL_SIZE=35 for the intake deployment')).toMatchObject({ measure: 'pool', values: ['35'] });
    expect(claim('USE_NEW_ROUTER=false in remote config', 'boolean')).toMatchObject({ values: ['false'], components: ['use_new_router'] });
    expect(claim('intake HPA minReplicas: 2')).toMatchObject({ measure: 'replicas', extreme: 'min', values: ['2'] });
    expect(claim('intake HPA maxReplicas is 20')).toMatchObject({ measure: 'replicas', extreme: 'max', values: ['20'] });
    expect(same('intake HPA minReplicas: 2', 'intake HPA maxReplicas is 20')).toBe(false);
    expect(claim('intake container memory limit is 512Mi', 'size')).toMatchObject({ measure: 'memory', extreme: 'max' });
    // A request is the floor a container is guaranteed: not its limit.
    expect(claim('intake container memory request is 256Mi', 'size').extreme).toBe('min');
    expect(same('intake container memory request is 256Mi', 'intake container memory limit is 512Mi')).toBe(false);
    expect(claim('The gateway allows 500 requests per minute').extreme).toBeUndefined();
    // A label's extreme is every listed value's; a request names the floor of each resource after it.
    expect(claimsIn('worker limits: memory 2Gi, cpu 2').map((c) => c.extreme)).toEqual(['max', 'max']);
    expect(claimsIn('worker prod: 3 pods, requests cpu 500m / memory 1Gi per pod').map((c) => [c.measure, c.extreme])).toEqual([['replicas', undefined], ['cpu', 'min'], ['memory', 'min']]);
    // How long a thing lives is its lifetime, a timeout as a TTL is.
    expect(claim('Kiosk access tokens live for 15 minutes', 'duration').measure).toBe('timeout');
    // A lead time is no measure of the event it leads.
    expect(claim('The session token is refreshed 30s before expiry', 'duration').measure).not.toBe('timeout');
    // A YAML key joined by hyphens names its measure and unit, however the value is given.
    expect(claim('The `lint` job has `timeout-minutes: 15`')).toMatchObject({ kind: 'duration', measure: 'timeout', values: ['900'] });
    expect(claim('lint job timeout-minutes is 25 now')).toMatchObject({ kind: 'duration', measure: 'timeout', values: ['1500'] });
    // Or its measure and extreme, as a Spring or Helm key writes it; a job's name of measure words stays a name.
    expect(claim('Raised the ledger `maximum-pool-size` from 16 to 32 on each pod')).toMatchObject({ measure: 'pool', extreme: 'max', values: ['32'], previous: ['16'] });
    expect(claim('The `invoice-run` job starts at 06:00 UTC', 'time').components).toContain('invoice-run');
    // A camel-case key ending in its unit or naming a port (Kubernetes, JSON): the figure in that unit, the port as a port.
    expect(claim('ledger-api readinessProbe timeoutSeconds: 5')).toMatchObject({ kind: 'duration', measure: 'timeout', values: ['5'] });
    expect(claim('the gateway idleTimeoutMs=30000')).toMatchObject({ kind: 'duration', values: ['30'] });
    expect(claim('ledger-api Deployment exposes containerPort 8443')).toMatchObject({ kind: 'port', values: ['8443'] });
    expect(readFact('the batch job reports 404 rows').some((e) => e.type === 'claim' && e.kind === 'port')).toBe(false);
    // A key's words count in their base form.
    expect(claim('Set `INTAKE_MAX_ATTEMPTS=6`')).toMatchObject({ measure: 'retry', values: ['6'] });
    // "250m" of CPU is a quarter of a core, not 250 minutes.
    expect(claim('intake pods: cpu request 250m')).toMatchObject({ kind: 'count', measure: 'cpu', values: ['0.25'] });
  });

  it('reads the setting a value is written as: a key before it, before its copula, or alone in parentheses after it', () => {
    expect(claim('Ingest workers: `WORKER_POOL_MAX=12`.').setting).toBe('worker_pool_max');
    expect(claim('`WORKER_POOL_MAX` is 20 in the ingest chart').setting).toBe('worker_pool_max');
    expect(claim('The exporter gives up after 30 s (`EXPORT_WAIT_MS`).', 'duration').setting).toBe('export_wait_ms');
    expect(claim('kafka `retention.ms: 86400000`').setting).toBe('retention.ms');
    // Not a product's name before its version, a name with a version of its own, or a file.
    expect(claim('The admin app runs Next.js 15', 'version').setting).toBeUndefined();
    expect(claim('Topic `orders.v3`: 12 partitions').setting).toBeUndefined();
    expect(claim('`values.yaml`: 3 replicas').setting).toBeUndefined();
    // A value with another between it and the parentheses is not the key's.
    expect(claimsIn('Exports retry 3 times, 10 s apart (`EXPORT_BACKOFF_S`)').find((c) => c.values.includes('3'))?.setting).toBeUndefined();
  });

  it('reads a bare figure a copula gives a plural noun as a count of that noun: "max uploads per user is now 4"', () => {
    expect(claim('Max uploads per user is now 4')).toMatchObject({ measure: 'upload', values: ['4'], per: 'user' });
    expect(same('mailer: at most 2 reminders per invoice', 'Max reminders per invoice is now 3', 'mailer')).toBe(true);
    // Not whom it is counted for, and not a figure with a measure of its own.
    expect(claim('Max uploads per user is now 4').measure).not.toBe('user');
    expect(claim('The upload limit per user is 4 MB').measure).not.toBe('upload');
  });

  it('reads a product of another kind beside a product as what it works with, not a thing of its own', () => {
    const orm = (text: string, hoursAgo: number) => claimsOf(text, 'kiosk', hoursAgo).find((c) => c.measure === 'orm')!;
    const prisma = orm('Every kiosk-api query goes through the Prisma client.', 10);
    expect(sameThing(prisma, orm('kiosk-api reaches Postgres through Drizzle ORM.', 1))).toBe(true);
    // Another component is another thing still.
    expect(sameThing(prisma, orm('kiosk-web reaches Postgres through Drizzle ORM.', 1))).toBe(false);
  });

  it('reads a product by its name, not by an inflected word whose lemma is one ("goes" is not Go)', () => {
    expect(claimsIn('A second nudge goes 1 day after the release').some((c) => c.kind === 'technology')).toBe(false);
    expect(claim('The ledger is written in Go', 'technology')).toMatchObject({ values: ['go'], measure: 'language' });
    // A column store teams query for analytics is a warehouse, as BigQuery or Snowflake are.
    expect(claim('Product analytics run on ClickHouse', 'technology')).toMatchObject({ values: ['clickhouse'], measure: 'data_warehouse' });
  });

  it('reads a time before an event and one after it as two offsets from it', () => {
    expect(claim('The first nudge goes out 2 hours before the release', 'duration').offset).toBe('before');
    expect(claim('A second nudge goes out 30 minutes after the release', 'duration').offset).toBe('after');
    expect(same('The nudge goes out 2 hours before the release', 'The nudge goes out 30 minutes after the release')).toBe(false);
    expect(same('The nudge goes out 2 hours before the release', 'The nudge goes out 4 hours before the release')).toBe(true);
  });

  it('reads a number after a product as its version unless it counts things: "Postgres 16 upgrade", "Kafka 3 brokers"', () => {
    expect(claim('The Postgres 16 upgrade finished on staging', 'version')).toMatchObject({ values: ['16'], of: 'postgres' });
    expect(claimsIn('The Postgres 16 upgrade finished on staging').some((c) => c.kind === 'count')).toBe(false);
    expect(claim('Kafka 3 brokers in prod', 'count')).toMatchObject({ values: ['3'], measure: 'broker' });
    // A compound opened by a number word is no component's name.
    expect(claim('The web app is a React 18 single-page app', 'version').components).toEqual([]);
  });

  it('reads counts of any noun, and not the day of a written date or a weight as one', () => {
    expect(claim('The intake queue retries failed jobs 7 times')).toMatchObject({ kind: 'count', measure: 'retry', values: ['7'] });
    expect(claimsIn('Kai took 40 photos at the June 12 offsite').filter((c) => c.kind === 'count').map((c) => c.values)).toEqual([['40']]);
    expect(claim('Kai weighs 170 pounds')).toMatchObject({ kind: 'count', values: ['170'] });
  });

  it('reads every figure of a list as counting the noun after its last one, so one of them agrees with the list', () => {
    expect(claim('Thumbnails are cut at 1440p, 900p and 300p sizes')).toMatchObject({ kind: 'count', values: ['1440', '900', '300'] });
    expect(claim('Shards hold 2, 4 or 8 partitions')).toMatchObject({ values: ['2', '4', '8'] });
    expect(disagree(claim('Thumbnails are cut at 1440p, 900p and 300p sizes'), claim('The app downloads only the 900p size'))).toBe(false);
    expect(disagree(claim('Thumbnails are cut at 1440p, 900p and 300p sizes'), claim('The app downloads only the 600p size'))).toBe(true);
    expect(claimsIn('The timeout is 30, and 5 retries are allowed').map((c) => c.values)).not.toContainEqual(['30', '5']);
    // "between 2 and 8 nodes" is a range, not a list.
    expect(claim('The autoscaler keeps the pool between 2 and 8 nodes', 'count').values).toEqual(['2-8']);
  });

  it('reads a name between a count and what it counts as narrowing it: HTTP/2 connections are not the DB pool', () => {
    expect(claim('ledger-api keeps 4 HTTP/2 connections per pod').anchors).toContain('http/2');
    expect(same('ledger-api `DB_POOL_MAX` is 30 per pod', 'ledger-api keeps 4 HTTP/2 connections per pod')).toBe(false);
    expect(same('ledger-api keeps 4 HTTP/2 connections per pod', 'ledger-api now keeps 8 HTTP/2 connections per pod')).toBe(true);
  });

  it('reads the environment a value holds in, and bounds apart from values', () => {
    expect(claim('The ranking-api keeps 7 replicas in production', 'count')).toMatchObject({ env: 'prod', values: ['7'] });
    expect(claim('The ranking-api runs 2 replicas in staging', 'count')).toMatchObject({ env: 'staging' });
    expect(claim('The ranking-api keeps 7 replicas', 'count').env).toBeUndefined();
    expect(claim('The ranking HPA keeps at least 2 pods', 'count')).toMatchObject({ measure: 'replicas', bound: 'min', values: ['2'] });
    expect(claim('The ranking HPA is capped at 12 pods', 'count')).toMatchObject({ measure: 'replicas', bound: 'max', values: ['12'] });
    // Not where it comes from: a staging copy restored from a prod snapshot holds in staging.
    expect(claim('Staging DB is restored from a prod snapshot nightly', 'duration').env).toBe('staging');
  });

  it('marks plans and work in progress as plans, and conditions on a change as conditional', () => {
    expect(claim('We plan to raise the ranking-api pool to 40 connections').mode).toBe('plan');
    expect(claim('Next quarter we will move the ranking-api to OpenSearch', 'technology').mode).toBe('plan');
    expect(claim('The team is migrating the ranking job queue to SQS', 'technology').mode).toBe('plan');
    expect(claim('If the soak test passes, we raise the ranking-api pool to 40 connections').mode).toBe('if');
    // A fact announcing a change is hedged by a plan or a condition in the change's sentence, not by a rule in another one.
    const hedged = (text: string) => readFact(text).find((e) => e.type === 'mentions')?.hedged === true;
    expect(hedged("Swapped the hosted build agents for our own runners. Staging deploys won't start without an approval.")).toBe(false);
    expect(hedged('We will swap the hosted build agents for our own runners.')).toBe(true);
    expect(hedged('Swapped the hosted build agents for our own runners, and if the queue grows we will add more.')).toBe(true);
    expect(claim('We are evaluating a ranking-api pool of 40 connections').mode).toBe('plan');
    // A change part of the way through ("14 of 20 services moved") is under way; all of them moved is done; a part that states no change is a state.
    expect(claim('14 of 20 services moved to Kafka', 'technology').mode).toBe('plan');
    expect(claim('All 20 services moved to Kafka', 'technology').mode).toBeUndefined();
    expect(claim('3 of 5 brokers run Kafka 3.7', 'technology').mode).toBeUndefined();
    // A plan verb as what a thing does is no plan.
    expect(claim('Workers evaluate ranking rules through the rules-engine sidecar on localhost:7070', 'port').mode).toBeUndefined();
    // Stated values are neither.
    expect(claim('The ranking-api pool has 20 connections').mode).toBeUndefined();
    // A change supposed after "even" is a condition, not a change made.
    expect(claimsIn('Even scaled out to 30 pods, ranking-api stays under 900 connections').map((c) => c.mode)).toEqual(['if', 'if']);
    expect(claim('Even so, we raised the ranking-api pool to 40 connections').mode).toBeUndefined();
    // A heading whose head noun is a plan makes its sentence one.
    expect(claimsIn('Python 3.11 → 3.13 plan: ranking-api first; batch jobs after the freeze').filter((c) => c.kind === 'version').map((c) => c.mode)).toEqual(['plan']);
    expect(claim('We raised the ranking-api pool to 40 connections').mode).toBeUndefined();
    // A version named as a piece of work's target is no version in use until the work is said to be done.
    expect(claim('The Kotlin 2.1 migration is tracked as AND-311, waiting on a kapt fix', 'version').mode).toBe('plan');
    expect(claim('The Kotlin 2.1 migration finished on Tuesday', 'version').mode).toBeUndefined();
    expect(claim('The app builds with Kotlin 2.1', 'version').mode).toBeUndefined();
    // A date after "starting" is when a change took effect, not work starting.
    expect(claim('The storage budget was increased to $900 starting October 1', 'money')).toMatchObject({ values: ['900 usd'], cue: 'change' });
    expect(claim('The storage budget was increased to $900 starting October 1', 'money').mode).toBeUndefined();
    // A change verb of two words ("went up to", "go down to") as one of one word.
    expect(claim('Seat pricing on the Growth plan went up to $39', 'money')).toMatchObject({ values: ['39 usd'], cue: 'change' });
    expect(claim('Seat pricing on the Growth plan is up to $39 in the new tier table', 'money')).not.toHaveProperty('cue');
    // Instances are upsized and downsized: a change of their size.
    expect(claimsIn('Upsized the orders-db instance from `db.r6g.large` to `db.r6g.xlarge`').find((c) => c.kind === 'machine')).toMatchObject({ values: ['r6g.xlarge'], previous: ['r6g.large'], cue: 'change' });
  });

  it('reads the value a fact names as replaced: "from 3.1 to 3.2" is 3.2, previously 3.1', () => {
    expect(claim('We upgraded the payments SDK from 3.1 to 3.2')).toMatchObject({ values: ['3.2'], previous: ['3.1'], cue: 'change' });
    // A time said after a figure is not what it counts.
    expect(claimsIn('Rolled the kiosk fleet to 4.2 last night').some((c) => c.kind === 'count')).toBe(false);
    // A kit's release after its name ("Expo SDK 51") is a version of the product.
    expect(claim('Bumped the kiosk app from Expo SDK 49 to Expo SDK 51', 'version')).toMatchObject({ of: 'expo', values: ['51'], previous: ['49'] });
    // The product's name may be written again before the new version; a capitalised name after "to" is no verb of purpose.
    expect(claim('Moved the worker from Ruby 3.2 to Ruby 3.3', 'version')).toMatchObject({ of: 'ruby', values: ['3.3'], previous: ['3.2'], cue: 'change' });
    expect(claim('Bumped `apps/relay` from Go 1.20 to Go 1.22 in the build image', 'version')).toMatchObject({ of: 'go', values: ['1.22'], previous: ['1.20'], cue: 'change' });
    expect(claim('We raised the ledger-sync timeout from 30 seconds to 60 seconds', 'duration')).toMatchObject({ measure: 'timeout', values: ['60'], previous: ['30'] });
    expect(claim('The preview session TTL is now 10 minutes (was 5 minutes)', 'duration')).toMatchObject({ values: ['600'], previous: ['300'] });
    expect(claim('The nightly compaction now takes 9 minutes (was ~25)', 'duration')).toMatchObject({ values: ['540'], previous: ['1500'] });
    expect(claim('The preview session TTL is 10 minutes, down from 30 minutes', 'duration')).toMatchObject({ values: ['600'], previous: ['1800'] });
    expect(claim('We replaced Sentry with Rollbar for error tracking', 'technology')).toMatchObject({ measure: 'error_tracking', values: ['rollbar'], previous: ['sentry'] });
    // An address mail is sent from is its sender, not where it goes; code quotes around a value are no words between.
    expect(claim('Receipts are sent from `billing@shop.test`', 'email')).toMatchObject({ measure: 'sender', values: ['billing@shop.test'] });
    expect(claim('Moved the receipt From address to `orders@mail.shop.test`', 'email')).toMatchObject({ measure: 'sender', values: ['orders@mail.shop.test'], cue: 'change' });
    expect(claim('Receipts are sent to `finance@shop.test` too', 'email')).toMatchObject({ measure: 'destination' });
    // What a delivery targets is where it goes.
    expect(claim('Refund webhooks now target `/v3/refunds/events`', 'path')).toMatchObject({ measure: 'destination', cue: 'change' });
    expect(claim('Refund event delivery goes to `/v3/refunds/events`', 'path')).toMatchObject({ measure: 'destination' });
    expect(claim('We replaced Firebase Crashlytics with Bugsnag in the kiosk app', 'technology')).toMatchObject({ measure: 'error_tracking', values: ['bugsnag'], previous: ['crashlytics'] });
    expect(claim('Shipping alerts now go to #ship-ops instead of #ops', 'channel')).toMatchObject({ values: ['#ship-ops'], previous: ['#ops'] });
    expect(claim('Checkout now charges cards through Adyen instead of Stripe', 'technology')).toMatchObject({ values: ['adyen'], previous: ['stripe'] });
    // Two products of different kinds are a choice of source, not one product swapped for another.
    expect(claimsIn('The latency panel reads from Prometheus rather than Snowflake').filter((c) => c.previous)).toEqual([]);
    expect(claim('We moved the analytics warehouse from us-east-1 to eu-west-1', 'region')).toMatchObject({ values: ['eu-west-1'], previous: ['us-east-1'] });
    // A value said to be gone is replaced by none.
    expect(claim('We dropped Sentry', 'technology')).toMatchObject({ values: [], previous: ['sentry'] });
    // A sampling written as one in so many is that share, and "from 1/8 to 1/40" names the one it replaced.
    expect(claim('Checkout traces are kept at 1-in-20 head sampling', 'percentage')).toMatchObject({ measure: 'sampling', values: ['5'] });
    expect(claim('Changed trace sampling for checkout from 1/8 to 1/40', 'percentage')).toMatchObject({ measure: 'sampling', values: ['2.5'], previous: ['12.5'] });
    expect(claimsIn('Deploy the checkout fix on 1/10 at noon').some((c) => c.kind === 'percentage')).toBe(false);
    // A chain of steps is a plan or a flow, not a replacement at its last step.
    expect(claimsIn('Canary rollout goes 5% → 25% → 100%, a day at each step').filter((c) => c.previous)).toEqual([]);
    // An arrow the tagger splits in two still names the old value.
    expect(claim('intake hpa maxReplicas: 6 -> 12')).toMatchObject({ values: ['12'], previous: ['6'] });
    // "from … to" between two points in time is a span, unless a word for a change comes first.
    expect(claim('Batch imports pause from Saturday to Sunday', 'weekday')).toMatchObject({ values: ['saturday', 'sunday'] });
    expect(claim('Batch imports pause from Saturday to Sunday', 'weekday').previous).toBeUndefined();
    expect(claim('We moved batch imports from Saturday to Sunday', 'weekday')).toMatchObject({ values: ['sunday'], previous: ['saturday'] });
  });

  it('marks a change announced without the old value by its cue, with nothing named as replaced', () => {
    const bumped = claim('We raised the ranking-api pool to 40 connections');
    expect(bumped).toMatchObject({ cue: 'change', values: ['40'] });
    expect(bumped.previous).toBeUndefined();
    // An irregular past ("grew", "rose") is a change done as much as "raised".
    expect(claim('The search shard count grew to 12 after the reindex').cue).toBe('change');
    expect(claim('The search shard count grows to 12 under load').cue).toBeUndefined();
    // A passive with a target is a change done, whatever the participle's form ("cut" is its own).
    expect(claim('Per OPS-31 the `audit.v2` TTL was cut to 12 hours.', 'duration').cue).toBe('change');
    expect(readFact('The billing-jobs schema grew out of the original monolith, so it stays on 5 shards').some((e) => 'cue' in e)).toBe(false);
    expect(claim('The edge burst limit is actually 900 req/s', 'rate')).toMatchObject({ cue: 'correction', values: ['900'] });
    expect(claim('The edge burst limit is 900 req/s', 'rate').cue).toBeUndefined();
    // A correction a label announces is said by what follows its colon.
    expect(claim('Correction to the backup note: snapshots are kept 30 days', 'duration')).toMatchObject({ cue: 'correction', values: ['2592000'] });
    expect(claim('Update: the archive bucket lives in eu-north-1', 'region')).toMatchObject({ cue: 'change', values: ['eu-north-1'] });
    // A product named with the word is no change ("EAS Update", "Windows Update").
    expect(readFact('Mobile hotfixes go out via EAS Update on the beta channel').some((e) => 'cue' in e)).toBe(false);
  });

  it('marks what a negation governs as negated, and not what comes before it', () => {
    expect(claim('The reporting-api does not use Valkey', 'technology')).toMatchObject({ negated: true, values: ['valkey'] });
    const [kept, denied] = claimsIn('Invoices go to S3, not local disk').filter((c) => c.kind === 'technology');
    expect(kept).toMatchObject({ values: ['s3'] });
    expect(kept!.negated).toBeUndefined();
    expect(denied).toMatchObject({ values: ['local disk'], negated: true });
    // "no more than" is a bound, not a denial.
    expect(claimsIn('A search page returns no more than 500 hits').every((c) => !c.negated)).toBe(true);
    // In a condition the negation says when a rule fires; the figure is the rule's, not denied.
    const [threshold] = claimsIn('Opsgenie policy: if the first responder has not acked a build alert within 15 minutes, it escalates to the backup responder.');
    expect(threshold).toMatchObject({ kind: 'duration', values: ['900'] });
    expect(threshold!.negated).toBeUndefined();
  });

  it('reads a comparison after the values and a comma as a detail, not the thing the clause is about', () => {
    const [image] = claimsIn("Bumped the docs site's CI image to `ruby:3.3-slim` in `ci/docs.yml`, the same Ruby line billing-api runs on.").filter((c) => c.kind === 'version');
    expect(image).toMatchObject({ values: ['3.3'] });
    expect(image!.components).not.toContain('billing-api');
    const [retries] = claimsIn('The export-worker retries 4 times, like billing-api').filter((c) => c.measure === 'retry');
    expect(retries?.components).toEqual(['export-worker']);
  });

  it('reads statements, deletion requests and dependencies', () => {
    const statements = readFact('The kiosk app sends no telemetry').filter((e) => e.type === 'statement');
    expect(statements).toMatchObject([{ positive: false, target: ['telemetry'] }]);
    expect(readFact('The kiosk app sends crash telemetry to Sentry').filter((e) => e.type === 'statement')).toMatchObject([{ positive: true, verb: 'send' }]);
    // An instruction tells what to do, not what is: it denies nothing; a denial with a subject does.
    expect(readFact("Don't shrink the pool without checking billing.").filter((e) => e.type === 'statement')).toEqual([]);
    expect(readFact('Never ship the kiosk app on Fridays.').filter((e) => e.type === 'statement')).toEqual([]);
    expect(readFact('The kiosk app does not use Redis.').filter((e) => e.type === 'statement')).toMatchObject([{ positive: false, target: ['redis', 'cache'] }]);
    expect(readFact('Forget the note about the WireGuard gateway').find((e) => e.type === 'deletion')).toMatchObject({ target: expect.arrayContaining(['wireguard', 'gateway']) });
    // A note said to be wrong in any words is one to forget; a thing said to be wrong is no note.
    expect(readFact('The memory that the kiosk build signs with the Hopper key is incorrect; please remove it').find((e) => e.type === 'deletion')).toMatchObject({ target: expect.arrayContaining(['kiosk', 'hopper']) });
    expect(readFact('The kiosk build signature is incorrect after the key rotation').find((e) => e.type === 'deletion')).toBeUndefined();
    // Named by its names and nouns: how the request puts it ("being disabled for") need not be the note's words.
    expect(readFact('Please drop the note about `beta_exports` being disabled for tenants').find((e) => e.type === 'deletion')).toMatchObject({ target: ['beta_exports', 'tenant'] });
    // Named up to what is said of it: "never true" is no part of the note.
    const never = readFact('The note that the kiosk build signs with the Hopper key was never true').find((e) => e.type === 'deletion');
    expect(never).toMatchObject({ target: expect.arrayContaining(['kiosk', 'hopper']) });
    expect(never).not.toMatchObject({ target: expect.arrayContaining(['true']) });
    expect(readFact('Search ingest is paused until the reindex finishes').find((e) => e.type === 'dependency')).toMatchObject({ target: ['reindex'], ends: true });
    // The lead a team is under holds a role; it is no component of what the team owns.
    expect(claim('The billing service belongs to the Ledger squad under Ana Reyes.', 'team').components).toEqual([]);
    // What holds only for a while: for as long as a thing lasts, while someone is out or some work is in progress.
    const dependency = (text: string) => readFact(text).find((e) => e.type === 'dependency');
    expect(dependency('SMS codes go through Twilio for as long as the Twilio contract runs')).toMatchObject({ target: ['twilio', 'contract'], ends: true });
    expect(dependency('While Dana is on leave, Lee approves schema changes')).toMatchObject({ target: ['dana'], ends: true });
    expect(dependency('Old exports stay on while the Parquet migration is in progress')).toMatchObject({ target: ['parquet', 'migration'], ends: true });
    // Not a condition that holds each time it recurs, nor "while" of two things at once.
    expect(dependency('The app pings every 15 seconds while a trip is active')).toBeUndefined();
    expect(dependency('Readiness fails while the producer buffer is more than 80% full')).toBeUndefined();
    expect(dependency('Reads go to the replica, while writes go to the primary')).toBeUndefined();
    // What a person holds or grants ("Dana's key"), not what is theirs to work on ("Dana's tickets").
    expect(dependency("Kiosk builds are signed with Dana's key")).toMatchObject({ target: ['dana', 'key'] });
    expect(dependency("We moved Dana's kiosk tickets to the platform team")).toBeUndefined();
  });

  it('reads "Set X to N" as a change the writer made, and "X is set to N" as the value it holds', () => {
    expect(claim('Set the ledger-api worker pool to 24 before the import').cue).toBe('change');
    expect(claim('We set the ledger-api worker pool to 24').cue).toBe('change');
    expect(claim('Set LEDGER_POOL_MAX=24 on ledger-api').cue).toBe('change');
    expect(claim('Set `replicaCount: 5` for `ledger-api` in `values-prod.yaml` ahead of the statewide rollout in Ohio').cue).toBe('change');
    // When it is for names no thing of its own.
    expect(claim('Set `replicaCount: 5` for `ledger-api` in `values-prod.yaml` ahead of the statewide Schoology rollout in Ohio').components).not.toContain('schoology');
    expect(claim('The ledger-api worker pool is set to 24').cue).toBeUndefined();
    // A third person's present after "and" says what a thing does, not a change made.
    expect(readFact('The janitor scans old uploads and moves each file to cold storage').some((e) => 'cue' in e)).toBe(false);
    expect(readFact('Moved each booking to RELEASED').some((e) => 'cue' in e)).toBe(true);
  });

  it("reads what follows a label's colon as the holder of the role the label names, dates in parentheses or not", () => {
    for (const text of ['Secondary on-call for the mobile apps: Maria Lopez.', 'Secondary on-call for the mobile apps this sprint (Jan 5 – Jan 16): Maria Lopez.']) {
      expect(claim(text, 'person')).toMatchObject({ measure: 'oncall', values: ['maria lopez'] });
      // A period that holds, not a day something happened on.
      expect(claim(text, 'person').mode).toBeUndefined();
    }
    // Names no list knows are a person's when none of them is an English word; a team's name is made of words.
    expect(claim('Primary on-call for the ingest service this week: Oluwaseun Adeyemi', 'person')).toMatchObject({ values: ['oluwaseun adeyemi'] });
    expect(claim('Support Tooling owns the ingest service', 'name')).toMatchObject({ measure: 'owner', values: ['support tooling'] });
    // With no role named before the colon, the person is what the label is about, not a value.
    expect(claimsIn('Notes on the mobile apps: Maria Lopez').filter((c) => c.kind === 'person')).toEqual([]);
  });

  it("reads a label's colon as naming its value when the only verb after it is in a clause of its own", () => {
    // The reason after the value ("because ...", ", since ...") makes no statement of what follows the colon.
    for (const text of ['Upload gateway request timeout: 45s because phone uploads are slow', 'Upload gateway request timeout: 45s, since phone uploads are slow']) {
      expect(claim(text, 'duration')).toMatchObject({ measure: 'timeout', values: ['45'] });
    }
    // A statement after the colon still is one.
    expect(claimsIn('We dropped the upload gateway: phones post straight to the bucket').filter((c) => c.kind === 'duration')).toEqual([]);
  });

  it('reads a side remark after a value (", confirmed in ...") as where it was seen, not what it is about', () => {
    expect(claim('The upload size limit is 25 MB, confirmed in the proxy settings', 'size').anchors).toEqual([]);
    // A clause naming nothing still borrows what the clause before it names.
    expect(claim('The proxy caps uploads; the limit is 25 MB', 'size').anchors).toContain('proxy');
  });

  it('reads a relative clause saying what a thing did as no change, unless it names a target', () => {
    const cued = (text: string) => readFact(text).some((e) => 'cue' in e && e.cue === 'change');
    expect(cued('Search slowed down for an hour; the cause was a driver release that changed the connection limits.')).toBe(false);
    expect(cued('The PR that moved the billing queue to SQS landed')).toBe(true);
    expect(cued('We changed the connection limits of the search cluster')).toBe(true);
  });

  it('reads what can or must be done as a capability or a rule, not as a change', () => {
    const cued = (text: string) => readFact(text).some((e) => 'cue' in e && e.cue === 'change');
    expect(cued('Partner API keys can be rotated with a 12h overlap while both keys work.')).toBe(false);
    expect(cued('Deploy tokens must be renewed to a 30-day expiry.')).toBe(false);
    expect(cued('Partner API keys were rotated to a 12h overlap last week.')).toBe(true);
  });

  it('reads a change denied as none made, and one added now as leaving what was there', () => {
    const cued = (text: string) => readFact(text).some((e) => 'cue' in e && e.cue === 'change');
    expect(cued('We have not moved the render queue to SQS yet.')).toBe(false);
    expect(cued("The render queue hasn't been migrated.")).toBe(false);
    expect(cued('Never upgraded the kiosk runners.')).toBe(false);
    expect(cued('We moved the render queue to SQS.')).toBe(true);
    expect(cued('The render queue no longer runs on RabbitMQ.')).toBe(true);
    // "Now also": an addition, not a replacement of what was there.
    expect(cued('Kiosks now also log a heartbeat on resume.')).toBe(false);
    expect(cued('Kiosks now log a heartbeat on resume.')).toBe(true);
    // A value said again as unchanged is kept, not changed.
    expect(claim('The kiosk heartbeat interval is still 30s', 'duration').kept).toBe(true);
    expect(claim('The kiosk heartbeat interval stays at 30s', 'duration').kept).toBe(true);
    expect(claim('The kiosk heartbeat interval is 30s', 'duration').kept).toBeUndefined();
  });

  it('reads a person named in an explicit replacement as the new holder of the role', () => {
    expect(claim('billing pager: @ana → @bo from Monday', 'person')).toMatchObject({ values: ['bo'], previous: ['ana'] });
    expect(claim('Primary on-call moved from Dana to Lee', 'person')).toMatchObject({ cue: 'change', values: ['lee'], previous: ['dana'] });
    // Where a thing is kept, moved from a product into a path or an address.
    expect(claim('We moved the design docs from Notion into `docs/design/` last week', 'path')).toMatchObject({ cue: 'change', values: ['docs/design'], previous: ['notion'] });
  });

  it('reads a figure of what is left of something used up as a reading at its moment', () => {
    expect(claim('Checkout latency budget remaining this week: 62%', 'percentage').mode).toBe('event');
    expect(claim('Build minutes left on the CI plan: 1,200', 'number').mode).toBe('event');
    // A month and day as logs write them ("03-14") is a date where a date is meant, not a range.
    expect(claim('kiosk-verify 03-14: 12,000 receipts checked OK', 'date')).toMatchObject({ values: ['--03-14'], mode: 'event' });
    expect(claim('Kiosk fleet was reimaged on 03-14', 'date')).toMatchObject({ values: ['--03-14'] });
    expect(claimsIn('The kiosk pool scales between 10-12 replicas').some((c) => c.kind === 'date')).toBe(false);
    // "was" tells the past too: what ran on a date held then.
    expect(claim('The kiosk pool was running 14 pods on 03-12 at 09:00 UTC', 'count')).toMatchObject({ values: ['14'], mode: 'event' });
    // A value holding from a date on is a change; a span of days is not.
    expect(claim('Kiosk fleet owner: Dana Ortiz, from 03-09.', 'person')).toMatchObject({ cue: 'change' });
    expect(claim('Kiosk fleet owner: Dana Ortiz, from 03-09 to 03-13 while Ana is away.', 'person').cue).toBeUndefined();
    // A value put in place on a date ("deployed 03-14") is a change done, not a record of then.
    expect(claim('Kiosk idle logout is 10 minutes; `KIOSK_IDLE_MIN=10` deployed 03-14.', 'number')).toMatchObject({ setting: 'kiosk_idle_min', cue: 'change' });
    expect(claim('Kiosk idle logout is 10 minutes; `KIOSK_IDLE_MIN=10` deployed 03-14.', 'number').mode).toBeUndefined();
    // A day of the week as a label, told in the past tense after it, is a log of that day; a weekly habit is not.
    expect(claim('Thu: the `kiosk-sync` alert fired at 02:10 UTC and cleared by itself', 'time').mode).toBe('event');
    expect(claim('Thursdays: the kiosk report is mailed at 02:10 UTC', 'time').mode).toBeUndefined();
    expect(readFact('Build minutes left on the CI plan: 1,200').find((e) => e.type === 'mentions')).not.toHaveProperty('ended');
    // Not what remains of a set, nor a person who left.
    expect(claim('The remaining 2 replicas run in staging', 'count').mode).toBeUndefined();
    expect(claimsIn('Dana left the billing team in May').some((c) => c.mode === 'event')).toBe(false);
  });

  it('reads what happened on a date as a record of then, and a date label as qualifying what follows', () => {
    expect(claim('The canary of kiosk-app served 5% of traffic on 2026-03-03', 'percentage').mode).toBe('event');
    expect(claim('Kiosk-app 2.3 (shipped 2026-01-12) had 12 open bugs', 'version').mode).toBe('event');
    expect(claim('Release train of 2026-03-09: owner is Ola Berg', 'name').mode).toBe('event');
    // Also when no verb follows the label's colon, and past a remark in it.
    expect(claimsIn('Rota change Tue Mar 10 at 09:00 Lisbon time (Ola → Kai primary): Kai → Mia secondary').every((c) => c.mode === 'event')).toBe(true);
    // An acronym is a name, never a word's short form ("CD" is not "could"): no plan here.
    expect(readFact('Argo CD syncs the apps repo every 3 minutes').find((e) => e.type === 'mentions')).not.toHaveProperty('hedged');
    // So does a "when" clause in the past tense of its subject; not one whose verb has no subject of its own.
    expect(claimsIn('Export calls are at 600/day now, up from 300/day when the exports ran every 12h').find((c) => c.kind === 'duration')?.mode).toBe('event');
    expect(claim('Reads take 9 ms when served from the cache', 'duration').mode).toBeUndefined();
    // So does a release's record, whose times are that release's.
    expect(claim('Release 4.2 promoted to prod 15:40 UTC by Ana', 'time').mode).toBe('event');
    expect(claim('Release branches are cut every Tuesday at 16:00 UTC', 'time').mode).toBeUndefined();
    // An incident's write-up tells what happened then; a change made after it is a change.
    expect(readFact('Postmortem (billing-sync, 20 min): a driver upgrade that changed the default pool size.').some((e) => 'cue' in e && e.cue)).toBe(false);
    expect(claim('After the outage we raised the billing-sync pool to 40', 'number').cue).toBe('change');
    // Not where the write-up's word only qualifies the subject's noun: what the team does about incidents now is a change.
    const mentions = (text: string) => readFact(text).find((e) => e.type === 'mentions');
    expect(mentions('Incident triage now happens in the `#triage` channel.')).toMatchObject({ announces: true, changed: expect.arrayContaining(['triage']) });
    expect(mentions('Incident review: paging now goes through the vendor.')).not.toHaveProperty('announces');
    // A log's entry records what held on its date; a label naming a log with no date is a subject.
    expect(claim('Deploy log: `kiosk-api` canary at 30% of traffic on 2026-03-04 (step 2 of 4)', 'percentage').mode).toBe('event');
    expect(claim('Audit log: entries are kept for 400 days', 'duration').mode).toBeUndefined();
    // A change on a date is a change, and a value holding since a date holds now.
    expect(claim('Raised the kiosk-app pool to 40 on 2026-03-03', 'number').mode).toBeUndefined();
    // Also with its ticket and a colon before the reason: the clause is the change, not a dated record's label.
    expect(claim('Raised the kiosk-events retention from 2 days to 5 days on 2026-03-03, OPS-14: replays needed more history.', 'duration')).toMatchObject({ values: ['432000'], previous: ['172800'], cue: 'change' });
    expect(claim('Raised the kiosk-events retention from 2 days to 5 days on 2026-03-03, OPS-14: replays needed more history.', 'duration').mode).toBeUndefined();
    expect(claim('The kiosk-app pool is 40 since 2026-03-03', 'number').mode).toBeUndefined();
  });

  it('reads an environment named in a label as qualifying what follows it', () => {
    expect(claimsIn('Indexer workers in staging: queue A runs 4, queue B runs 2').every((c) => c.env === 'staging')).toBe(true);
  });

  it('reads a path after an HTTP method as the endpoint, not a value', () => {
    expect(claimsIn('`PUT /v2/users/{id}` accepts at most 50 fields').filter((c) => c.kind === 'path')).toEqual([]);
  });

  it('reads cloud machine types as values of a machine type', () => {
    expect(claim('The kiosk-api node pool runs m7i.4xlarge instances', 'machine')).toMatchObject({ measure: 'machine_type', values: ['m7i.4xlarge'] });
    expect(shapes('CI runners: n2-standard-8; agents: Standard_D4s_v5')).toEqual([
      ['machine', 'n2-standard-8'],
      ['machine', 'standard_d4s_v5'],
    ]);
    // Custom shapes, and Cloud SQL's tiers.
    expect(shapes('Reports DB tier: db-custom-8-30720; batch nodes: n2-custom-4-8192; dev: db-g1-small')).toEqual([
      ['machine', 'db-custom-8-30720'],
      ['machine', 'n2-custom-4-8192'],
      ['machine', 'db-g1-small'],
    ]);
  });

  it('counts "per-user" as what a rate is counted for, and a setting key as no product', () => {
    expect(claim('kiosk gateway: per-user quota = 300 req/min', 'rate').per).toBe('user');
    expect(claimsIn('ledger reads from Postgres with `LEDGER_POOL_SIZE=12` connections').filter((c) => c.kind === 'technology').flatMap((c) => c.values)).toEqual(['postgres']);
  });

  it('reads a figure compared in an alert condition, or a level something is done at, as its threshold, not the figure itself', () => {
    expect(claim('The ApiSlow alert fires when search-api p95 > 2s for 5 minutes', 'duration')).toMatchObject({ measure: 'threshold', values: ['2', '300'] });
    expect(claim('search-api p95 latency was 900ms at the Monday peak', 'duration').measure).toBe('latency');
    // So is a bare percentage at which something is done.
    expect(claim('The quota guard throttles the export worker at 95%', 'percentage').measure).toBe('threshold');
    expect(same('The quota guard throttles the export worker at 95%', 'The export worker uses about 40% of the quota')).toBe(false);
  });

  it('reads the window a rate is counted over ("per 10 minutes") as a window, not a duration of the thing', () => {
    expect(claim('The login guard allows 5 attempts per account per 10 minutes', 'duration').measure).toBe('window');
  });

  it('reads container registries as products of one kind', () => {
    expect(claim('Moved the kiosk images from Quay to Amazon ECR', 'technology')).toMatchObject({ measure: 'container_registry', values: ['ecr'], previous: ['quay'] });
  });

  it('reads a host and its port apart, and an address a copula gives a thing as where it lives', () => {
    expect(shapes('orders DB at `db-7.int.example.org:3306`')).toEqual([['url', 'db-7.int.example.org'], ['port', '3306']]);
    expect(claim('The ledger DB is `db-7.int.example.org`', 'url')).toMatchObject({ measure: 'location', values: ['db-7.int.example.org'] });
    // An image tag stays a version.
    expect(shapes('runs `registry.example.org/api:1.4.2`')).toEqual([['version', '1.4.2']]);
  });

  it('reads an environment in a region as that environment there, and a command-line flag as no component', () => {
    const [ap, us] = claimsIn('The `ingest` service runs 3 workers in prod-ap and 5 workers in prod-us');
    expect([ap?.env, us?.env]).toEqual(['prod-ap', 'prod-us']);
    expect(claim('The `ingest-api` JVM starts with `-Xms2g` and 6 workers', 'count').components).toEqual(['ingest-api']);
  });

  it('reads the environment an earlier clause of the sentence names as holding in a clause naming none', () => {
    expect(claim('In staging the `ingest-api` has no autoscaler; it keeps 2 pods.')).toMatchObject({ env: 'staging', values: ['2'] });
    expect(claim('In prod-ap the `ingest-api` runs 12 pods, half of prod-us.')).toMatchObject({ env: 'prod-ap', values: ['12'] });
  });

  it('reads a maximum named by a key a few words from its value, whatever backticks and joined names stand between', () => {
    expect(claim('Raised `ingest` `maxPods` in prod-ap to 12')).toMatchObject({ extreme: 'max', env: 'prod-ap', values: ['12'] });
  });

  it('counts a figure for everyone together apart from one per key', () => {
    expect(claim('Besides per-user quotas, the gateway has a global cap of 900 requests per second').per).toBe('all');
    expect(claim('The gateway allows 20 requests per second per user').per).toBe('user');
  });

  it('reads a version that a release verb or noun follows as a release, not as the version in use', () => {
    expect(claim('ledger-sdk 2.8.3 fixes a leak in the retry loop').mode).toBe('event');
    expect(claim('The retry fix landed in ledger-sdk v2.8.4').mode).toBe('event');
    // A release that removes something is not itself gone.
    expect(claim('ledger-sdk 7.0.0 also drops the legacy client').previous).toBeUndefined();
    expect(claim('The billing worker runs ledger-sdk 2.8.3').mode).toBeUndefined();
    // So is one the word for a release follows: its notes, its build, its pilot.
    expect(claim('Kiosk 3.2.0 release notes: faster checkout and a receipt fix').mode).toBe('event');
    expect(claim('Kiosk 3.2.0 pilot: no crashes reported', 'version').mode).toBe('event');
    // Or a version the clause is about, where it says where that release is in its life: rolled out, approved, live.
    expect(claim('Kiosk 3.3.0 reached 100% on Google Play today', 'version').mode).toBe('event');
    expect(claim('Submitted Kiosk 3.4.0 to App Review today', 'version').mode).toBe('event');
    expect(claim('Released `kiosk-web-2026.04.02.1`: receipt reprint', 'version').mode).toBe('event');
    expect(claim('The kiosk backend runs Postgres 16', 'version').mode).toBeUndefined();
  });

  it('reads "is pinned to" as the value held, and "Pinned X to" as a change', () => {
    expect(claim('The ingest worker is pinned to 2 replicas').cue).toBeUndefined();
    expect(claim('Pinned the ingest worker to 2 replicas').cue).toBe('change');
  });

  it('reads a denial with a pronoun or no subject as said of what its fact is about', () => {
    const statements = (text: string) => readFact(text).filter((e) => e.type === 'statement');
    expect(statements('The `kiosk-demo` app uses a test key. It is never deployed to the public cluster.').at(-1)).toMatchObject({ positive: false, subject: ['kiosk-demo'] });
    expect(statements('The `ingest-api` service runs 6 workers. No HPA.').at(-1)).toMatchObject({ positive: false, subject: ['ingest-api'], target: ['hpa'] });
    // The team's own "we" is everyone's.
    expect(statements('The `ingest-api` service runs 6 workers. We do not use an ORM.').at(-1)).toMatchObject({ positive: false, subject: [] });
    // What a negation governs keeps a bound word: "no memory cap" is not "no memory".
    expect(statements('The `ingest-api` service runs 6 workers. There is no memory cap.').at(-1)).toMatchObject({ target: ['memory', 'cap'] });
    // And the head of a compound the tagger reads as a verb: "no theme switch" is not "no theme".
    expect(statements('Kiosk screens follow the store theme; there is no theme switch in the menu.').at(-1)).toMatchObject({ positive: false, target: ['theme', 'switch'] });
  });

  it('stores nothing read, rather than failing, for text it cannot make sense of', () => {
    expect(() => readFact('')).not.toThrow();
    expect(claimsIn('lorem ipsum dolor sit amet')).toEqual([]);
  });
});

describe('explicit replacements and contrasts', () => {
  it('reads "from A to B" as a change, not a range, for times, weekdays and versions', () => {
    expect(claim('The team sync moved from 8:45 to 11:15', 'time')).toMatchObject({ values: ['11:15'], previous: ['08:45'] });
    expect(claim('Code freezes moved from Mondays to Wednesdays', 'weekday')).toMatchObject({ values: ['wednesday'], previous: ['monday'] });
    expect(claim('We upgraded the reporting database from Postgres 13 to 15', 'version')).toMatchObject({ values: ['15'], previous: ['13'], of: 'postgres' });
    expect(claim('Bumped Node from 16 to 18 across the monorepo', 'version')).toMatchObject({ values: ['18'], previous: ['16'], of: 'node' });
    // A range stays a range.
    expect(claim('The batch window is 01:00 to 04:00 UTC', 'time').values).toEqual(['01:00-04:00 utc']);
  });

  it('reads the old value of "up from" after a few words, and a rate written with a slash as a rate', () => {
    expect(claim('The Team plan costs €35 per seat, up from €29', 'money')).toMatchObject({ values: ['35 eur'], previous: ['29 eur'] });
    const limit = claim('Search API limit per key is now 900 requests/minute (was 300)', 'rate');
    expect(limit).toMatchObject({ values: ['15'], previous: ['5'], per: 'key' });
    // At the end of its sentence too, and of a version.
    expect(claim('The kiosk worker pool is 40, up from 20.', 'number')).toMatchObject({ values: ['40'], previous: ['20'] });
    expect(claim('The kiosk runners are on Node 22.4, up from 20.11.', 'version')).toMatchObject({ values: ['22.4'], of: 'node', previous: ['20.11'] });
  });

  it('reads an unknown product named in a replacement of a known one as a product of its kind', () => {
    expect(claim('swapped webpack for quarkbundle in the storefront', 'technology')).toMatchObject({ measure: 'bundler', values: ['quarkbundle'], previous: ['webpack'] });
    // And an unknown one a known one replaced.
    expect(claim('We replaced QXL with embedded Lua for kiosk rules', 'technology')).toMatchObject({ measure: 'language', values: ['lua'], previous: ['qxl'] });
  });

  it('denies only what follows a contrast ("X, not Y"), and keeps a gerund in what "there is no" denies', () => {
    const [pnpm, npm] = ['pnpm', 'npm'].map((v) => claimsIn('The docs site uses pnpm, not npm').find((c) => c.values.includes(v)));
    expect(pnpm?.negated).toBeUndefined();
    expect(npm?.negated).toBe(true);
    // "never" after a comma too: the statement before it stands.
    expect(readFact('Release builds are signed by the CI service, never with a personal key').find((e) => e.type === 'statement')).toMatchObject({ positive: true });
    const denial = readFact('There is no request throttling on the export endpoint').find((e) => e.type === 'statement');
    expect(denial === undefined || (denial.type === 'statement' && !denial.target.includes('endpoint'))).toBe(true);
  });

  it('reads a participle after a determiner as a description, not a change ("a fixed 3 pods", "the extended API")', () => {
    expect(claim('`refund-api` stays at a fixed 3 pods', 'count').cue).toBeUndefined();
    expect(claim('Fixed the pool of `refund-api` to 3 pods', 'count').cue).toBe('change');
    // Between a number and its noun too.
    expect(claim('`refund-api` runs 3 fixed pods (no autoscaler)', 'number').cue).toBeUndefined();
  });

  it('reads a clause naming no environment in the one its sentence names, past a preposition ("In staging, ...")', () => {
    const inner = claimsIn('In staging, `quote-api` keeps a pool of 8 per pod (`QUOTE_POOL=8`).').filter((c) => c.values.includes('8'));
    expect(inner.length).toBeGreaterThan(0);
    expect(inner.every((c) => c.env === 'staging')).toBe(true);
  });

  it('does not count a single thing at a level as a count of that thing, nor read a measure past another value and a comma', () => {
    const levels = claimsIn('The hottest pod at 12k, under the 15k alert line');
    expect(levels.some((c) => c.measure === 'replicas')).toBe(false);
    expect(claim('`quote-api` runs 6 pods in prod', 'count')).toMatchObject({ measure: 'replicas', values: ['6'] });
  });

  it('reads a heading dated in parentheses before its colon as a record of that day', () => {
    const claims = claimsIn('INC-81 (Sev3, 2026-10-02): search timed out for 20 minutes.');
    expect(claims.map((c) => [c.kind, c.mode])).toEqual([
      ['duration', 'event'],
      ['date', 'event'],
    ]);
  });

  it('reads a change in a release write-up as history, and a denial after a clause about a thing as said of that thing', () => {
    const bumped = claim('Changelog quote-api 3.1: bumped `pg-driver` from 8.1.0 to 8.2.0', 'version');
    expect(bumped.mode).toBe('event');
    const denial = readFact('`quoter` runs 4 pods in prod. No HPA: it is memory-light.').find((e) => e.type === 'statement' && !e.positive);
    expect(denial).toMatchObject({ subject: ['quoter'] });
  });

  it('reads a clause that says it is history ("used to", "at the time", "from before") as what held then', () => {
    expect(claim('Search in the old Kibana used to take ~3 s', 'duration').mode).toBe('event');
    expect(claim('the alert was late because the index was sampling at 40% at the time', 'percentage').mode).toBe('event');
    expect(claim('Search in Kibana takes ~3 s', 'duration').mode).toBeUndefined();
    // So does what it says of data from before a time: that is where the old data is, not what is used now.
    expect(claim('Traces from before the March cutover are kept in Honeycomb', 'technology').mode).toBe('event');
    expect(claim('Traces are kept in Honeycomb', 'technology').mode).toBeUndefined();
  });

  it('reads a product named for the deal it is bought under ("the Datadog contract expires") as no product in use', () => {
    expect(claimsIn('Datadog contract expires 2027-01-31, not renewed').some((c) => c.kind === 'technology')).toBe(false);
    expect(claimsIn("Sentry's licence ends in March").some((c) => c.kind === 'technology')).toBe(false);
    expect(claimsIn('Logs go to Datadog under a 3-year contract').some((c) => c.kind === 'technology')).toBe(true);
  });

  it('reads an arrow chain as a flow, not a replacement, and "the first update" as a message, not a change', () => {
    expect(claimsIn('Receipts: SES → SNS `mail-feedback` → `POST /hooks/ses` in mailer.').some((c) => c.previous?.length)).toBe(false);
    expect(claim('Bounces: moved from SES to Postmark', 'technology')).toMatchObject({ values: ['postmark'], previous: ['ses'] });
    expect(readFact('For SEV1 the incident commander posts the first update within 15 minutes.').some((e) => 'cue' in e)).toBe(false);
  });

  it('borrows no component from what a dash, a colon or a semicolon after a clause adds', () => {
    expect(claimsIn('Android `minSdk` is now 28 (`expo-build-properties` in `app.json`); Play Console shows under 0.3% of installs below API 28.')[0]!.components).not.toContain('console');
    expect(claimsIn('Moved the nightly export from 02:00 to 03:30 UTC: the 02:00 run kept racing the late Airbyte Postgres sync.')[0]!.components).toEqual([]);
    expect(claim('CI is Buildkite now — pipelines under `.buildkite/`, jobs on self-hosted agents in the dedicated `build-ci-euw1` cluster.', 'technology').components).toEqual([]);
  });

  it('reads a name with its version ("ranker-gbm-v23") as that version of the name, and ", replacing v21" as what it replaced', () => {
    expect(claim('ranker serves model `ranker-gbm-v21` from S3', 'version')).toMatchObject({ values: ['21'], of: 'ranker-gbm' });
    expect(claim('Promoted `ranker-gbm-v23` to prod, replacing v21 after a week of shadow traffic', 'version')).toMatchObject({ values: ['23'], of: 'ranker-gbm', previous: ['21'] });
    expect(claim('Promoted `ranker-gbm-v23` to prod, replacing v21 after a week of shadow traffic', 'version').mode).toBeUndefined();
    // Nor is a preposition before a bare version its product ("starting with 5.4.0").
    expect(claimsIn('Android `minSdk` is 28 starting with 5.4.0').find((c) => c.kind === 'version')?.of).toBeUndefined();
  });

  it('reads a replacement written with code quotes, and a verb opening the sentence as no part of a name', () => {
    expect(claim('Moved the build jobs from `ubuntu-20.04` to `ubuntu-22.04` images', 'version')).toMatchObject({ values: ['22.04'], previous: ['20.04'] });
    expect(claim('Replaced Quillsync with self-hosted Pipewell for the orders export', 'name')).toMatchObject({ values: ['pipewell'], previous: ['quillsync'] });
    expect(claim('Migrated quote-token signing to ES256', 'technology').anchors).not.toContain('migrated');
  });

  it('reads a figure whose setting key names its unit in that unit, and the key as the measure, not a thing', () => {
    expect(shapes('`visibility.ms=45000` on the queue')).toEqual([['duration', '45']]);
    expect(shapes('SESSION_TTL_HOURS: 12')).toEqual([['duration', '43200']]);
    // A figure going to a number that could be a year ("500 → 2000") is the new figure.
    expect(claim('Raised FLUSH_BATCH_SIZE 500 → 2000')).toMatchObject({ values: ['2000'], previous: ['500'] });
    // What a change is for ("to stop timeouts in the spike") qualifies nothing of the figure.
    expect(claim('Bumped ledger-api DB_POOL_MAX to 40 to stop pool-wait timeouts in the morning spike')).toMatchObject({ values: ['40'], components: ['ledger-api'] });
    expect(claim('Bumped ledger-api DB_POOL_MAX to 40 to stop pool-wait timeouts in the morning spike').stat).toBeUndefined();
    // A range is no change ("backoff from 2 s up to 5 min").
    expect(claim('Retries back off from 2 s up to 5 min').previous).toBeUndefined();
    // A key's value changed "from N to M": both in the key's unit.
    expect(claim('Dropped PUSH_FLUSH_INTERVAL_MS from 1000 to 250')).toMatchObject({ kind: 'duration', values: ['0.25'], previous: ['1'] });
    expect(shapes('MAX_ROWS=500')).toEqual([]);
    const keyed = claim('orders.events: `retention.ms=172800000`', 'duration');
    expect(keyed).toMatchObject({ measure: 'retention', values: ['172800'], components: ['orders.events'] });
    expect(keyed.anchors).not.toContain('ms');
  });

  it('compares a figure written with its unit in the key with one written in words', () => {
    expect(same('Topic `orders.events` keeps 3 days of data.', 'orders.events: `retention.ms=172800000`', 'data/kafka')).toBe(true);
  });

  it('reads a unit in parentheses, "m" after a size key as megabytes, and a dotfile as a path', () => {
    expect(shapes('QUEUE_VISIBILITY=90 (seconds)')).toEqual([['duration', '90']]);
    expect(shapes('proxy_buffer_size 8m')).toEqual([['size', '8000000']]);
    expect(shapes('retries after 8m')).toEqual([['duration', '480']]);
    expect(shapes('copy .env.sample first')).toEqual([['path', '.env.sample']]);
  });

  it('reads on and off as a switch where they end the statement or say where it holds', () => {
    expect(claim('The `search.v2` flag is off in prod', 'boolean')).toMatchObject({ values: ['false'], env: 'prod' });
    expect(claim('`search.v2` is on for every tenant', 'boolean')).toMatchObject({ values: ['true'] });
    expect(claim('STRICT_MODE defaults to true', 'boolean')).toMatchObject({ values: ['true'] });
    // An English compound with a prefix that is no word alone is no component.
    expect(claim('Raised the sync timeout to 90 s, large batches were stalling mid-transfer', 'duration').components).toEqual([]);
    // A month after a word of time is when, not a person of that name, nor what a claim is about.
    const until = claim('@ines covers on-call for billing until March', 'person');
    expect(until.components).toEqual([]);
    expect(until.anchors).toEqual(['billing']);
    // So does a label's colon.
    expect(claim('Build cache: s3://ci-cache-prod, pruned weekly', 'url')).toMatchObject({ measure: 'location', values: ['s3://ci-cache-prod'] });
    // A setting's key assigned an address holds it.
    expect(claim('The admin app reads ADMIN_API_BASE=https://admin-api.example.net', 'url')).toMatchObject({ measure: 'location', components: ['admin_api_base'] });
    // The address a thing is called at is where it lives.
    expect(claim('The mobile client reaches the ledger at `https://ledger.example.net/v3`', 'url')).toMatchObject({ measure: 'location', values: ['https://ledger.example.net/v3'] });
    // So is the one it moved to; "to" without a change is no place ("sends a digest to ops.example.net" is where it goes).
    expect(claim('Grafana moved, to grafana.example.net behind SSO', 'url')).toMatchObject({ measure: 'location', values: ['grafana.example.net'] });
    expect(claim('The job sends a digest to ops.example.net', 'url').measure).not.toBe('location');
    // What an exception names is denied.
    expect(claim('Releases may go out any weekday except Monday', 'weekday')).toMatchObject({ values: ['monday'], negated: true });
    // A technology after an instrument's preposition is stated, whatever the tagger makes of the verb.
    expect(claim('ledger-api signs webhooks with ES384', 'technology')).toMatchObject({ values: ['es384'], measure: 'signing_algorithm' });
    // A count of things no measure names measures those things, whatever measure word is near.
    expect(claimsIn('With all 4 replicas up that makes 12 concurrent renders').find((c) => c.values.includes('12'))).toMatchObject({ measure: 'render' });
    // A role before a label's colon is held by what follows it, and a role handed over by whom it went to.
    expect(claim('Ledger tech lead: Dana Ortiz', 'person')).toMatchObject({ values: ['dana ortiz'], measure: 'owner' });
    const handed = claim('Ledger ownership handed over to Dana Ortiz last week', 'person');
    expect(handed).toMatchObject({ values: ['dana ortiz'], measure: 'owner', cue: 'change' });
    expect(handed.extreme).toBeUndefined();
    // A role after its holder's copula or "as" is held by that subject; taking it over from someone replaces them.
    expect(claim('Dana Ortiz is our ledger tech lead', 'person')).toMatchObject({ values: ['dana ortiz'], measure: 'owner' });
    expect(claim('Dana Ortiz took over as ledger tech lead from Priya Raman', 'person')).toMatchObject({ values: ['dana ortiz'], measure: 'owner', previous: ['priya raman'] });
    expect(claimsIn('Dana Ortiz is on the ledger team, whose lead is out').some((c) => c.values.includes('dana ortiz') && c.measure === 'owner')).toBe(false);
    // A role named by nothing but adjectives says of what only through its sentence: no claim of its own.
    expect(claimsIn('ledger-sync is owned by Payments; Noor is the primary contact.').some((c) => c.values.includes('noor'))).toBe(false);
    // A second state coordinated with the first keeps its own environment; "turned X on" is a change.
    const states = claimsIn('Flag `bulk-export` is off in dev and on in prod').filter((c) => c.kind === 'boolean');
    expect(states.map((c) => [c.values[0], c.env])).toEqual([['false', 'dev'], ['true', 'prod']]);
    expect(claim('Turned `bulk-export` on for staging yesterday', 'boolean')).toMatchObject({ values: ['true'], env: 'staging', cue: 'change' });
    expect(claimsIn('The worker is on Kubernetes').some((c) => c.kind === 'boolean')).toBe(false);
  });

  it('reads a release a product runs on, and an imperative opening a change', () => {
    expect(claim('Our Nomad clusters run 1.7 everywhere', 'version')).toMatchObject({ values: ['1.7'], of: 'nomad' });
    expect(claimsIn('The Redis eviction ratio is 0.75').some((c) => c.kind === 'version')).toBe(false);
    expect(claim('Bump the quote-api worker pool size to 12', 'number')).toMatchObject({ values: ['12'], cue: 'change' });
    expect(claim('Upgrade path to Nomad 1.8 is in the wiki', 'version').cue).toBeUndefined();
  });

  it('cuts a consequence after ", so" and a second statement with its own subject into clauses of their own', () => {
    const so = readText('The quote runtime is Go 1.22, so avoid the new iterator helpers in shared code.');
    expect(so.clauses).toHaveLength(2);
    const two = readText('The primary zone is now eu-west-3 and eu-west-1 is the warm spare.');
    expect(two.clauses).toHaveLength(2);
    expect(claimsIn('The primary zone is now eu-west-3 and eu-west-1 is the warm spare.').filter((c) => c.kind === 'region').map((c) => c.values)).toEqual([['eu-west-3'], ['eu-west-1']]);
  });

  it('reads an arrow after a label as a replacement, whatever a remark in parentheses after it says', () => {
    expect(claim('`quote-api` prod pods: 3 → 5 (also set as the HPA floor)')).toMatchObject({ values: ['5'], previous: ['3'] });
  });

  it('reads what holds from a date on as a change, and a unit of time after "an" or "per" as no thing', () => {
    expect(claim('From 1 March the hourly rate for couriers is €16.10', 'money').cue).toBe('change');
    expect(claim('The hourly rate for couriers is €16.10', 'money').cue).toBeUndefined();
    expect(claim('Couriers earn €15.40 an hour', 'money').anchors).not.toContain('hour');
    expect(claim('Moved the quote-api to eu-west-3 in the Q3 migration', 'region').anchors).not.toContain('q3');
  });

  it('reads what holds since an incident as a change it brought, and nothing else "after" opens', () => {
    expect(claim('After INC-77 the export job retries 5 times').cue).toBe('change');
    expect(claim('Since the outage, the export job retries 5 times').cue).toBe('change');
    expect(claim('After the build the export job retries 5 times').cue).toBeUndefined();
  });

  it('does not read the window a figure was measured over as a figure of the thing', () => {
    expect(claimsIn('quote-api p99 over the last 7 days: 180 ms').map((c) => c.values)).toEqual([['0.18']]);
    expect(claimsIn('Quote webhooks, last 30 days: 98.1% delivered first time').flatMap((c) => c.values)).toEqual(['98.1']);
    expect(claimsIn('quote-logs keeps the last 14 days of logs').some((c) => c.kind === 'duration')).toBe(true);
  });

  it('lends an environment variable only to a clause measuring what its words name', () => {
    const [retries] = claimsIn('Quote webhook: secret in `QUOTE_HOOK_SECRET`, retried 4 times with 5s backoff.').filter((c) => c.kind === 'count');
    expect(retries!.components).not.toContain('quote_hook_secret');
  });

  it('cuts a comma splice: a new subject with its own verb or assignment after a comma', () => {
    expect(readText('quote-indexer: memory limit 4Gi, JVM started with a 3g heap.').clauses).toHaveLength(2);
    expect(claimsIn('quote-api: read timeout = 5 seconds, write timeout = 20 seconds.').filter((c) => c.kind === 'duration').map((c) => c.values)).toEqual([['5'], ['20']]);
    // "the plan file" names a file, not a plan.
    expect(claim('The quote export runs at 02:00 UTC; the plan file is `db/quote.plan`', 'time').mode).toBeUndefined();
    // Nor is an opening phrase that states nothing.
    expect(readText('On Quote Platform, PRs should get a first review within 8h.').clauses).toHaveLength(1);
    // A list is not a splice.
    expect(readText('Redis, Postgres and Kafka run in the shared cluster.').clauses).toHaveLength(1);
  });

  it('gives each value of a key-value list only its own key', () => {
    const [pool, clients] = claimsIn('quote pgbouncer pool_size 40, max_client_conn 2000').filter((c) => c.kind === 'number');
    expect(pool).toMatchObject({ values: ['40'], measure: 'pool' });
    expect(pool!.components).not.toContain('max_client_conn');
    expect(pool!.extreme).toBeUndefined();
    expect(clients).toMatchObject({ values: ['2000'], components: ['max_client_conn'] });
  });

  it('reads a key naming only what is measured as that measure, not a component; "Max" opening a sentence as a word', () => {
    expect(claim('quote-api chart values: resources.limits.memory = 768Mi', 'size')).toMatchObject({ measure: 'memory', components: ['quote-api'] });
    expect(claim('Max upload size for the quote API is 5 MB', 'size').components).toEqual([]);
    // A word only inside a measure's phrase ("session" of "session token") is no measure: the key names a setting.
    expect(claim('The quote session timeout is 20 minutes, set by SESSION_TIMEOUT.', 'duration').components).toContain('session_timeout');
    expect(same('quote-api chart values: resources.limits.memory = 768Mi', 'Memory limit for the quote-api pods is 1Gi', 'infra/k8s')).toBe(true);
  });

  it('does not read an HTTP status a thing answers with as a figure', () => {
    expect(claimsIn('Past 5,000 sessions per pod the quote gateway answers 503').flatMap((c) => c.values)).not.toContain('503');
    expect(claimsIn('Uploads over the limit get a 413 from the quote ingress').flatMap((c) => c.values)).not.toContain('413');
  });

  it('does not read a package pin as an email address', () => {
    expect(shapes('Pinned zod@3.23 in the api package').some(([kind]) => kind === 'email')).toBe(false);
    expect(shapes('Mail platform@example.org about quota').filter(([kind]) => kind === 'email')).toEqual([['email', 'platform@example.org']]);
  });
});

describe('alignment', () => {
  it('takes a version said plainly in one scope as of the install another names only by products: one database, two versions', () => {
    const version = (text: string, scope: string, hoursAgo: number) => claimsOf(text, scope, hoursAgo).find((c) => c.kind === 'version')!;
    expect(sameThing(version('Our database is RDS MySQL 8.0, writer plus two readers', 'infra', 10), version('Prod runs MySQL 8.4', 'services/api', 1))).toBe(true);
    // Not a service's own build, named by its scope: two services, two toolchains.
    expect(sameThing(version('tracking builds with Go 1.23', 'services/tracking', 10), version('notify is a Go 1.24 service', 'services/notify', 1))).toBe(false);
  });

  it('meets a directory by what it holds, and a backend as a server: `services/quotes` is "the quotes backend"', () => {
    expect(same('`services/quotes` allows 40 req/s per client IP', 'The quotes backend allows 90 requests per second per IP', 'quotes', 'web')).toBe(true);
    expect(same('`services/quotes` allows 40 req/s per client IP', 'The billing backend allows 90 requests per second per IP', 'quotes', 'web')).toBe(false);
  });

  it('keeps numbered or lettered things apart: Module 0 and Module 1, Service A and Service B', () => {
    expect(same('Module 2 is written in Kotlin', 'Module 3 is written in Rust')).toBe(false);
    expect(same('Worker A listens on port 7070', 'Worker B listens on port 7171')).toBe(false);
    expect(same('Worker A listens on port 7070', 'Worker A listens on port 7171')).toBe(true);
  });

  it('reads a share of traffic as a rollout only where traffic is sent, and compares a share no measure names only of one component', () => {
    expect(claim('The canary of quote-api gets 5% of traffic', 'percentage').measure).toBe('rollout');
    expect(claim('Quote traffic: 40% of calls are price lookups', 'percentage').measure).toBe('');
    expect(same('Quote traffic: 40% of calls are price lookups', 'Rejected quotes fell to 0.4% of requests after the retry fix')).toBe(false);
  });

  it('reads a name and an initial as a person, that person as the one of the full name, and a name replaced by a person as one', () => {
    expect(claim('ledger-api owner: Anika R.', 'person')).toMatchObject({ values: ['anika r.'] });
    expect(sameValue('person', 'anika r.', 'anika rautio')).toBe(true);
    expect(sameValue('person', 'anika r.', 'anika sorensen')).toBe(false);
    expect(claim('Ownership of ledger-api moved from Anika to Dana Ortiz', 'person')).toMatchObject({ values: ['dana ortiz'], previous: ['anika'] });
  });

  it('keeps the precision and safety rules no dev set exercises: a change begun, a year, a place preposition, things of their own, a far replacement', () => {
    // A change begun or under way is a plan, not a change done.
    expect(claim('We started the migration of the search cluster to OpenSearch', 'technology').mode).toBe('plan');
    expect(claim('The queue is being migrated to SQS', 'technology').mode).toBe('plan');
    // A year is no figure.
    expect(claimsIn('The billing export was written in 2023 by the data team').some((c) => c.values.includes('2023'))).toBe(false);
    // A person after a preposition of place or topic holds no role.
    expect(claimsIn('On Discovery, every PR gets a review from the owner').some((c) => c.kind === 'person' || c.kind === 'name')).toBe(false);
    // Each naming a thing of its own the other never mentions: two things.
    expect(same('The invoice queue retries 5 times', 'The refund webhook retries 3 times')).toBe(false);
    // Versions pinned in two repositories, one named only in a remark, are two things; one repository's, one thing.
    expect(same('Switched `acme/web` test jobs to `ubuntu-24.04` runners.', 'Mobile CI (`mobile.yml` in `acme/mobile`) runs on `ubuntu-22.04` runners', 'ci')).toBe(false);
    expect(same('Switched `acme/web` test jobs to `ubuntu-24.04` runners.', 'Our test jobs run on `ubuntu-22.04` runners', 'ci')).toBe(true);
    // "a full week" kept is a week.
    expect(claim('`audit.v1` keeps a full week of events.', 'duration')).toMatchObject({ measure: 'retention', values: ['604800'] });
    // A date of one tracked item is not one of another; of the same item it is.
    expect(same('The Q3 review is due by 2026-09-30, tracked in SEC-41.', 'RFC-12 posted. Review until Sep 12.', 'security')).toBe(false);
    expect(same('The Q3 review is due by 2026-09-30, tracked in SEC-41.', 'The SEC-41 review is now due Oct 7.', 'security')).toBe(true);
    // Two days that name nothing and no measure are two moments of a scope, not two values of one.
    expect(same('It ends 2026-02-01.', 'Then Nov 30.', 'security')).toBe(false);
    // A plain word in code quotes names a thing: two queues so named are two things.
    expect(same('`default` queue workers run with `--concurrency=8`.', '`low` queue workers run with `--concurrency=4`.', 'apps/worker')).toBe(false);
    expect(same('`default` queue workers run with `--concurrency=8`.', 'The `default` queue now runs with `--concurrency=12`.', 'apps/worker')).toBe(true);
    // What names nothing is about its fact's subject: two tracked items are two subjects.
    expect(same('Closing INC-12. `maxReplicas` stays at 30.', 'Closing INC-15. `maxReplicas` stays at 50.', 'incidents')).toBe(false);
    expect(same('Closing INC-12. `maxReplicas` stays at 30.', 'Follow-up on INC-12. `maxReplicas` stays at 50.', 'incidents')).toBe(true);
    // A window of the day and a moment of it are two things; two windows are one.
    expect(same('Refund batches close at 18:00 UTC', 'Refund batches are processed 06:00–12:00 UTC', 'billing/refunds')).toBe(false);
    expect(same('Refund batches run 06:00–12:00 UTC', 'Refund batches now run 07:00–13:00 UTC', 'billing/refunds')).toBe(true);
    // A call's direction: the timeout from A to B is not B's to A. A joined name opening its sentence before the verb is a component.
    expect(same('Client timeout from quote-api to tax-service is 500 ms', 'tax-service gives up on calls to quote-api after 5000 ms', 'quotes', 'tax')).toBe(false);
    const [older, newer] = [claimsOf('os-ledger runs OpenSearch 2.11 with 9 data nodes', 'search', 10), claimsOf('os-quotes is OpenSearch 2.13', 'search')].map((cs) => cs.find((c) => c.kind === 'version')!);
    expect(sameThing(older!, newer!)).toBe(false);
    // A date is no period it is said of: two due dates of one milestone are one thing.
    expect(same('The beta milestone is due May 3', 'The beta milestone is now due May 9 instead of May 3')).toBe(true);
    // "from X ... to Y" far apart is no replacement.
    const far = claimsIn('Moved from 5 workers, after a long week of tuning the autoscaler and the queue consumers together, to 9 replicas').filter((c) => c.previous?.length);
    expect(far).toEqual([]);
  });

  it('meets a component by its last word beside a component both name', () => {
    expect(same("billing-api's call timeout to ledger-writer is 800ms", 'billing-api gives up on the writer call after 3 seconds')).toBe(true);
    expect(same("billing-api's call timeout to ledger-writer is 800ms", 'refund-api gives up on the writer call after 3 seconds')).toBe(false);
  });

  it('reads a setting one scope holds once as one, whatever else one fact names', () => {
    expect(same('The default isolation level was moved to SERIALIZABLE', 'Our DB sessions run at REPEATABLE READ isolation', 'infra/db')).toBe(true);
    expect(same('The default isolation level was moved to SERIALIZABLE', 'Our DB sessions run at REPEATABLE READ isolation', 'infra/db', 'reports/db')).toBe(false);
  });

  it('reads a component written as words and joined as one ("search indexer" / search-indexer)', () => {
    expect(same('The billing exporter is owned by squad Heron', 'billing-exporter belongs to team Kestrel')).toBe(true);
  });

  it.each([
    ['The ledger-sync request timeout is 45 seconds', 'ledger-sync gives up on a call after 60 seconds'],
    ['Session recordings are kept for 30 days', 'Session recording retention is 90 days'],
    ['The ranking-api keeps 7 replicas', 'ranking-api is scaled to 9 replicas'],
    ['The ranking-api pool has 20 connections', 'The connection pool of ranking-api is 40'],
  ])('"%s" and "%s" are about one thing', (a, b) => {
    expect(same(a, b)).toBe(true);
  });

  it.each([
    ['The ledger-sync request timeout is 45 seconds', 'The fx-poller request timeout is 45 seconds', 'different components'],
    ['The ledger-sync request timeout is 45 seconds', 'The ledger-sync retry backoff is 45 seconds', 'different measures'],
    ['The ranking-api keeps 7 replicas in production', 'The ranking-api runs 2 replicas in staging', 'different environments'],
    ['The ranking-api p99 latency is 240 ms', 'The ranking-api p50 latency is 80 ms', 'different percentiles'],
    ['The ranking HPA keeps at least 2 pods', 'The ranking HPA is capped at 12 pods', 'a minimum and a maximum'],
    ['The checkout timeout is 30 seconds', 'The checkout session timeout is 30 minutes', 'a noun narrows one side'],
  ])('"%s" and "%s" are not (%s)', (a, b) => {
    expect(same(a, b)).toBe(false);
  });

  it('meets one thing named in other words: a kind of product and the product, a word and its inflection, a one-word component and a scope', () => {
    expect(sameThing(stored('The orders DB is `db-7.int.example.org`', 'infra/databases', 10), claimsOf('Orders MySQL is `db-9.int.example.org`', 'infra/databases').find((c) => c.kind === 'url')!)).toBe(true);
    expect(same('Payouts are owned by the Treasury squad', 'The payout service belongs to the Ledger squad', 'services/payouts')).toBe(true);
    expect(same('Checkout errors go to Sentry', 'The web app reports exceptions to Rollbar', 'checkout/web')).toBe(true);
    // Regions of one environment are two things; an environment and its region meet.
    expect(same('`ingest` runs 3 workers in prod-ap', '`ingest` runs 5 workers in prod-us')).toBe(false);
    expect(same('`ingest` runs 3 workers in prod', '`ingest` runs 5 workers in prod-us')).toBe(true);
    // A per-key limit is not a global one.
    expect(same('The gateway allows 20 requests per second per user', 'The gateway has a global cap of 900 requests per second')).toBe(false);
    // A component part written short names the word it abbreviates ("idem" of idempotency), not another word.
    expect(same('quote-api: idempotency keys TTL 24h', 'quote-api idem-key expiry = 48h', 'quotes/api')).toBe(true);
    expect(same('quote-api: session TTL 24h', 'quote-api idem-key expiry = 48h', 'quotes/api')).toBe(false);
    // Two apps' pinned versions in one scope are two things.
    const pin = (text: string, hoursAgo: number) => claimsOf(text, 'repo/tooling', hoursAgo).find((c) => c.kind === 'version')!;
    expect(sameThing(pin('apps/quote-admin/.nvmrc says Node 22', 10), pin('apps/quote-site/.nvmrc says Node 20', 1))).toBe(false);
    expect(sameThing(pin('The quote repo pins Node 22 in .nvmrc', 10), pin('Quote builds run Node 20', 1))).toBe(true);
    // An item of a list is about the list's head and its own words, not the items before it.
    const listed = claimsOf('quote service: minReplicas 2, CPU request 250m, memory limit 1Gi', 'infra/k8s', 10).find((c) => c.kind === 'size')!;
    expect(listed.anchors).not.toContain('cpu');
    expect(sameThing(listed, stored("quote's memory limit is 2Gi", 'infra/k8s'))).toBe(true);
  });

  it('lets a claim without an environment meet one with', () => {
    expect(same('The ranking-api keeps 7 replicas', 'The ranking-api runs 2 replicas in staging')).toBe(true);
  });

  it('takes a release line and a release in it, and a figure and its conversion, as one value', () => {
    const python = (text: string) => claimsOf(text).find((c) => c.kind === 'version')!;
    expect(disagree(python('The worker image builds on Python 3.12'), python('The worker image builds on Python 3.12.4'))).toBe(false);
    expect(disagree(python('The worker image builds on Python 3.12'), python('The worker image builds on Python 3.13'))).toBe(true);
    expect(disagree(stored('The gateway caps each user at 2,000 requests per minute'), stored('The gateway caps each user at 33.333333 requests per second'))).toBe(false);
    expect(disagree(stored('The gateway caps each user at 2,000 requests per minute'), stored('The gateway caps each user at ~33 req/s'))).toBe(false);
    expect(disagree(stored('The gateway caps each user at 2,000 requests per minute'), stored('The gateway caps each user at 40 req/s'))).toBe(true);
    // Not a whole figure that a converted one only rounds to: 100 a minute is not 120 a minute (2 a second).
    expect(disagree(stored('The gateway caps each user at 100 requests per minute'), stored('The gateway caps each user at 120 requests per minute'))).toBe(true);
  });

  it('finds disagreement in the values, after units are normalized, and none in a plan, a denial or a bound', () => {
    const d = (a: string, b: string) => disagree(stored(a, 'svc', 10), stored(b));
    expect(d('The ledger-sync request timeout is 45 seconds', 'The ledger-sync request timeout is 60 seconds')).toBe(true);
    expect(d('The ledger-sync request timeout is 60 seconds', 'The ledger-sync request timeout is 1 minute')).toBe(false);
    expect(d('The ranking-api pool has 20 connections', 'We plan to raise the ranking-api pool to 40 connections')).toBe(false);
    expect(d('The ranking HPA keeps at least 2 pods', 'The ranking HPA runs 5 pods')).toBe(false);
    expect(d('The ranking HPA keeps at least 4 pods', 'The ranking HPA runs 3 pods')).toBe(true);
    expect(d('The reporting-api uses Valkey as its cache', 'The reporting-api does not use Valkey')).toBe(false);
  });

  it('knows when a later fact names the older value as the one it replaces', () => {
    const older = stored('The ledger-sync request timeout is 30 seconds', 'svc', 10);
    expect(namesReplaced(older, stored('We raised the ledger-sync timeout from 30 seconds to 60 seconds'))).toBe(true);
    // Units do not matter: half a minute is 30 seconds.
    expect(namesReplaced(older, stored('We raised the ledger-sync timeout from half a minute to 60 seconds'))).toBe(true);
    expect(namesReplaced(older, stored('We raised the ledger-sync timeout from 20 seconds to 60 seconds'))).toBe(false);
    expect(namesReplaced(older, stored('We raised the ledger-sync timeout to 60 seconds'))).toBe(false);
    const broker = stored('The parcel-tracker uses RabbitMQ as its message broker', 'svc', 10);
    expect(namesReplaced(broker, stored('The parcel-tracker replaced RabbitMQ with Kafka as its message broker'))).toBe(true);
    expect(namesReplaced(broker, stored('The parcel-tracker message broker is now Kafka (was NATS)'))).toBe(false);
  });

  it('denies only what the negation governs', () => {
    const statement = (content: string, scope = 'svc') => viewOf(detectorFact(content, { scope, hoursAgo: 1 })).statements[0]!;
    const d = (denial: string, assertion: string, scopeN = 'svc', scopeP = scopeN) => denies(statement(denial, scopeN), statement(assertion, scopeP));
    // A kind of technology is denied by a product of that kind, where the denial holds.
    expect(d('We do not use an ORM in the reviews-api', 'The reviews-api uses Drizzle as its ORM')).toBe(true);
    expect(d('We do not use an ORM in the reviews-api', 'The reviews-api uses Postgres as its database')).toBe(false);
    expect(d('We do not use an ORM in the reviews-api', 'The ratings-api uses Drizzle as its ORM')).toBe(false);
    // The subject must be the same.
    expect(d('The kiosk app sends no telemetry', 'The kiosk app sends telemetry to PostHog')).toBe(true);
    expect(d('The kiosk app sends no telemetry', 'The desktop app sends telemetry to PostHog')).toBe(false);
    // The act negated, not another act on the same thing.
    expect(d('Ingrid has never reviewed the refunds runbook', 'Ingrid reviewed the refunds runbook last week')).toBe(true);
    expect(d('Ingrid has never reviewed the refunds runbook', 'Ingrid wrote the refunds runbook')).toBe(false);
    // "no X Y" needs all of what it governs.
    expect(d('There are no cross-region queries', 'The reporting job runs cross-region queries nightly')).toBe(true);
    expect(d('There are no cross-region queries', 'The reporting job runs queries against the replica')).toBe(false);
    // An assertion denies nothing.
    expect(d('The kiosk app sends telemetry to PostHog', 'The kiosk app sends telemetry to PostHog')).toBe(false);
    // Nor does a denial said of another environment.
    expect(d('kiosk-api staging: one replica, no autoscaler', 'kiosk-api prod: autoscaler between 2 and 6 replicas')).toBe(false);
    expect(d('kiosk-api prod: no autoscaler', 'kiosk-api prod: autoscaler between 2 and 6 replicas')).toBe(true);
  });

  it('stores facts about one thing under a shared key, and lets denials and deletion requests find what they name', () => {
    const keys = (content: string, scope: string) => matchKeysOf(readFact(content), scope);
    const probes = (content: string, scope: string) => probeKeysOf(readFact(content), scope);
    const shared = (a: string[], b: string[]) => a.filter((k) => b.includes(k));
    expect(shared(keys('The ledger-sync request timeout is 45 seconds', 'billing'), keys('ledger-sync gives up on a call after 60 seconds', 'platform'))).toContain(
      'c:duration:timeout@ledger-sync',
    );
    expect(shared(keys('The ledger-sync request timeout is 45 seconds', 'billing'), keys('The fx-poller request timeout is 45 seconds', 'billing')).filter((k) => k.startsWith('c:'))).toEqual([]);
    expect(shared(probes('We do not use an ORM in the reviews-api', 'reviews'), keys('The reviews-api uses Drizzle as its ORM', 'reviews'))).toEqual(['pos:orm']);
    expect(shared(probes('Forget the note about the WireGuard gateway', 'access'), keys('Connect through the WireGuard gateway at wg.fernhill.dev', 'access'))).toEqual(['a:gateway', 'a:wireguard']);
  });

  it('keeps the kind of a quoted component mentioned, though it anchors nothing ("the `ledger-sync` job")', () => {
    const view = viewOf(detectorFact('The `ledger-sync` job in `ops/jobs.yaml` runs 2 workers', { scope: 'ops', hoursAgo: 1 }));
    expect(mentions(view, 'job')).toBe(true);
    expect(view.claims.length).toBeGreaterThan(0);
    expect(view.claims.every((c) => !c.anchors.includes('job'))).toBe(true);
  });

  it('reads the nouns leading up to a component\'s name as what it is, no thing of their own ("the ledger stream `x`")', () => {
    const view = viewOf(detectorFact('Staging ledger stream `audit.v3`: 12 replicas, retention 7 days.', { scope: 'data', hoursAgo: 1 }));
    expect(mentions(view, 'ledger')).toBe(true);
    expect(view.claims.every((c) => !c.anchors.includes('ledger'))).toBe(true);
    expect(same('Staging ledger stream `audit.v3`: 12 replicas.', '`audit.v3` in staging has 24 replicas.')).toBe(true);
    // A noun after the name, or another noun before a value, is still a thing of its own.
    expect(same('`audit.v3` consumer pool: 12 workers.', '`audit.v3` has 24 workers.')).toBe(false);
  });

  it('counts a config file as mentioned by its joined name, and that name by the file', () => {
    const byName = viewOf(detectorFact('billing: feature-gates = 4 (needed for the new checks)', { scope: 'svc', hoursAgo: 1 }));
    expect(mentions(byName, 'feature-gates.yaml')).toBe(true);
    expect(mentions(byName, 'release-gates.yaml')).toBe(false);
    const byFile = viewOf(detectorFact('`feature-gates.yaml` turns on 4 gates for billing', { scope: 'svc', hoursAgo: 1 }));
    expect(mentions(byFile, 'feature-gates')).toBe(true);
  });

  it('counts a package coordinate as mentioned by its artifact\'s name', () => {
    const view = viewOf(detectorFact('Raised `minSdk` from 21 to 23 in payments-sdk 5.0.0', { scope: 'mobile', hoursAgo: 1 }));
    expect(mentions(view, 'com.acme:payments-sdk')).toBe(true);
    expect(mentions(view, 'com.acme:ledger-sdk')).toBe(false);
  });

  it('counts a component as mentioned when the text or the scope names its words', () => {
    const view = (content: string, scope: string) => viewOf(detectorFact(content, { scope, hoursAgo: 1 }));
    expect(mentions(view('The ledger sync retries three times', 'billing'), 'ledger-sync')).toBe(true);
    expect(mentions(view('Retries happen three times', 'ledger/sync'), 'ledger-sync')).toBe(true);
    expect(mentions(view('The pg-loyalty-01 primary has 64 GB of memory', 'infra'), 'pg-loyalty-02')).toBe(false);
  });
});

describe('names, tools and figures as software notes write them', () => {
  const view = (content: string, scope = 'svc') => viewOf(detectorFact(content, { scope, hoursAgo: 1 }));

  it('reads a repository named in code quotes as a path, and a label naming CI after another word as no environment', () => {
    expect(shapes('The `acme/web-shop` repo builds on every push')).toEqual([['path', 'acme/web-shop']]);
    expect(shapes('Writes are read/write and sockets TCP/UDP')).toEqual([]);
    expect(claimsIn('Desktop CI (`desktop.yml`) runs on 16-core runners: a full build takes 14 minutes').some((c) => c.env)).toBe(false);
    expect(claim('In staging: the quote-api runs 2 pods', 'count').env).toBe('staging');
    // Nor do tests in the plural name the test environment, even after a label.
    expect(claimsIn('Mobile CI runs on 8-core runners: unit tests and lint take 12 minutes').some((c) => c.env)).toBe(false);
    expect(claim('In test the quote-api runs 2 pods', 'count').env).toBe('test');
  });

  it('reads things counted "as of" a moment as a count taken then, and a setting "as of" a day or a release as a change', () => {
    expect(claimsIn('The archive bucket held 18,200 objects as of 2026-04-02 06:00 UTC').some((c) => c.cue)).toBe(false);
    expect(claim('The export size cap is 200 as of Monday', 'number').cue).toBe('change');
    expect(claimsIn('Each org gets 3 sandboxes as of the 4.2 release').find((c) => c.values.includes('3'))?.cue).toBe('change');
  });

  it('reads "N of M" as a change part of the way through only beside the change, not as a count after a comma', () => {
    expect(claimsIn('Moved 12 of 30 workers to the arm64 pool').every((c) => c.mode === 'plan')).toBe(true);
    expect(claimsIn('The disk alarm now fires at 85%, 2 of 3 five-minute checks').some((c) => c.mode)).toBe(false);
  });

  it("reads a vendor's hosted offering (\"Grafana Cloud\") as a product of its own, of the same kind", () => {
    expect(claimsIn('Dashboards moved to Grafana Cloud last week').find((c) => c.kind === 'technology')).toMatchObject({ measure: 'monitoring', values: ['grafana cloud'] });
    expect(claimsIn('We run Grafana in the cloud').find((c) => c.kind === 'technology')).toMatchObject({ values: ['grafana'] });
  });

  it('knows the common feature-flag services as one kind', () => {
    expect(claim('The checkout flags moved from Unleash to ConfigCat', 'technology')).toMatchObject({ measure: 'feature_flags', values: ['configcat'], previous: ['unleash'] });
  });

  it('knows identity providers as one kind, so a move from one to another is a change of it', () => {
    expect(claim('Staff sign-in for the billing console is the Keycloak realm `ops`', 'technology')).toMatchObject({ measure: 'identity_provider', values: ['keycloak'] });
    expect(claim('Billing console SSO moved to Entra ID', 'technology')).toMatchObject({ measure: 'identity_provider', values: ['entra id'], cue: 'change' });
  });

  it('reads a commit hash as a name, not its leading digits as a count', () => {
    expect(claimsIn('Rolled the quote gateway back to `4fa90c2` this morning')).toEqual([]);
    expect(claimsIn('Rolled the quote gateway back to 4 pods this morning')).toMatchObject([{ kind: 'count', values: ['4'] }]);
  });

  it('reads a number after a word of time as which one of a sequence ("day 3", "sprint 14"), not as a figure', () => {
    expect(claimsIn('Load test day 2: the quote-api held 900 rps').map((c) => c.values)).toEqual([['900']]);
    expect(claimsIn('Rollout paused on day 5 of the staged release')).toEqual([]);
    expect(claimsIn('Sprint 14 closed with the quote-api at 3 replicas').map((c) => c.values)).toEqual([['3']]);
  });

  it('counts a directory as mentioned by the joined name of the component it holds', () => {
    expect(mentions(view('Owner of quote-sdk is Ben Ito'), 'libs/quote-sdk')).toBe(true);
    expect(mentions(view('Owner of quote-sdk is Ben Ito'), 'libs/price-sdk')).toBe(false);
    expect(same('Maintainer of `libs/quote-sdk`: Ben Ito', 'quote-sdk is owned by Ana Ruiz', 'sdk/quote')).toBe(true);
  });

  it('reads an acronym or a plain noun before "team" as the team, and not the team as what a person holds a role of', () => {
    expect(claim('quote-api is owned by the SRE team', 'team')).toMatchObject({ measure: 'owner', values: ['sre'] });
    expect(claim('quote-api belongs to our billing squad', 'team')).toMatchObject({ values: ['billing'] });
    expect(claimsIn('The whole team signed off on the node group size').some((c) => c.kind === 'team')).toBe(false);
    expect(claim('quote-api is owned by the SRE team with Ana Ruiz as DRI', 'person').anchors).not.toContain('sre');
  });

  it('reads "each <thing>" as whom a value is counted for, and "allowed" of a rate as its limit', () => {
    expect(claim('Each API token is allowed 30 req/s', 'rate')).toMatchObject({ measure: 'limit', per: 'token' });
    expect(claim('each tenant gets 50 GB of storage', 'size')).toMatchObject({ per: 'tenant' });
    expect(claim('Retries happen 3 times each', 'count').per).toBeUndefined();
  });

  it('reads stored data that expires as kept that long, and a token or a link that expires as a lifetime', () => {
    expect(claim('Old backups expire after 35 days', 'duration')).toMatchObject({ measure: 'retention' });
    expect(claim('The lifecycle rule expires noncurrent object versions after 14 days', 'duration')).toMatchObject({ measure: 'retention' });
    expect(claim('Session tokens expire after 30 minutes', 'duration')).toMatchObject({ measure: 'timeout' });
  });

  it('reads linters, formatters and secret stores as tools of their kind', () => {
    expect(claimsIn('Python code is linted with ruff in CI').find((c) => c.values.includes('ruff'))).toMatchObject({ kind: 'technology', measure: 'linter' });
    expect(claim('The web app is formatted with Prettier', 'technology')).toMatchObject({ measure: 'formatter' });
    expect(same('Service secrets are pulled from Vault at start', 'Secrets come from AWS Secrets Manager', 'infra/secrets')).toBe(true);
  });

  it('takes a headline opening with a word of retirement written done as naming what is gone, not an instruction', () => {
    expect(view('Archived `#deploys-old` together with two dead channels').gone).toContain('#deploys-old');
    expect(view('Shut down `ci-mac-02`; its lease ran out').gone).toContain('ci-mac-02');
    expect(view('Archive `#deploys-old` once the migration ends').gone).not.toContain('#deploys-old');
  });

  it('reads no figure from a class of HTTP statuses or statuses counted, and seconds where a duration is meant', () => {
    expect(claimsIn('quote-api returned 503s and 429s during the spike, zero 5xx since')).toHaveLength(0);
    // So are the codes of a standard its acronym names: "EDI 850s" are purchase orders, not 850 seconds.
    expect(claimsIn('EDI 850s from new partners are queued for review').filter((c) => c.kind === 'duration')).toEqual([]);
    expect(claim('The upstream timeout is 500s', 'duration')).toMatchObject({ values: ['500'] });
  });

  it('reads an incident id opening a sentence as a write-up of then, and a frequency after "the" as naming which job', () => {
    expect(claim('INC-88 (sev2, 40 min): checkout failed after a bad config push', 'duration').mode).toBe('event');
    // Whatever its numbering ("INC-2024-117").
    expect(claim('INC-2024-117 (sev2, 40 min): checkout failed after a bad config push', 'duration').mode).toBe('event');
    // To the fact's end: what it says was rolled back then is part of the write-up.
    expect(readFact('INC-52 root cause: a cache flag flipped on deploy. Rolled back the worker to v3.1 at 09:58.').some((e) => 'cue' in e && e.cue)).toBe(false);
    expect(readFact('Rolled back the worker to v3.1 at 09:58.').some((e) => 'cue' in e && e.cue)).toBe(true);
    expect(claimsIn('The reports job runs after the nightly backup').some((c) => c.measure === 'interval')).toBe(false);
    expect(claim('Backups run nightly at 02:00 UTC', 'duration')).toMatchObject({ measure: 'interval', values: ['86400'] });
  });

  it('takes a statistic named in a label as qualifying its value, and an extreme word past a comma as another value\'s', () => {
    expect(claim('quote-api p95 last week: 240 ms', 'duration')).toMatchObject({ stat: 'p95' });
    const replicas = claimsIn('quote-api runs 6 workers, queue max 40').find((c) => c.values.includes('6'))!;
    expect(replicas.extreme).toBeUndefined();
  });

  it('reads a product\'s versions in two scopes as two installs when each fact names a thing of its own', () => {
    const version = (text: string, scope: string) => claimsOf(text, scope).find((c) => c.kind === 'version')!;
    const orders = version('Orders RDS instance: Postgres 15.7; `max_connections` is 400 there.', 'infra/aws');
    expect(sameThing(orders, version('Postgres 16, day two: `pg_trgm` enabled on `ledger-sync`; its slowest query is `slot-overlap`.', 'services/ledger'))).toBe(false);
    expect(sameThing(orders, version('Postgres 16, day two: `max_connections` is still 400.', 'services/ledger'))).toBe(true);
  });

  it('reads a release line and a release in it as one version ("16" and "16.3")', () => {
    expect(disagree(claim('The ledger DB runs Postgres 16.3', 'version'), claim('Ledger DB on Postgres 16: the overlap query got faster', 'version'))).toBe(false);
    expect(disagree(claim('The ledger DB runs Postgres 16.3', 'version'), claim('The ledger DB runs Postgres 15.7', 'version'))).toBe(true);
  });

  it('reads "<" as a bound: a figure measured inside a target agrees with it (">" is an alert\'s threshold, above)', () => {
    const target = claim('Objective for `GET /v1/quotes`: p99 < 300ms', 'duration');
    expect(target).toMatchObject({ bound: 'max', stat: 'p99' });
    expect(disagree(target, claim('Measured on Friday: p99 of `GET /v1/quotes` 210ms', 'duration'))).toBe(false);
  });

  it('counts the things a count counts as mentioned, so a request to forget them finds the fact', () => {
    expect(mentions(view('720p thumbnail strips get a sprite sheet from `sprites.ts`'), 'strip')).toBe(true);
    expect(readFact('Forget the note about thumbnail strips: that never shipped').find((e) => e.type === 'deletion')).toMatchObject({ target: expect.arrayContaining(['strip']) });
  });

  it('reads figures under a label naming a past period as a record of then', () => {
    expect(claim('Billing reruns last week: 310 export runs, median export time 14 minutes', 'duration').mode).toBe('event');
    expect(claim('Import jobs over the past 30 days: 0.4% failed', 'percentage').mode).toBe('event');
    expect(claim('Billing reruns: 310 export runs, median export time 14 minutes', 'duration').mode).toBeUndefined();
    expect(claim('Last week: raised the export pool from 10 to 20', 'number')).toMatchObject({ values: ['20'], previous: ['10'] });
    expect(claim('Last week: raised the export pool from 10 to 20', 'number').mode).toBeUndefined();
  });

  it('reads "until" before a time as a deadline, not as something the fact waits on', () => {
    expect(readFact('Customers can cancel free of charge until 3 days before launch').some((e) => e.type === 'dependency')).toBe(false);
    expect(readFact('Deploys stay paused until the freeze ends').some((e) => e.type === 'dependency')).toBe(true);
    // The month a thing waited on is in says when, not what: "the March freeze" is the freeze.
    expect(readFact('Kiosk deploys stay paused until the March change freeze lifts').find((e) => e.type === 'dependency')).toMatchObject({ target: ['freeze'], ends: true });
  });
});
