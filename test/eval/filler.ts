/**
 * Filler for the detection evaluation: a realistic workspace of facts about one imaginary company
 * (Tidewell, a marketplace) that surrounds the test stories, so detection is judged amid the noise
 * a team's shared memory really holds.
 *
 * Filler must never be flagged, so it is consistent by construction:
 * - every fact is about one (subject, attribute) pair, and each pair is stated at most once;
 * - every value a fact states comes from its subject's profile, a pure function of the seed and
 *   the subject, so a fact that mentions another subject's property (a dependency's protocol, an
 *   owner's team, a topic's broker) agrees with that subject's own facts;
 * - no change language ("now", "moved to", "no longer") and no denials, so filler settles nothing;
 * - subjects are named components, people and teams of this company, never the generic "auth
 *   service", "the API" or "CI" that stories make claims about.
 *
 * Deterministic and prefix-stable: facts come from one seeded stream that does not depend on the
 * count, so `generateFiller(n)` is the first n facts of `generateFiller(m)` for n <= m.
 */

/** One filler fact, shaped like a story fact without its key. */
export interface FillerFact {
  content: string;
  scope: string;
  agent_id: string;
  age_hours: number;
}

type Rng = () => number;

/** mulberry32: tiny, fast and good enough to vary text; the same seed always gives the same stream. */
function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a: turns a subject and attribute into a profile seed. */
function fnv1a(text: string, h = 0x811c9dc5): number {
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// ---------------------------------------------------------------------------------------------
// Vocabulary. Names avoid the generic subjects and the people of the story sets.

const FIRST_NAMES = [
  'Ayodele', 'Bilal', 'Chidi', 'Dagny', 'Eitan', 'Farah', 'Goran', 'Hana', 'Brigid', 'Jonah', 'Keiko', 'Lars', 'Mei', 'Nikhil',
  'Olga', 'Pedro', 'Quinn', 'Rosa', 'Soren', 'Talia', 'Umar', 'Vesna', 'Wen', 'Ximena', 'Yusuf', 'Zora', 'Abebe',
  'Beatriz', 'Cormac', 'Dilnoza', 'Emeka', 'Freya', 'Gustavo', 'Hiroshi', 'Ingrid', 'Jae-won', 'Kofi', 'Leila', 'Mateus',
  'Nadia', 'Oskar', 'Paulina', 'Rafael', 'Sanne', 'Tariq', 'Uzma', 'Valentin', 'Wiktoria', 'Yara', 'Zeynep', 'Arjun',
  'Bogdan', 'Camille', 'Dmitri', 'Elif', 'Fionn', 'Gabriela', 'Hamza', 'Isabel', 'Joaquín', 'Kalani', 'Luca', 'Marisol',
  'Nils', 'Oona', 'Pavel', 'Rania', 'Sebastián', 'Thandiwe', 'Uriel', 'Vikram', 'Wanjiru', 'Xavier', 'Haruto', 'Zainab',
  'Aoife', 'Fenna', 'Cyrus', 'Delphine', 'Esteban', 'Fatima', 'Gideon', 'Hyun-woo', 'Imani', 'Jorge', 'Katya', 'Lionel',
  'Maja', 'Nasser', 'Odile', 'Piotr', 'Renata', 'Sakura', 'Teodor', 'Ulla', 'Vinh', 'Wendell', 'Yasmin', 'Zhen', 'Adaeze',
  'Benedikt', 'Carmen', 'Dario', 'Eleni', 'Kwame', 'Greta', 'Hugo', 'Ilse', 'Javier', 'Kiran', 'Lorenzo', 'Milan', 'Nanami',
  'Orla', 'Priyanka', 'Rohan', 'Siobhan', 'Tobias', 'Ugo', 'Vivek', 'Willa', 'Yevgenia', 'Zoltan',
] as const;

const LAST_NAMES = [
  'Folau', 'Okafor', 'Lindqvist', 'Haddad', 'Moreau', 'Tanaka', 'Kowalski', 'Mensah', 'Ivanova', 'Castillo', 'Brennan',
  'Nakamura', 'Petrović', 'Oyelowo', 'Sørensen', 'Rahman', 'Kaur', 'Dubois', 'Novak', 'Silva', 'Achterberg', 'Yilmaz',
  'Mwangi', 'Fischer', 'Costa', 'Hosseini', 'Lindgren', 'Oyelaran', 'Quispe', 'Varga', 'Nguyen', 'Eriksen', 'Bianchi',
  'Takahashi', 'Kamau', 'Marchetti', 'Horvat', 'Abdullah', 'Rossi', 'Jablonski', 'Sato', 'Osei', 'Delgado', 'Aziz',
  'Gallagher', 'Holm', 'Ibarra', 'Kiplagat', 'Laurent', 'Madsen', 'Nowak', 'Ortega', 'Brandt', 'Reyes', 'Schreiber',
  'Tran', 'Uchenna', 'Vogel', 'Weiss', 'Zamora', 'Bakker', 'Chaudhry', 'Demir', 'Engel', 'Fontaine', 'Grimaldi',
] as const;

const PLACES = [
  ['Lisbon', 'UTC+0/+1'], ['Berlin', 'CET'], ['Warsaw', 'CET'], ['London', 'UK time'], ['Dublin', 'UK time'],
  ['Toronto', 'ET'], ['Austin', 'CT'], ['Denver', 'MT'], ['New York', 'ET'], ['São Paulo', 'BRT'], ['Bangalore', 'IST'],
  ['Nairobi', 'EAT'], ['Lagos', 'WAT'], ['Singapore', 'SGT'], ['Sydney', 'AET'], ['Madrid', 'CET'], ['Amsterdam', 'CET'],
  ['Stockholm', 'CET'], ['Tallinn', 'EET'], ['Montreal', 'ET'], ['Mexico City', 'CST'], ['Cape Town', 'SAST'],
] as const;

/** One-per-person specialities: "the go-to person for X" must not name two people. */
const EXPERTISE = [
  'Kafka consumer tuning', 'Postgres query plans', 'Terraform state surgery', 'Karpenter node provisioning',
  'gRPC deadline propagation', 'OpenTelemetry collector config', 'Snowflake cost reviews', 'Airflow scheduler issues',
  'iOS code signing', 'Gradle build performance', 'SwiftUI performance', 'Jetpack Compose previews', 'webpack-to-Vite builds',
  'React Server Components', 'accessibility audits', 'OpenSearch shard sizing', 'Redis memory analysis', 'Vault policies',
  'PCI scope questions', 'SOC 2 evidence collection', 'load testing with k6', 'flame graphs and pprof', 'JVM GC tuning',
  'Rust async runtimes', 'Python packaging with uv', 'dbt macros', 'Looker LookML', 'feature flag hygiene',
  'Argo CD sync waves', 'Linkerd retries and timeouts', 'DNS and Route 53', 'CloudFront cache behaviours', 'IAM role trust policies',
  'SQS redrive policies', 'RabbitMQ quorum queues', 'NATS JetStream', 'DynamoDB single-table design', 'GraphQL schema design',
  'protobuf schema evolution', 'Playwright flakiness', 'Storybook', 'i18n and ICU message format', 'tax rounding rules',
  'currency conversion edge cases', 'carrier label formats', 'KYC vendor quirks', 'chargeback evidence packets',
  'ranking model features', 'embedding model serving', 'A/B test statistics', 'Helm chart templating', 'Bazel remote cache',
  'GitHub Actions runners', 'pprof heap profiles', 'Postgres logical replication', 'Debezium connectors', 'S3 lifecycle rules',
  'mobile deep links', 'App Store review guidelines', 'Play Console rollouts', 'push notification delivery',
  'WebAuthn and passkeys', 'SCIM edge cases', 'SAML metadata', 'rate limiter design', 'idempotency keys', 'outbox pattern',
  'Kubernetes network policies', 'cert-manager', 'k6 thresholds', 'ClickHouse', 'CDC backfills', 'Parquet schemas',
  'Great Expectations suites', 'flag targeting rules in Beacon', 'Sentry alert routing', 'Grafana dashboards as code',
  'PagerDuty escalation policies', 'incident command', 'runbook writing', 'cost allocation tags', 'spot instance interruptions',
];

const AGENTS: readonly (readonly [string, number])[] = [
  ['claude-code', 30], ['cursor-agent', 22], ['codex-cli', 14], ['copilot-agent', 14], ['windsurf', 8], ['devin', 5],
  ['aider', 4], ['gemini-cli', 3],
];

type Lang = 'Go' | 'TypeScript' | 'Python' | 'Kotlin' | 'Java' | 'Rust';
type Kind = 'service' | 'worker' | 'job' | 'web' | 'mobile' | 'dag' | 'dbt' | 'db' | 'redis' | 'search' | 'kafka' | 'topic' | 'bucket' | 'cluster' | 'team' | 'person';
type Role =
  | 'api' | 'service' | 'gateway' | 'proxy'
  | 'worker' | 'consumer' | 'sync' | 'indexer' | 'loader' | 'publisher'
  | 'scheduler' | 'exporter' | 'reconciler' | 'janitor' | 'poller';

const SERVICE_ROLES: readonly Role[] = ['api', 'service', 'gateway', 'proxy'];
const WORKER_ROLES: readonly Role[] = ['worker', 'consumer', 'sync', 'indexer', 'loader', 'publisher'];
const JOB_ROLES: readonly Role[] = ['scheduler', 'exporter', 'reconciler', 'janitor', 'poller'];
const VENDOR_ROLES: readonly Role[] = ['gateway', 'proxy', 'sync', 'reconciler', 'poller'];

interface PrefixDef {
  key: string;
  noun: string;
  plural: string;
  vendor?: string;
}

interface DomainDef {
  key: string;
  team: string;
  jira: string;
  langs: readonly (readonly [Lang, number])[];
  prefixes: readonly PrefixDef[];
}

const P = (key: string, noun: string, plural: string, vendor?: string): PrefixDef => ({ key, noun, plural, vendor });

const DOMAINS: readonly DomainDef[] = [
  {
    key: 'billing', team: 'Billing', jira: 'BIL', langs: [['Kotlin', 4], ['Go', 4], ['Java', 2], ['TypeScript', 1]],
    prefixes: [
      P('ledger', 'ledger entry', 'ledger entries', 'the bank settlement files'), P('invoice', 'invoice', 'invoices', 'DocRaptor'),
      P('payout', 'seller payout', 'seller payouts', 'Modern Treasury'), P('dunning', 'dunning notice', 'dunning notices'),
      P('tax', 'tax quote', 'tax quotes', 'Avalara'), P('refund', 'refund', 'refunds', 'the acquirer'),
      P('subscription', 'subscription', 'subscriptions', 'Chargebee'), P('usage-meter', 'usage record', 'usage records'),
      P('fx-rate', 'FX rate', 'FX rates', 'Open Exchange Rates'), P('credit-note', 'credit note', 'credit notes'),
    ],
  },
  {
    key: 'identity', team: 'Identity', jira: 'IDN', langs: [['Go', 5], ['TypeScript', 2], ['Rust', 1]],
    prefixes: [
      P('sso', 'SSO connection', 'SSO connections', 'WorkOS'), P('scim', 'SCIM provisioning request', 'SCIM provisioning requests', 'customer IdPs'),
      P('mfa', 'MFA challenge', 'MFA challenges', 'Twilio Verify'), P('passkey', 'passkey', 'passkeys'),
      P('consent', 'consent record', 'consent records', 'OneTrust'), P('org-invite', 'org invite', 'org invites'),
      P('role-graph', 'role binding', 'role bindings', 'SpiceDB'), P('account-merge', 'account merge', 'account merges'),
    ],
  },
  {
    key: 'messaging', team: 'Messaging', jira: 'MSG', langs: [['TypeScript', 4], ['Go', 3], ['Python', 1]],
    prefixes: [
      P('digest', 'email digest', 'email digests', 'SparkPost'), P('push-fanout', 'push notification', 'push notifications', 'APNs and FCM'),
      P('sms', 'SMS', 'SMS messages', 'Twilio'), P('inbox', 'in-app inbox item', 'in-app inbox items'),
      P('template', 'message template', 'message templates'), P('preference', 'notification preference', 'notification preferences'),
      P('bounce', 'bounce event', 'bounce events', 'SparkPost'), P('quiet-hours', 'quiet-hours window', 'quiet-hours windows'),
    ],
  },
  {
    key: 'discovery', team: 'Discovery', jira: 'DSC', langs: [['Go', 3], ['Python', 3], ['Rust', 2], ['Java', 1]],
    prefixes: [
      P('ranker', 'ranking request', 'ranking requests'), P('synonym', 'synonym set', 'synonym sets'),
      P('autocomplete', 'autocomplete suggestion', 'autocomplete suggestions'), P('facet', 'facet count', 'facet counts'),
      P('spellcheck', 'spelling correction', 'spelling corrections'), P('query-rewrite', 'query rewrite rule', 'query rewrite rules'),
      P('trending', 'trending query', 'trending queries'), P('browse-tree', 'browse node', 'browse nodes'),
    ],
  },
  {
    key: 'catalog', team: 'Catalog', jira: 'CAT', langs: [['TypeScript', 3], ['Go', 3], ['Python', 1], ['Kotlin', 1]],
    prefixes: [
      P('listing', 'listing', 'listings'), P('media', 'listing photo', 'listing photos', 'Cloudinary'),
      P('variant', 'product variant', 'product variants'), P('taxonomy', 'category', 'categories'),
      P('review', 'product review', 'product reviews', 'Bazaarvoice'), P('price-feed', 'price feed row', 'price feed rows', 'Google Merchant Center'),
      P('bulk-import', 'bulk import file', 'bulk import files'), P('moderation', 'moderation decision', 'moderation decisions', 'Hive'),
    ],
  },
  {
    key: 'fulfillment', team: 'Fulfillment', jira: 'FUL', langs: [['Kotlin', 3], ['Go', 3], ['TypeScript', 2]],
    prefixes: [
      P('shipment', 'shipment', 'shipments', 'EasyPost'), P('label', 'shipping label', 'shipping labels', 'EasyPost'),
      P('carrier-rate', 'carrier rate quote', 'carrier rate quotes', 'Shippo'), P('returns', 'return request', 'return requests'),
      P('pickup-slot', 'pickup slot', 'pickup slots'), P('tracking', 'tracking event', 'tracking events', 'AfterShip'),
      P('customs', 'customs declaration', 'customs declarations', 'Zonos'), P('packing', 'packing slip', 'packing slips'),
    ],
  },
  {
    key: 'growth', team: 'Growth', jira: 'GRO', langs: [['TypeScript', 5], ['Python', 2], ['Go', 1]],
    prefixes: [
      P('referral', 'referral', 'referrals'), P('experiment', 'experiment assignment', 'experiment assignments', 'Statsig'),
      P('onboarding', 'onboarding checklist', 'onboarding checklists'), P('waitlist', 'waitlist entry', 'waitlist entries'),
      P('promo', 'promo code', 'promo codes'), P('nps', 'NPS response', 'NPS responses', 'Delighted'),
      P('affiliate', 'affiliate click', 'affiliate clicks', 'Impact'), P('lifecycle', 'lifecycle campaign', 'lifecycle campaigns', 'Customer.io'),
    ],
  },
  {
    key: 'support', team: 'Support Tools', jira: 'SUP', langs: [['TypeScript', 4], ['Python', 2], ['Go', 1]],
    prefixes: [
      P('ticket', 'support ticket', 'support tickets', 'Zendesk'), P('macro', 'support macro', 'support macros', 'Zendesk'),
      P('chat', 'chat transcript', 'chat transcripts', 'Intercom'), P('escalation', 'escalation', 'escalations'),
      P('sla-timer', 'SLA timer', 'SLA timers'), P('kb-article', 'help-center article', 'help-center articles'),
      P('csat', 'CSAT survey', 'CSAT surveys'), P('agent-assist', 'suggested reply', 'suggested replies'),
    ],
  },
  {
    key: 'risk', team: 'Risk', jira: 'RSK', langs: [['Python', 3], ['Go', 3], ['Kotlin', 2]],
    prefixes: [
      P('kyc', 'KYC check', 'KYC checks', 'Persona'), P('sanctions', 'sanctions screening', 'sanctions screenings', 'ComplyAdvantage'),
      P('chargeback', 'chargeback', 'chargebacks', 'the card networks'), P('dispute', 'dispute', 'disputes'),
      P('velocity', 'velocity counter', 'velocity counters'), P('device-fingerprint', 'device fingerprint', 'device fingerprints', 'Fingerprint'),
      P('fraud-score', 'fraud score', 'fraud scores'), P('seller-vetting', 'seller vetting case', 'seller vetting cases'),
    ],
  },
  {
    key: 'ml', team: 'Applied ML', jira: 'ML', langs: [['Python', 6], ['Go', 1], ['Rust', 1]],
    prefixes: [
      P('embedding', 'embedding', 'embeddings'), P('recommender', 'recommendation', 'recommendations'),
      P('forecast', 'demand forecast', 'demand forecasts'), P('labeling', 'labeling task', 'labeling tasks', 'Label Studio'),
      P('feature', 'feature vector', 'feature vectors'), P('model-registry', 'model version', 'model versions', 'MLflow'),
      P('image-tagger', 'image tag', 'image tags'),
    ],
  },
  {
    key: 'observability', team: 'Observability', jira: 'OBS', langs: [['Go', 6], ['Rust', 1], ['Python', 1]],
    prefixes: [
      P('trace', 'trace span', 'trace spans'), P('log', 'log line', 'log lines'), P('metrics', 'metric series', 'metric series'),
      P('alert', 'alert', 'alerts', 'PagerDuty'), P('uptime', 'uptime check', 'uptime checks'), P('slo', 'SLO report', 'SLO reports'),
      P('profiling', 'CPU profile', 'CPU profiles', 'Pyroscope'),
    ],
  },
  {
    key: 'security', team: 'Security', jira: 'SEC', langs: [['Go', 5], ['Python', 2], ['Rust', 1]],
    prefixes: [
      P('secret-scan', 'secret scan finding', 'secret scan findings', 'GitHub'), P('audit-log', 'audit event', 'audit events'),
      P('key-rotation', 'key rotation', 'key rotations', 'AWS KMS'), P('vuln', 'vulnerability finding', 'vulnerability findings', 'Snyk'),
      P('waf-rule', 'WAF rule', 'WAF rules', 'AWS WAF'), P('access-review', 'access review', 'access reviews', 'Okta'),
    ],
  },
  {
    key: 'devex', team: 'Developer Experience', jira: 'DX', langs: [['Go', 4], ['TypeScript', 3], ['Python', 1]],
    prefixes: [
      P('build-cache', 'build cache entry', 'build cache entries'), P('deploy', 'deploy request', 'deploy requests', 'Argo CD'),
      P('preview-env', 'preview environment', 'preview environments'), P('flag', 'feature flag', 'feature flags'),
      P('service-catalog', 'service catalog entry', 'service catalog entries', 'Backstage'), P('release', 'release train', 'release trains'),
      P('codeowners', 'CODEOWNERS rule', 'CODEOWNERS rules', 'GitHub'),
    ],
  },
  {
    key: 'data', team: 'Data Platform', jira: 'DATA', langs: [['Python', 4], ['Go', 2], ['Java', 2]],
    prefixes: [
      P('cdc', 'change event', 'change events', 'Debezium'), P('event', 'product analytics event', 'product analytics events'),
      P('clickstream', 'clickstream hit', 'clickstream hits'), P('lineage', 'lineage edge', 'lineage edges', 'OpenLineage'),
      P('reverse-etl', 'reverse-ETL sync', 'reverse-ETL syncs', 'Hightouch'), P('gdpr-erasure', 'erasure request', 'erasure requests'),
    ],
  },
];

/** Teams that own no backend components but own apps, data and infrastructure. */
const EXTRA_TEAMS: readonly { key: string; team: string; jira: string }[] = [
  { key: 'web', team: 'Web', jira: 'WEB' },
  { key: 'mobile', team: 'Mobile', jira: 'MOB' },
  { key: 'infra', team: 'Infrastructure', jira: 'INF' },
  { key: 'analytics', team: 'Analytics Engineering', jira: 'AE' },
];

const WEB_APPS: readonly { name: string; label: string; areas: readonly string[] }[] = [
  { name: 'storefront', label: 'the storefront', areas: ['search results', 'product page', 'cart drawer', 'wishlist', 'account settings', 'gift cards', 'seller profile'] },
  { name: 'seller-hub', label: 'Seller Hub', areas: ['payouts', 'listings table', 'bulk import', 'sales analytics', 'messages', 'returns queue', 'shipping settings'] },
  { name: 'partner-portal', label: 'the partner portal', areas: ['API keys page', 'webhook settings', 'usage charts', 'team members', 'invoices'] },
  { name: 'admin-console', label: 'the admin console', areas: ['user lookup', 'refund tool', 'feature flag overrides', 'moderation queue', 'audit trail'] },
  { name: 'help-center', label: 'the help center', areas: ['article pages', 'contact form', 'search box', 'order lookup'] },
  { name: 'careers-site', label: 'the careers site', areas: ['job listings', 'application form'] },
  { name: 'status-page', label: 'the status page', areas: ['incident history', 'component list'] },
  { name: 'affiliate-portal', label: 'the affiliate portal', areas: ['link builder', 'commission reports', 'payout history'] },
];

const MOBILE_APPS: readonly { app: string; label: string; modules: readonly string[] }[] = [
  { app: 'shopper', label: 'Shopper', modules: ['home feed', 'search', 'product detail', 'basket', 'order tracking', 'wallet', 'chat with seller', 'onboarding'] },
  { app: 'seller', label: 'Seller', modules: ['listing editor', 'barcode scanner', 'sales overview', 'payouts', 'shipping labels', 'inbox'] },
  { app: 'courier', label: 'Courier', modules: ['route map', 'proof of delivery', 'offline queue', 'shift planner', 'earnings'] },
];

const CLUSTERS = [
  { name: 'prod-use1', region: 'us-east-1', env: 'prod' },
  { name: 'prod-euw1', region: 'eu-west-1', env: 'prod' },
  { name: 'prod-apse2', region: 'ap-southeast-2', env: 'prod' },
  { name: 'staging-use1', region: 'us-east-1', env: 'staging' },
  { name: 'dev-use1', region: 'us-east-1', env: 'dev' },
  { name: 'tools-use1', region: 'us-east-1', env: 'tools' },
] as const;

const LIBS: Record<Lang, readonly (readonly [string, readonly string[]])[]> = {
  Go: [['zap', ['v1.26.0', 'v1.27.0']], ['testify', ['v1.8.4', 'v1.9.0']], ['go.opentelemetry.io/otel', ['v1.24.0', 'v1.27.0', 'v1.28.0']], ['cobra', ['v1.8.0', 'v1.8.1']], ['sqlc', ['v1.25.0', 'v1.26.0']], ['go-redis', ['v9.4.0', 'v9.5.1']], ['automaxprocs', ['v1.5.3']]],
  TypeScript: [['zod', ['3.22.4', '3.23.8']], ['pino', ['8.19.0', '9.3.2']], ['vitest', ['1.6.0', '2.0.5']], ['undici', ['6.13.0', '6.19.2']], ['typescript', ['5.4.5', '5.5.4']], ['@opentelemetry/sdk-node', ['0.51.1', '0.52.1']], ['ioredis', ['5.4.1']]],
  Python: [['pydantic', ['2.6.4', '2.7.1', '2.8.2']], ['httpx', ['0.26.0', '0.27.0']], ['structlog', ['24.1.0', '24.2.0']], ['SQLAlchemy', ['2.0.29', '2.0.31']], ['pytest', ['8.1.1', '8.2.2']], ['ruff', ['0.4.8', '0.5.0']], ['tenacity', ['8.2.3', '8.4.2']]],
  Kotlin: [['kotlinx.coroutines', ['1.8.0', '1.8.1']], ['Jackson', ['2.16.2', '2.17.1']], ['Resilience4j', ['2.1.0', '2.2.0']], ['JUnit', ['5.10.2']], ['Micrometer', ['1.12.5', '1.13.1']], ['MockK', ['1.13.10', '1.13.11']], ['Exposed', ['0.50.1', '0.51.1']]],
  Java: [['Jackson', ['2.16.2', '2.17.1']], ['Resilience4j', ['2.1.0', '2.2.0']], ['JUnit', ['5.10.2']], ['Micrometer', ['1.12.5', '1.13.1']], ['Lombok', ['1.18.30', '1.18.32']], ['Testcontainers', ['1.19.7', '1.19.8']]],
  Rust: [['tokio', ['1.37.0', '1.38.0']], ['serde', ['1.0.197', '1.0.203']], ['tracing', ['0.1.40']], ['reqwest', ['0.11.27', '0.12.5']], ['sqlx', ['0.7.4']], ['anyhow', ['1.0.82', '1.0.86']]],
};

const PIN_REASONS = [
  'the next minor changed its default timeouts', 'a newer release breaks our generated code', 'the next version needs a newer runtime',
  'newer releases changed error wrapping', 'it has to match the shared platform BOM', 'a newer version doubled cold-start time in benchmarks',
];

const RUNTIMES: Record<Lang, readonly string[]> = {
  Go: ['Go 1.21', 'Go 1.22', 'Go 1.23'],
  TypeScript: ['Node 18', 'Node 20', 'Node 22'],
  Python: ['Python 3.10', 'Python 3.11', 'Python 3.12'],
  Kotlin: ['JDK 17', 'JDK 21'],
  Java: ['JDK 17', 'JDK 21'],
  Rust: ['Rust 1.77', 'Rust 1.78', 'Rust 1.79'],
};

const FRAMEWORKS: Record<Lang, Record<'REST' | 'gRPC' | 'GraphQL', readonly string[]>> = {
  Go: { REST: ['chi', 'Gin', 'Echo', 'net/http and chi'], gRPC: ['grpc-go', 'connect-go'], GraphQL: ['gqlgen'] },
  TypeScript: { REST: ['Fastify', 'NestJS', 'Express', 'Hono'], gRPC: ['Connect for Node', '@grpc/grpc-js'], GraphQL: ['Apollo Server', 'GraphQL Yoga'] },
  Python: { REST: ['FastAPI', 'Django REST Framework', 'Flask'], gRPC: ['grpcio'], GraphQL: ['Strawberry'] },
  Kotlin: { REST: ['Ktor', 'Spring Boot'], gRPC: ['grpc-kotlin'], GraphQL: ['graphql-kotlin'] },
  Java: { REST: ['Spring Boot', 'Dropwizard', 'Micronaut'], gRPC: ['grpc-java'], GraphQL: ['Netflix DGS'] },
  Rust: { REST: ['axum', 'actix-web'], gRPC: ['tonic'], GraphQL: ['async-graphql'] },
};

type QueueTech = 'Kafka' | 'SQS' | 'RabbitMQ' | 'NATS JetStream';
const WORKER_LIBS: Record<Lang, Record<QueueTech, string>> = {
  Go: { Kafka: 'franz-go', SQS: 'aws-sdk-go-v2', RabbitMQ: 'amqp091-go', 'NATS JetStream': 'nats.go' },
  TypeScript: { Kafka: 'KafkaJS', SQS: '@aws-sdk/client-sqs', RabbitMQ: 'amqplib', 'NATS JetStream': 'nats.js' },
  Python: { Kafka: 'confluent-kafka', SQS: 'boto3', RabbitMQ: 'Celery', 'NATS JetStream': 'nats-py' },
  Kotlin: { Kafka: 'Spring Kafka', SQS: 'Spring Cloud AWS', RabbitMQ: 'Spring AMQP', 'NATS JetStream': 'jnats' },
  Java: { Kafka: 'Spring Kafka', SQS: 'Spring Cloud AWS', RabbitMQ: 'Spring AMQP', 'NATS JetStream': 'jnats' },
  Rust: { Kafka: 'rdkafka', SQS: 'aws-sdk-sqs', RabbitMQ: 'lapin', 'NATS JetStream': 'async-nats' },
};

const TEST_CMD: Record<Lang, string> = { Go: 'go test ./...', TypeScript: 'pnpm test', Python: 'pytest -q', Kotlin: './gradlew test', Java: './gradlew test', Rust: 'cargo test' };
const MIGRATION_TOOL: Record<Lang, string> = { Go: 'goose', TypeScript: 'node-pg-migrate', Python: 'Alembic', Kotlin: 'Flyway', Java: 'Flyway', Rust: 'sqlx migrate' };

const LANG_REASONS: Record<Lang, readonly string[]> = {
  Go: ['the team wanted one static binary and cheap goroutines for fan-out', 'it sits on the hot path and Go kept p99 flat in the load test', 'every other service the team runs is Go'],
  TypeScript: ['it shares zod schemas with the web apps', 'the Web team maintains it too and wanted one language', 'the vendor SDK it wraps is best supported on Node'],
  Python: ["it reuses the data team's pandas code", 'the ML models it calls ship as Python packages', 'prototyping speed mattered more than throughput for this one'],
  Kotlin: ['the team already ran the JVM and wanted coroutines', 'it shares domain types with the other Kotlin services through a common module'],
  Java: ['it embeds a vendor SDK that only ships for the JVM', "it grew out of the team's Spring Boot template"],
  Rust: ['the hot loop needed predictable latency without GC pauses', 'it parses large files and memory use in the Go prototype was too high'],
};

type StoreTech = 'Postgres' | 'MySQL' | 'DynamoDB' | 'MongoDB' | 'Redis' | 'OpenSearch' | 'Snowflake';
const STORE_REASONS: Record<StoreTech, readonly string[]> = {
  Postgres: ['it needs transactions across several tables', 'the access patterns are relational and the team knows Postgres well', 'it needs row-level locks for the state machine'],
  MySQL: ['it grew out of the original monolith schema', 'the vendor integration ships MySQL-only stored procedures'],
  DynamoDB: ['the access pattern is key lookups at high write volume', 'it needs single-digit-millisecond reads with no capacity planning', 'items expire on their own through TTL'],
  MongoDB: ['the documents are deeply nested and their shape varies from record to record', 'it stores vendor payloads whose shape we do not control'],
  Redis: ['everything it keeps is short-lived and rebuildable', 'it only holds counters and sliding windows'],
  OpenSearch: ['it needs full-text search with per-field boosts', 'the read side is faceted search'],
  Snowflake: ['everything it writes is analytical and read by dbt', 'the consumers are finance dashboards, not services'],
};

const INCIDENT_SYMPTOMS = [
  'returned 503s', 'stopped processing', 'timed out for roughly a third of requests', 'served stale data',
  'crash-looped', 'double-sent notifications', 'fell behind by several hours', 'spiked to 100% CPU', 'leaked connections until pods were recycled',
];
const INCIDENT_CAUSES = [
  'a config push with a typo in the Helm values', 'an expired TLS certificate on an internal endpoint', 'a node pool drained during business hours',
  'a slow migration that held a table lock', 'DNS resolution failures inside the mesh', 'a dependency bump that changed default timeouts',
  'a retry storm after an upstream blip', 'a noisy neighbour on the shared node pool', 'an unbounded query from a new admin report',
  'a thundering herd when the cache was flushed', 'a memory leak in the HTTP client', 'a Kafka partition reassignment',
  'a bad feature flag rollout', 'disk pressure on the nodes',
];
const BUGS: readonly ((p: PrefixDef) => string)[] = [
  (p) => `pagination skips rows when two ${p.plural} share a created_at timestamp`,
  (p) => `the retry path can write the same ${p.noun} twice if the pod is killed mid-request`,
  (p) => `${p.plural} created exactly at midnight UTC land in the previous day's report`,
  (p) => `sorting by amount treats negative values as strings, so the ${p.noun} list orders oddly`,
  (p) => `a ${p.noun} with an emoji in its name breaks the CSV export`,
  (p) => `the first request after a deploy can take several seconds while the ${p.noun} cache warms`,
  (p) => `bulk updates of more than a few thousand ${p.plural} fail with a 413 that the UI swallows`,
  (p) => `${p.plural} synced from the vendor carry local-time timestamps without an offset`,
];
const REVIEW_ROLES = ['backend engineer', 'senior backend engineer', 'staff engineer', 'senior engineer', 'software engineer'];

// ---------------------------------------------------------------------------------------------
// The world: every subject and its profile, built from the seed alone.

interface Team {
  key: string;
  name: string;
  slug: string;
  jira: string;
  channel: string;
  alerts: string;
  pd: string;
  members: Person[];
}

interface Person {
  first: string;
  last: string;
  full: string;
  team: Team;
  role: string;
  city: string;
  tz: string;
  /** Unset once the list runs out: "the go-to person for X" names one person only. */
  expertise?: string;
}

interface Queue {
  tech: QueueTech;
  /** Topic, queue or subject the worker reads (or, for a publisher, writes). */
  channel: string;
  dlq: string;
  cluster: string;
}

interface Store {
  tech: StoreTech;
  /** Cluster, table or schema name. */
  name: string;
}

interface Subject {
  kind: Kind;
  /** Unique id: profile values and the used-pair keys hang off it. */
  id: string;
  /** How facts name it. */
  name: string;
  team: Team;
  scope: string;
  // Components (service, worker, job).
  domain?: DomainDef;
  prefix?: PrefixDef;
  role?: Role;
  lang?: Lang;
  framework?: string;
  runtime?: string;
  apiStyle?: 'REST' | 'gRPC' | 'GraphQL';
  store?: Store | null;
  queue?: Queue;
  owner?: Person;
  regions?: string[];
  repo?: string;
  base?: string;
  env?: string;
  port?: number;
  upstream?: Subject;
  bucket?: string;
  // Apps.
  label?: string;
  areas?: readonly string[];
  platform?: 'iOS' | 'Android';
  app?: string;
  // Datastores, topics, clusters.
  engine?: string;
  producer?: Subject;
  person?: Person;
}

interface World {
  /** Seed for profile values, mixed into every subject's hash. */
  salt: number;
  byKind: Map<Kind, Subject[]>;
  teams: Map<string, Team>;
  /** The identity service that issues service JWTs (named by the authn facts). */
  issuer: string;
}

/** A profile value: the same (world, subject, attribute) always gives the same number in [0, 1). */
function u(w: World, subject: string, attr: string): number {
  return mulberry32(fnv1a(`${subject}\u0000${attr}`, w.salt))();
}
function pv<T>(w: World, subject: string, attr: string, xs: readonly T[]): T {
  return xs[Math.floor(u(w, subject, attr) * xs.length)]!;
}
function pw<T>(w: World, subject: string, attr: string, xs: readonly (readonly [T, number])[]): T {
  const total = xs.reduce((n, [, weight]) => n + weight, 0);
  let x = u(w, subject, attr) * total;
  for (const [value, weight] of xs) if ((x -= weight) < 0) return value;
  return xs[xs.length - 1]![0];
}

function shuffled<T>(rng: Rng, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const snake = (s: string) => s.replace(/[^a-zA-Z0-9]+/g, '_').toLowerCase();
const envName = (s: string) => s.replace(/[^a-zA-Z0-9]+/g, '_').toUpperCase();
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Domains whose services are plumbing: product services do not call them as business dependencies. */
const PLATFORM_DOMAINS = ['observability', 'security', 'devex', 'data'];

const worldCache = new Map<number, World>();

function buildWorld(seed: number): World {
  const cached = worldCache.get(seed);
  if (cached) return cached;
  const rng = mulberry32(seed ^ 0x5bd1e995);
  const w: World = { salt: fnv1a(`tidewell:${seed}`), byKind: new Map(), teams: new Map(), issuer: '' };
  const add = (s: Subject) => {
    const list = w.byKind.get(s.kind) ?? [];
    list.push(s);
    w.byKind.set(s.kind, list);
    return s;
  };

  // Teams and people: first names are unique, so "ask Ana" is never ambiguous.
  const teamDefs = [...DOMAINS.map((d) => ({ key: d.key, team: d.team, jira: d.jira })), ...EXTRA_TEAMS];
  const firsts = shuffled(rng, FIRST_NAMES);
  const lasts = shuffled(rng, LAST_NAMES);
  const expertise = shuffled(rng, EXPERTISE);
  let next = 0;
  for (const def of teamDefs) {
    const slug = def.key;
    const team: Team = {
      key: def.key, name: def.team, slug, jira: def.jira, channel: `#team-${slug}`, alerts: `#${slug}-alerts`, pd: `${slug}-primary`, members: [],
    };
    w.teams.set(def.key, team);
    const size = 4 + Math.floor(rng() * 4);
    for (let i = 0; i < size && next < firsts.length; i++, next++) {
      const first = firsts[next]!;
      const last = lasts[next % lasts.length]!;
      const [city, tz] = PLACES[Math.floor(rng() * PLACES.length)]!;
      const role = i === 0 ? 'engineering manager' : teamRole(def.key, rng);
      const person: Person = { first, last, full: `${first} ${last}`, team, role, city, tz, expertise: expertise[next] };
      team.members.push(person);
      add({ kind: 'person', id: `person:${first}`, name: person.full, team, scope: `team/${slug}`, person });
    }
    add({ kind: 'team', id: `team:${slug}`, name: team.name, team, scope: `team/${slug}` });
  }
  const teamOf = (key: string) => w.teams.get(key)!;
  const engineers = (t: Team) => (t.members.length > 1 ? t.members.slice(1) : t.members);

  // Backend components: each prefix gets a core API or service plus a few more roles.
  const components: Subject[] = [];
  const dbClusters = new Map<string, Subject>();
  const redisClusters = new Map<string, Subject>();
  const searchClusters = new Map<string, Subject>();
  const topics = new Map<string, Subject>();
  const buckets = new Map<string, Subject>();
  const infra = teamOf('infra');
  for (const d of DOMAINS) {
    const team = teamOf(d.key);
    for (const p of d.prefixes) {
      const pid = `${d.key}/${p.key}`;
      const core: Role = u(w, pid, 'core') < 0.6 ? 'api' : 'service';
      const candidates = [...SERVICE_ROLES, ...WORKER_ROLES, ...JOB_ROLES].filter((r) => r !== core && (p.vendor || !VENDOR_ROLES.includes(r)) && !(r === 'api' || r === 'service'));
      const extra = shuffled(mulberry32(fnv1a(pid, w.salt)), candidates).slice(0, 3 + Math.floor(u(w, pid, 'roles') * 4));
      const queueTech = pw<QueueTech>(w, pid, 'queue', [['Kafka', 5], ['SQS', 3], ['RabbitMQ', 1.5], ['NATS JetStream', 1]]);
      for (const role of [core, ...extra]) {
        const name = `${p.key}-${role}`;
        const id = `comp:${name}`;
        const kind: Kind = SERVICE_ROLES.includes(role) ? 'service' : WORKER_ROLES.includes(role) ? 'worker' : 'job';
        const lang = pw(w, id, 'lang', d.langs);
        const apiStyle = kind !== 'service' ? undefined : role === 'api' && u(w, id, 'gql') < 0.08 ? 'GraphQL' : u(w, id, 'grpc') < 0.3 ? 'gRPC' : 'REST';
        const framework = apiStyle ? pv(w, id, 'fw', FRAMEWORKS[lang][apiStyle]) : undefined;
        const mono = u(w, id, 'mono') < 0.7;
        const regionsRoll = u(w, id, 'regions');
        const regions = regionsRoll < 0.55 ? ['us-east-1'] : regionsRoll < 0.85 ? ['us-east-1', 'eu-west-1'] : regionsRoll < 0.95 ? ['eu-west-1'] : ['us-east-1', 'eu-west-1', 'ap-southeast-2'];
        const s: Subject = {
          kind, id, name, team, scope: `${d.key}/${name}`, domain: d, prefix: p, role, lang, framework, apiStyle,
          runtime: pv(w, id, 'runtime', RUNTIMES[lang]), owner: pv(w, id, 'owner', engineers(team)), regions,
          repo: mono ? `tidewell/${d.key}` : `tidewell/${name}`, base: mono ? `services/${name}/` : '', env: envName(name),
          port: kind === 'service' ? pv(w, id, 'port', [8080, 8080, 8000, 3000, 9000, 8443, 8081, 5000]) : undefined,
        };
        s.store = storeFor(w, s);
        if (kind === 'worker') {
          const tech = role === 'publisher' || role === 'consumer' || role === 'indexer' ? 'Kafka' : queueTech;
          const kafkaCluster = pv(w, pid, 'kafka', ['msk-core', 'msk-core', 'msk-events']);
          const channel =
            tech === 'Kafka' ? `${p.key}.events.v1` : tech === 'SQS' ? `${d.key}-${name}` : tech === 'RabbitMQ' ? `${p.key}.${role}` : `${d.key}.${p.key}.>`;
          // Dead-letter queues are per component, so two consumers never describe one DLQ differently.
          const dlq = tech === 'Kafka' ? `${name}.dlq` : tech === 'SQS' ? `${d.key}-${name}-dlq` : tech === 'RabbitMQ' ? `${p.key}.${role}.dead` : `${d.key}.${name}.dead`;
          s.queue = { tech, channel, dlq, cluster: tech === 'Kafka' ? kafkaCluster : tech === 'SQS' ? 'SQS' : tech === 'RabbitMQ' ? `rabbit-${d.key}` : 'nats-core' };
          if (tech === 'Kafka' && !topics.has(channel)) {
            topics.set(channel, { kind: 'topic', id: `topic:${channel}`, name: channel, team, scope: `infra/kafka`, domain: d, prefix: p, engine: kafkaCluster });
          }
        }
        if (role === 'exporter') {
          const bucket = `tidewell-${d.key}-exports`;
          s.bucket = bucket;
          if (!buckets.has(bucket)) buckets.set(bucket, { kind: 'bucket', id: `bucket:${bucket}`, name: bucket, team, scope: 'infra/s3', domain: d, regions: ['us-east-1'] });
        }
        const st = s.store;
        if (st && (st.tech === 'Postgres' || st.tech === 'MySQL' || st.tech === 'MongoDB') && !dbClusters.has(st.name)) {
          dbClusters.set(st.name, { kind: 'db', id: `db:${st.name}`, name: st.name, team: infra, scope: `infra/${st.tech.toLowerCase()}`, domain: d, engine: st.tech });
        }
        if (st?.tech === 'OpenSearch' && !searchClusters.has(st.name)) {
          searchClusters.set(st.name, { kind: 'search', id: `search:${st.name}`, name: st.name, team: infra, scope: 'infra/opensearch', domain: d });
        }
        components.push(add(s));
      }
    }
  }
  // Producers: a prefix's outbox publisher, or else its core component, writes the topic its consumers read.
  for (const topic of topics.values()) {
    topic.producer =
      components.find((c) => c.prefix === topic.prefix && c.role === 'publisher') ??
      components.find((c) => c.prefix === topic.prefix && (c.role === 'api' || c.role === 'service'));
  }
  // Caches: one or two Redis clusters per domain, referenced by the components' cache facts.
  for (const d of DOMAINS) {
    for (const n of [1, 2]) {
      const name = `redis-${d.key}-0${n}`;
      redisClusters.set(name, { kind: 'redis', id: `redis:${name}`, name, team: infra, scope: 'infra/redis', domain: d });
    }
  }
  // Upstreams: mostly a service of the same domain, sometimes another team's.
  const services = components.filter((c) => c.kind === 'service');
  for (const c of components) {
    if (c.kind === 'job' && u(w, c.id, 'has-upstream') < 0.5) continue;
    const same = services.filter((s) => s.domain === c.domain && s !== c);
    const product = services.filter((s) => s !== c && !PLATFORM_DOMAINS.includes(s.domain!.key));
    const pool = same.length && (u(w, c.id, 'cross') < 0.75 || PLATFORM_DOMAINS.includes(c.domain!.key)) ? same : product;
    c.upstream = pv(w, c.id, 'upstream', pool);
  }
  w.issuer = components.find((c) => c.prefix!.key === 'sso' && (c.role === 'api' || c.role === 'service'))!.name;
  for (const m of [...dbClusters.values(), ...redisClusters.values(), ...searchClusters.values(), ...topics.values(), ...buckets.values()]) add(m);
  for (const kafka of ['msk-core', 'msk-events']) add({ kind: 'kafka', id: `kafka:${kafka}`, name: kafka, team: infra, scope: 'infra/kafka' });
  for (const c of CLUSTERS) add({ kind: 'cluster', id: `cluster:${c.name}`, name: c.name, team: infra, scope: 'infra/k8s', regions: [c.region], engine: c.env });

  // Web and mobile apps.
  const web = teamOf('web');
  for (const a of WEB_APPS) {
    const id = `web:${a.name}`;
    add({ kind: 'web', id, name: a.name, label: a.label, team: web, scope: `web/${a.name}`, areas: a.areas, owner: pv(w, id, 'owner', engineers(web)), repo: 'tidewell/web', base: `apps/${a.name}/` });
  }
  const mobile = teamOf('mobile');
  for (const m of MOBILE_APPS) {
    for (const platform of ['iOS', 'Android'] as const) {
      const id = `mobile:${m.app}-${platform}`;
      add({
        kind: 'mobile', id, name: `${m.label} ${platform} app`, label: m.label, app: m.app, platform, team: mobile,
        scope: `mobile/${platform === 'iOS' ? 'ios' : 'android'}`, areas: m.modules, owner: pv(w, id, 'owner', engineers(mobile)),
        repo: `tidewell/${m.app}-${platform.toLowerCase()}`,
      });
    }
  }

  // Data: one Airflow DAG and one or two dbt models for most prefixes.
  const data = teamOf('data');
  const analytics = teamOf('analytics');
  for (const d of DOMAINS) {
    for (const p of d.prefixes) {
      const pid = `${d.key}/${p.key}`;
      if (u(w, pid, 'dag') < 0.75) {
        const freq = pv(w, pid, 'freq', ['hourly', 'daily', 'daily']);
        const name = `${snake(d.key)}_${snake(p.key)}_${freq}`;
        const id = `dag:${name}`;
        const source = components.find((c) => c.prefix === p && c.store && c.store.tech !== 'Snowflake' && c.store.tech !== 'Redis');
        add({ kind: 'dag', id, name, team: data, scope: 'data/airflow', domain: d, prefix: p, owner: pv(w, id, 'owner', engineers(data)), engine: freq, upstream: source });
      }
      for (const model of [`fct_${snake(p.plural)}`, `dim_${snake(p.plural)}`]) {
        if (u(w, `${pid}/${model}`, 'dbt') < 0.55) {
          const id = `dbt:${model}`;
          add({ kind: 'dbt', id, name: model, team: analytics, scope: 'data/dbt', domain: d, prefix: p, owner: pv(w, id, 'owner', engineers(analytics)) });
        }
      }
    }
  }
  worldCache.set(seed, w);
  return w;
}

function teamRole(key: string, rng: Rng): string {
  const roles: Record<string, readonly string[]> = {
    web: ['frontend engineer', 'senior frontend engineer', 'staff frontend engineer', 'design engineer'],
    mobile: ['iOS engineer', 'senior iOS engineer', 'Android engineer', 'senior Android engineer'],
    infra: ['SRE', 'senior SRE', 'platform engineer', 'staff SRE'],
    data: ['data engineer', 'senior data engineer', 'staff data engineer'],
    analytics: ['analytics engineer', 'senior analytics engineer'],
    ml: ['ML engineer', 'senior ML engineer', 'research engineer'],
    security: ['security engineer', 'senior security engineer', 'AppSec engineer'],
    observability: ['SRE', 'senior SRE', 'observability engineer'],
  };
  const list = roles[key] ?? REVIEW_ROLES;
  return list[Math.floor(rng() * list.length)]!;
}

function storeFor(w: World, s: Subject): Store | null {
  const d = s.domain!;
  const id = s.id;
  if (s.role === 'indexer') return { tech: 'OpenSearch', name: `os-${d.key}` };
  if (s.role === 'loader') return { tech: 'Snowflake', name: `RAW.${envName(d.key)}` };
  if ((s.role === 'gateway' || s.role === 'proxy' || s.role === 'publisher') && u(w, id, 'stateless') < 0.5) return null;
  const tech = pw<StoreTech>(w, id, 'store', [['Postgres', 58], ['DynamoDB', 16], ['MySQL', 8], ['MongoDB', 7], ['Redis', 6]]);
  const n = 1 + Math.floor(u(w, id, 'store-n') * 2);
  switch (tech) {
    case 'Postgres': return { tech, name: `pg-${d.key}-0${n}` };
    case 'MySQL': return { tech, name: `mysql-${d.key}-01` };
    case 'MongoDB': return { tech, name: `mongo-${d.key}` };
    case 'Redis': return { tech, name: `redis-${d.key}-0${n}` };
    // One table per component: its capacity and TTL facts are the component's own.
    default: return { tech, name: `${d.key}-${s.name}` };
  }
}

// ---------------------------------------------------------------------------------------------
// Rendering.

/** Per-fact randomness: phrasing only; values come from the profile. */
interface Ctx {
  w: World;
  rng: Rng;
  one: <T>(xs: readonly T[]) => T;
  chance(p: number): boolean;
  /** A fresh identifier (ticket, incident, PR) never used by another fact. */
  claim(make: (n: number) => string, lo: number, hi: number): string;
  /** The sub-key of the fact being rendered (library, page, module), when its attribute has one. */
  sub?: string;
}

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const numWord = (c: Ctx, n: number) => (n <= 10 && c.chance(0.35) ? WORDS[n]! : String(n));
const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** A duration in milliseconds, written the way people write it. */
function ms(c: Ctx, v: number): string {
  if (v < 1000) return c.one([`${v}ms`, `${v} ms`]);
  const s = v / 1000;
  if (v % 60_000 === 0 && v >= 120_000) return c.one([`${s / 60} minutes`, `${s / 60}m`, `${s}s`]);
  if (Number.isInteger(s)) return c.one([`${s}s`, `${s} seconds`, `${v} ms`]);
  return c.one([`${s}s`, `${v}ms`]);
}
const days = (c: Ctx, d: number) => (d === 14 ? c.one(['14 days', 'two weeks']) : d === 7 ? c.one(['7 days', 'a week']) : d === 365 ? c.one(['365 days', 'a year']) : `${d} days`);

interface Cron {
  expr: string;
  human: string;
}
function cronFor(w: World, id: string): Cron {
  const kind = pv(w, id, 'cron-kind', ['daily', 'daily', 'every', 'hourly', 'weekdays', 'weekly']);
  const hour = pv(w, id, 'cron-h', [0, 1, 2, 3, 4, 5, 6, 22, 23]);
  const minute = pv(w, id, 'cron-m', [0, 5, 10, 15, 20, 30, 40, 45]);
  const hh = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
  switch (kind) {
    case 'every': {
      const every = pv(w, id, 'cron-every', [5, 10, 15, 30]);
      return { expr: `*/${every} * * * *`, human: `every ${every} minutes` };
    }
    case 'hourly':
      return { expr: `${minute} * * * *`, human: minute === 0 ? 'on the hour' : `hourly at :${String(minute).padStart(2, '0')}` };
    case 'weekdays':
      return { expr: `${minute} ${hour} * * 1-5`, human: `weekdays at ${hh} UTC` };
    case 'weekly': {
      const dow = pv(w, id, 'cron-dow', [0, 1, 6] as const);
      return { expr: `${minute} ${hour} * * ${dow}`, human: `${['Sundays', 'Mondays', '', '', '', '', 'Saturdays'][dow]} at ${hh} UTC` };
    }
    default:
      return { expr: `${minute} ${hour} * * *`, human: `daily at ${hh} UTC` };
  }
}

interface Attr {
  key: string;
  kinds: readonly Kind[];
  weight: number;
  /** An alternative scope the fact may be filed under (observability, ci, security...). */
  scope?: (s: Subject) => string;
  when?: (s: Subject, w: World) => boolean;
  render: (s: Subject, c: Ctx) => string;
}

const COMP: readonly Kind[] = ['service', 'worker', 'job'];
const RUNNING: readonly Kind[] = ['service', 'worker'];
const sqlStore = (s: Subject) => s.store?.tech === 'Postgres' || s.store?.tech === 'MySQL';
const pathIn = (s: Subject, file: string) => `${s.base ?? ''}${file}`;
const proto = (s: Subject) => (s.apiStyle === 'gRPC' ? 'gRPC' : s.apiStyle === 'GraphQL' ? 'GraphQL' : 'REST');

function purpose(s: Subject): string {
  const p = s.prefix!;
  const v = p.vendor ?? 'the upstream provider';
  switch (s.role) {
    case 'api': return `is the system of record for ${p.plural} and serves their API`;
    case 'service': return `holds the business rules for ${p.plural}`;
    case 'gateway': return `wraps ${v} for everything that touches ${p.plural}`;
    case 'proxy': return `caches ${p.noun} lookups in front of ${v}`;
    case 'worker': return `processes ${p.noun} jobs in the background`;
    case 'consumer': return `consumes ${p.noun} events and maintains the ${p.key} read model`;
    case 'sync': return `keeps ${p.plural} in sync with ${v}`;
    case 'indexer': return `indexes ${p.plural} into OpenSearch for the ${s.domain!.team} screens`;
    case 'loader': return `loads ${p.plural} into Snowflake for analytics`;
    case 'publisher': return `relays ${p.noun} changes from the outbox table to downstream consumers`;
    case 'scheduler': return `kicks off scheduled ${p.noun} runs`;
    case 'exporter': return `exports ${p.plural} to S3 as Parquet for finance and analytics`;
    case 'reconciler': return `reconciles ${p.plural} against ${v}`;
    case 'janitor': return `purges expired ${p.plural}`;
    default: return `polls ${v} for ${p.noun} status changes`;
  }
}

const ATTRS: readonly Attr[] = [
  // --- Components: what, who, how built ---------------------------------------------------
  {
    key: 'purpose', kinds: COMP, weight: 3,
    render: (s, c) => c.one([
      `${s.name} ${purpose(s)}.`,
      `${s.name} ${purpose(s)}; ${s.team.name} owns it.`,
      `For context: ${s.name} ${purpose(s)}.`,
      `${s.name} — ${purpose(s).replace(/^is /, '')}`,
    ]),
  },
  {
    key: 'owner', kinds: COMP, weight: 3,
    render: (s, c) => {
      const o = s.owner!;
      return c.one([
        `${o.full} owns ${s.name}.`,
        `${s.name} is owned by ${s.team.name}; ${o.first} is the primary contact.`,
        `Questions about ${s.name} go to ${o.first} in ${s.team.channel}`,
        `${o.first} ${o.last} is the code owner for ${s.base ? s.base : s.repo}`,
        `ask ${o.first} before touching ${s.name}, they wrote most of it`,
      ]);
    },
  },
  {
    key: 'lang', kinds: COMP, weight: 3,
    render: (s, c) => {
      const lib = s.queue ? WORKER_LIBS[s.lang!][s.queue.tech] : undefined;
      if (s.framework) {
        return c.one([
          `${s.name} is a ${s.lang} service built on ${s.framework}.`,
          `${s.name}: ${s.lang} + ${s.framework}`,
          `${s.name} is written in ${s.lang} with ${s.framework}; the entrypoint is ${entrypoint(s)}.`,
        ]);
      }
      if (lib) return c.one([`${s.name} is a ${s.lang} worker built on ${lib}.`, `${s.name} is ${s.lang}, using ${lib} for the ${s.queue!.tech} side.`]);
      return c.one([`${s.name} is a small ${s.lang} program that runs as a Kubernetes CronJob.`, `${s.name} is written in ${s.lang}; main is ${entrypoint(s)}.`]);
    },
  },
  {
    key: 'runtime', kinds: COMP, weight: 2,
    render: (s, c) => c.one([
      `${s.name} runs on ${s.runtime}.`,
      `${s.name} targets ${s.runtime} (set in ${runtimeFile(s)}).`,
      `Runtime for ${s.name}: ${s.runtime}`,
    ]),
  },
  {
    key: 'decision-lang', kinds: COMP, weight: 1,
    render: (s, c) => {
      const why = pv(c.w, s.id, 'lang-why', LANG_REASONS[s.lang!]);
      return c.one([
        `${s.name} is written in ${s.lang} because ${why}.`,
        `We picked ${s.lang} for ${s.name}: ${why}.`,
        `Why ${s.lang} for ${s.name}? ${cap(why)}. The discussion is in ${c.claim((n) => `ADR-${String(n).padStart(3, '0')}`, 1, 260)}.`,
      ]);
    },
  },
  {
    key: 'repo', kinds: COMP, weight: 2,
    render: (s, c) => s.base
      ? c.one([`${s.name} lives in ${s.base.slice(0, -1)} of the ${s.repo} monorepo.`, `Source for ${s.name}: ${s.repo}, under ${s.base}`, `${s.name} code is at ${s.repo}/${s.base}`])
      : c.one([`${s.name} has its own repo, ${s.repo}.`, `Source for ${s.name} is the ${s.repo} repository.`]),
  },
  {
    key: 'region', kinds: COMP, weight: 2,
    render: (s, c) => {
      const r = s.regions!;
      const list = r.length === 1 ? r[0]! : `${r.slice(0, -1).join(', ')} and ${r[r.length - 1]}`;
      return c.one([
        `${s.name} is deployed to ${list}.`,
        `${s.name} runs in ${list}${r.length > 1 ? ', active-active' : ' only'}.`,
        `Prod ${s.name} lives in ${r.map((x) => clusterOf(x)).join(' and ')}.`,
      ]);
    },
  },
  {
    key: 'namespace', kinds: COMP, weight: 1,
    render: (s, c) => c.one([`${s.name} runs in the \`${s.domain!.key}\` namespace.`, `kubectl -n ${s.domain!.key} get pods -l app=${s.name} lists the ${s.name} pods`]),
  },
  {
    key: 'image', kinds: COMP, weight: 1, scope: () => 'ci/images',
    render: (s, c) => c.one([
      `${s.name}'s container image is built from ${pathIn(s, 'Dockerfile')} on ${baseImage(s)}.`,
      `The ${s.name} image uses ${baseImage(s)} as its base; it is pushed to ECR as tidewell/${s.name}.`,
    ]),
  },
  {
    key: 'resources', kinds: COMP, weight: 2,
    render: (s, c) => {
      const cpu = pv(c.w, s.id, 'cpu', ['100m', '250m', '500m', '1', '2']);
      const mem = pv(c.w, s.id, 'mem', ['256Mi', '512Mi', '768Mi', '1Gi', '2Gi', '4Gi']);
      return c.one([
        `${s.name} pods request ${cpu} CPU with a ${mem} memory limit.`,
        `Memory limit for ${s.name} is ${mem}; CPU request ${cpu}.`,
        `${s.name}: requests.cpu=${cpu}, limits.memory=${mem} (${pathIn(s, 'deploy/values.yaml')})`,
      ]);
    },
  },
  {
    key: 'deploy', kinds: COMP, weight: 2, scope: () => 'ci/deploy',
    render: (s, c) => {
      const manual = u(c.w, s.id, 'manual-prod') < 0.5;
      return manual
        ? c.one([
          `${s.name} deploys with Argo CD: merges to main go to staging automatically, prod is a manual sync of the ${s.name}-prod app.`,
          `Prod deploys of ${s.name} are a manual Argo CD sync after staging looks healthy.`,
        ])
        : c.one([
          `${s.name} auto-deploys to prod through Argo Rollouts with a ${pv(c.w, s.id, 'canary', [5, 10, 20, 25])}% canary step and analysis on error rate.`,
          `How ${s.name} ships: merge to main, CI builds the image and bumps the tag in the deploy repo, Argo CD syncs staging, then Argo Rollouts takes prod through canary steps and rolls back on its own if the error-rate analysis fails. Nobody needs to babysit it.`,
          `Merges to main ship ${s.name} to prod automatically (Argo Rollouts canary, ${pv(c.w, s.id, 'canary-min', [5, 10, 15])} minute pause between steps).`,
        ]);
    },
  },
  {
    key: 'ci-time', kinds: COMP, weight: 1, scope: () => 'ci',
    render: (s, c) => {
      const m = pv(c.w, s.id, 'ci-min', [4, 6, 7, 9, 12, 15, 18]);
      return c.one([
        `CI for ${s.name} (lint, unit, integration) takes about ${m} minutes.`,
        `${s.name}'s workflow is .github/workflows/${s.name}.yml, roughly ${m} min end to end`,
        `Expect ~${m} minutes of CI on a ${s.name} PR; the integration job is the slow part.`,
      ]);
    },
  },
  {
    key: 'review', kinds: COMP, weight: 1, scope: () => 'conventions',
    render: (s, c) => {
      const n = pv(c.w, s.id, 'approvals', [1, 2, 2]);
      return n === 2
        ? c.one([
          `PRs touching ${s.name} need two approvals, one of them from ${s.team.name}.`,
          `${s.name} changes need 2 approvals; CODEOWNERS routes them to @tidewell/${s.team.slug}.`,
        ])
        : c.one([
          `One approval from @tidewell/${s.team.slug} is enough to merge ${s.name} changes.`,
          `CODEOWNERS sends ${s.name} reviews to @tidewell/${s.team.slug}; a single approval merges.`,
        ]);
    },
  },
  {
    key: 'howto-test', kinds: COMP, weight: 2, scope: () => 'testing',
    render: (s, c) => {
      const st = s.store;
      return c.one([
        `Run \`${TEST_CMD[s.lang!]}\` in ${s.base || 'the repo root'} for ${s.name}'s unit tests.`,
        st && st.tech !== 'Snowflake'
          ? `\`make test-integration\` for ${s.name} starts ${st.tech} in Docker via Testcontainers, so Docker has to be running.`
          : `\`make test-integration\` for ${s.name} runs against the docker-compose stack in ${s.base || 'the repo root'}.`,
        `To test ${s.name} locally: \`${TEST_CMD[s.lang!]}\`, then \`make test-integration\` before pushing.`,
      ]);
    },
  },
  {
    key: 'howto-seed', kinds: ['service', 'worker'], weight: 1, scope: () => 'testing',
    when: (s) => !!s.store && s.store.tech !== 'Snowflake',
    render: (s, c) => c.one([
      `Run \`make seed\` before ${s.name}'s e2e tests, otherwise the fixtures are empty and half the suite fails.`,
      `${s.name} e2e tests expect seeded data: \`make seed\` loads ${pathIn(s, 'testdata/fixtures.sql')}.`,
      `if ${s.name} e2e fails with missing ${s.prefix!.plural}, you forgot \`make seed\``,
    ]),
  },
  {
    key: 'howto-local', kinds: RUNNING, weight: 2, scope: () => 'dev-env',
    render: (s, c) => s.port
      ? c.one([
        `\`make dev\` serves ${s.name} on localhost:${s.port} against the docker-compose dependencies.`,
        `To run ${s.name} locally: \`tw dev up ${s.name}\`, then hit http://localhost:${s.port}/healthz.`,
        `Local setup for ${s.name}: run \`tw dev up ${s.name}\` to start its dependencies in Docker, copy .env.example to .env, run \`make migrate\` if you touched the schema, then \`make dev\`; it serves on localhost:${s.port} and hot-reloads on save.`,
        `Local ${s.name} listens on :${s.port}; start its deps with \`docker compose up -d\` in ${s.base || 'the repo root'}.`,
      ])
      : c.one([
        `To run ${s.name} locally, \`tw dev up ${s.name}\` starts it with a local ${s.queue!.tech === 'SQS' ? 'ElasticMQ' : s.queue!.tech} from docker-compose.`,
        `\`make dev\` in ${s.base || 'the repo root'} runs ${s.name} against local containers.`,
      ]),
  },
  {
    key: 'log-level', kinds: COMP, weight: 1, scope: () => 'observability',
    render: (s, c) => c.one([
      `To get debug logs from ${s.name}, set ${s.env}_LOG_LEVEL=debug in its Helm values; prod runs at info.`,
      `${s.name} log level comes from ${s.env}_LOG_LEVEL (info in prod, debug locally).`,
    ]),
  },
  {
    key: 'secrets', kinds: COMP, weight: 1, scope: () => 'security',
    render: (s, c) => c.one([
      `${s.name} reads its secrets from Vault at kv/${s.domain!.key}/${s.name} through the Vault agent sidecar.`,
      `Secrets for ${s.name} live in Vault (kv/${s.domain!.key}/${s.name}); nothing sensitive goes in its Helm values.`,
      `Need a new secret for ${s.name}? Add it under kv/${s.domain!.key}/${s.name} and reference it in ${pathIn(s, 'deploy/vault.hcl')}.`,
    ]),
  },
  {
    key: 'oncall', kinds: COMP, weight: 2, scope: () => 'observability',
    render: (s, c) => c.one([
      `Pages for ${s.name} go to the ${s.team.pd} PagerDuty schedule.`,
      `${s.name} alerts route to ${s.team.alerts} and page ${s.team.pd}.`,
      `${s.team.name} on-call (${s.team.pd}) is paged for ${s.name}`,
    ]),
  },
  {
    key: 'dashboard', kinds: COMP, weight: 1, scope: () => 'observability',
    render: (s, c) => c.one([
      `The Grafana dashboard for ${s.name} is "${cap(s.name.replace(/-/g, ' '))} overview" in the ${s.team.name} folder.`,
      `${s.name} has a Grafana board at grafana.tidewell.internal/d/${s.name}`,
    ]),
  },
  {
    key: 'runbook', kinds: COMP, weight: 1, scope: () => 'observability',
    render: (s, c) => c.one([
      `The ${s.name} runbook is ${pathIn(s, 'RUNBOOK.md')} in ${s.repo}.`,
      `Runbook for ${s.name}: ${s.repo}/${pathIn(s, 'RUNBOOK.md')} — start with the "first five minutes" section.`,
    ]),
  },
  {
    key: 'trace-sampling', kinds: RUNNING, weight: 1, scope: () => 'observability',
    render: (s, c) => {
      const pct = pv(c.w, s.id, 'sample', [1, 5, 10, 20, 25, 50, 100]);
      return c.one([
        `${s.name} samples ${pct}% of traces in prod; traces with errors are always kept.`,
        `OTel head sampling for ${s.name} is ${pct}% (${s.env}_OTEL_SAMPLE_RATIO=${pct / 100}).`,
      ]);
    },
  },
  {
    key: 'datastore', kinds: COMP, weight: 3,
    when: (s) => !!s.store,
    render: (s, c) => {
      const st = s.store!;
      if (st.tech === 'DynamoDB') return c.one([`${s.name} keeps its data in the DynamoDB table ${st.name}.`, `${s.name} is backed by DynamoDB (table ${st.name}).`]);
      if (st.tech === 'Snowflake') return c.one([`${s.name} writes to Snowflake, schema ${st.name}.`, `${s.name} lands its rows in ${st.name} in Snowflake.`]);
      if (st.tech === 'OpenSearch') return c.one([`${s.name} writes to the ${st.name} OpenSearch cluster, index ${snake(s.prefix!.plural)}_v*.`, `${s.name} indexes into ${st.name}.`]);
      if (st.tech === 'Redis') return c.one([`${s.name} keeps its state in Redis (${st.name}); all of it can be rebuilt.`, `${s.name} stores everything in ${st.name}.`]);
      return c.one([`${s.name} stores its data in ${st.tech} on ${st.name}.`, `${s.name}'s database is ${st.name} (${st.tech}).`, `${s.name} → ${st.tech}, cluster ${st.name}`]);
    },
  },
  {
    key: 'decision-store', kinds: COMP, weight: 1,
    when: (s) => !!s.store,
    render: (s, c) => {
      const st = s.store!;
      const why = pv(c.w, s.id, 'store-why', STORE_REASONS[st.tech]);
      return c.one([
        `We chose ${st.tech} for ${s.name} because ${why}.`,
        `${s.name} uses ${st.tech} on purpose: ${why}.`,
        `Someone asked in ${s.team.channel} why ${s.name} uses ${st.tech}: ${why}, and at its volume the operational cost is lower than the alternatives the team looked at. ${s.owner!.first} wrote it up in the service README.`,
        `Design note: ${s.name} is on ${st.tech} since ${why}. See ${c.claim((n) => `ADR-${String(n).padStart(3, '0')}`, 1, 260)} for the trade-offs the team weighed.`,
      ]);
    },
  },
  {
    key: 'pool', kinds: COMP, weight: 2, when: (s) => sqlStore(s),
    render: (s, c) => {
      const n = pv(c.w, s.id, 'pool', [5, 10, 10, 15, 20, 25, 30, 40]);
      return c.one([
        `${s.name}'s ${s.store!.tech} pool maxes at ${n} connections per pod.`,
        `DB pool size for ${s.name} is ${n} (${s.env}_DB_POOL_MAX).`,
        `fyi ${s.name} opens up to ${n} connections per pod to ${s.store!.name}, keep that in mind when scaling it`,
      ]);
    },
  },
  {
    key: 'migrations', kinds: COMP, weight: 1, when: (s) => sqlStore(s),
    render: (s, c) => c.one([
      `${s.name} migrations live in ${pathIn(s, 'migrations/')} and run with ${MIGRATION_TOOL[s.lang!]} as an Argo CD pre-sync job.`,
      `Schema changes for ${s.name}: add a ${MIGRATION_TOOL[s.lang!]} migration under ${pathIn(s, 'migrations/')}; they must be backwards compatible with the running version.`,
    ]),
  },
  {
    key: 'ddb-capacity', kinds: COMP, weight: 1, when: (s) => s.store?.tech === 'DynamoDB',
    render: (s, c) => u(c.w, s.id, 'ondemand') < 0.6
      ? c.one([`${s.store!.name} uses on-demand capacity.`, `The DynamoDB table behind ${s.name} is on-demand, no capacity planning needed.`])
      : c.one([`${s.store!.name} is provisioned at ${pv(c.w, s.id, 'rcu', [200, 500, 1000])} RCU / ${pv(c.w, s.id, 'wcu', [100, 200, 400])} WCU with autoscaling.`]),
  },
  {
    key: 'ddb-ttl', kinds: COMP, weight: 1, when: (s) => s.store?.tech === 'DynamoDB',
    render: (s, c) => c.one([`Items in ${s.store!.name} expire through the \`expires_at\` TTL attribute.`, `${s.name} sets expires_at on every item so DynamoDB TTL cleans ${s.store!.name} up.`]),
  },
  {
    key: 'retention', kinds: COMP, weight: 1, when: (s) => !!s.store && s.store.tech !== 'Redis',
    render: (s, c) => {
      const d = pv(c.w, s.id, 'retention', [30, 90, 180, 365, 400, 730]);
      return c.one([
        `${s.name} hard-deletes ${s.prefix!.plural} ${days(c, d)} after they are soft-deleted.`,
        `Retention for ${s.prefix!.plural} in ${s.name} is ${days(c, d)}, driven by the data retention policy.`,
      ]);
    },
  },
  {
    key: 'pin', kinds: COMP, weight: 3,
    render: (s, c) => {
      // The library is part of the key (see attrKey), so each (component, library) is stated once.
      const [lib, versions] = LIBS[s.lang!].find(([name]) => name === c.sub)!;
      const v = pv(c.w, s.id, `pin:${lib}`, versions);
      return c.one([
        `${s.name} pins ${lib} ${v}.`,
        `${lib} in ${s.name} is locked to ${v} because ${pv(c.w, s.id, `pin-why:${lib}`, PIN_REASONS)}.`,
        `${s.name} uses ${lib} ${v}`,
      ]);
    },
  },
  {
    key: 'incident', kinds: COMP, weight: 2, scope: () => 'incidents',
    render: (s, c) => {
      const id = c.claim((n) => `INC-${n}`, 1000, 4999);
      const symptom = pv(c.w, s.id, 'inc-symptom', INCIDENT_SYMPTOMS);
      const cause = pv(c.w, s.id, 'inc-cause', INCIDENT_CAUSES);
      const mins = pv(c.w, s.id, 'inc-min', [12, 25, 40, 55, 70, 95]);
      return c.one([
        `${id}: ${s.name} ${symptom} for about ${mins} minutes; root cause was ${cause}.`,
        `${s.name} ${symptom} during ${id} after ${cause}. The postmortem is in docs/postmortems/${id}.md.`,
        `Postmortem ${id} (${s.name}, ${mins} min): ${cause}. Follow-ups are tracked in ${c.claim((n) => `${s.team.jira}-${n}`, 100, 3999)}; the main lesson recorded was to alert on saturation before latency, because the latency alert fired only after customers noticed.`,
      ]);
    },
  },
  {
    key: 'bug', kinds: COMP, weight: 1,
    render: (s, c) => {
      const bug = pv(c.w, s.id, 'bug', BUGS)(s.prefix!);
      const ticket = c.claim((n) => `${s.team.jira}-${n}`, 100, 3999);
      return c.one([`Known issue in ${s.name}: ${bug} (${ticket}).`, `${ticket}: in ${s.name}, ${bug}.`, `heads up, ${s.name} bug — ${bug}. tracked as ${ticket}`]);
    },
  },
  {
    key: 'shutdown', kinds: RUNNING, weight: 1,
    render: (s, c) => {
      const g = pv(c.w, s.id, 'grace', [10, 15, 20, 30, 45, 60]);
      return c.one([`${s.name} drains in-flight work for ${g}s on SIGTERM before exiting.`, `Graceful shutdown window for ${s.name} is ${g} seconds (${s.env}_SHUTDOWN_GRACE).`]);
    },
  },
  {
    key: 'upstream', kinds: COMP, weight: 2, when: (s) => !!s.upstream,
    render: (s, c) => {
      const up = s.upstream!;
      return c.one([
        `${s.name} calls ${up.name} over ${proto(up)}.`,
        `${s.name} calls ${up.name} over ${proto(up)} on most requests, so when ${up.name} has a bad day ${s.name} ${s.kind === 'service' ? 'serves cached responses where it can and returns 503 otherwise' : 'backs off and retries later'}; check ${up.name}'s dashboard first when ${s.name} alerts.`,
        `${s.name} depends on ${up.name} (${proto(up)}); if ${up.name} is down, ${s.name} ${s.kind === 'service' ? 'degrades to cached responses' : 'backs off and retries later'}.`,
        `${s.name} → ${up.name} is a ${proto(up)} call with a generated client.`,
      ]);
    },
  },
  {
    key: 'client-timeout', kinds: COMP, weight: 2, when: (s) => !!s.upstream,
    render: (s, c) => {
      const t = pv(c.w, s.id, 'timeout', [250, 500, 800, 1000, 1500, 2000, 3000, 5000, 10000, 15000]);
      return c.one([
        `${s.name} gives up on calls to ${s.upstream!.name} after ${ms(c, t)}.`,
        `Client timeout from ${s.name} to ${s.upstream!.name} is ${ms(c, t)}.`,
        `${s.env}_${envName(s.upstream!.name)}_TIMEOUT is ${ms(c, t)} in prod`,
      ]);
    },
  },
  {
    key: 'retries', kinds: COMP, weight: 1, when: (s) => !!s.upstream,
    render: (s, c) => {
      const n = pv(c.w, s.id, 'retries', [1, 2, 3, 3, 4, 5]);
      const b = pv(c.w, s.id, 'backoff', [50, 100, 200, 250, 500]);
      return c.one([
        `${s.name} retries failed calls to ${s.upstream!.name} ${n === 1 ? 'once' : `${numWord(c, n)} times`} with exponential backoff from ${b}ms.`,
        `Retry policy ${s.name} → ${s.upstream!.name}: ${n} ${n === 1 ? 'retry' : 'retries'}, jittered backoff starting at ${b} ms.`,
      ]);
    },
  },
  // --- Services -----------------------------------------------------------------------------
  {
    key: 'port', kinds: ['service'], weight: 2,
    render: (s, c) => c.one([`${s.name} listens on port ${s.port}.`, `${s.name} serves ${proto(s)} on :${s.port} inside the pod.`, `container port for ${s.name} = ${s.port}`]),
  },
  {
    key: 'metrics-port', kinds: RUNNING, weight: 1, scope: () => 'observability',
    render: (s, c) => {
      const p = pv(c.w, s.id, 'mport', [9090, 9091, 9100, 9464, 8888]);
      return c.one([`${s.name} exposes Prometheus metrics on :${p}/metrics.`, `Metrics for ${s.name} are scraped from port ${p}.`]);
    },
  },
  {
    key: 'health', kinds: ['service'], weight: 1,
    render: (s, c) => {
      const [live, ready] = pv(c.w, s.id, 'health', [['/healthz', '/readyz'], ['/livez', '/readyz'], ['/health/live', '/health/ready'], ['/_health', '/_ready']] as const);
      return c.one([`${s.name}'s liveness probe hits ${live}; readiness is ${ready}, which also checks its dependencies.`, `Probes for ${s.name}: ${live} (liveness), ${ready} (readiness).`]);
    },
  },
  {
    key: 'api-style', kinds: ['service'], weight: 2,
    render: (s, c) => {
      if (s.apiStyle === 'gRPC') return c.one([`${s.name} exposes a gRPC API defined in proto/${s.domain!.key}/${snake(s.prefix!.key)}/v1/*.proto.`, `${s.name} is gRPC-only; clients are generated with buf from proto/${s.domain!.key}.`]);
      if (s.apiStyle === 'GraphQL') return c.one([`${s.name} serves a GraphQL API; the schema is ${pathIn(s, 'schema.graphql')}.`, `${s.name} is GraphQL (schema-first, ${pathIn(s, 'schema.graphql')}).`]);
      return c.one([`${s.name} is a REST API; the OpenAPI spec is ${pathIn(s, 'openapi.yaml')}.`, `${s.name} speaks REST/JSON, documented in ${pathIn(s, 'openapi.yaml')}.`]);
    },
  },
  {
    key: 'decision-api', kinds: ['service'], weight: 1, when: (s) => s.apiStyle !== 'REST',
    render: (s, c) => s.apiStyle === 'gRPC'
      ? c.one([`${s.name} exposes gRPC rather than REST because all of its callers are internal services.`, `We went with gRPC for ${s.name} to get streaming and generated clients for its internal callers.`])
      : c.one([`${s.name} is GraphQL so the web apps can fetch nested ${s.prefix!.plural} in one round trip.`]),
  },
  {
    key: 'rate-limit', kinds: ['service'], weight: 2,
    render: (s, c) => {
      const n = pv(c.w, s.id, 'rl', [20, 50, 100, 200, 300, 500, 1000, 2500]);
      const unit = pv(c.w, s.id, 'rl-unit', ['API key', 'seller account', 'tenant', 'calling service']);
      return c.one([
        `${s.name} allows ${thousands(n)} req/s per ${unit}.`,
        `Rate limit on ${s.name}: ${n} requests per second per ${unit}, enforced with a token bucket in Redis.`,
        `${s.name} returns 429 above ${n} rps per ${unit}`,
      ]);
    },
  },
  {
    key: 'scaling', kinds: ['service'], weight: 2,
    render: (s, c) => {
      const min = pv(c.w, s.id, 'hpa-min', [2, 3, 3, 4, 6]);
      const max = min * pv(c.w, s.id, 'hpa-x', [2, 3, 4, 5]);
      const cpu = pv(c.w, s.id, 'hpa-cpu', [60, 65, 70, 75]);
      return c.one([
        `The ${s.name} HPA scales between ${min} and ${max} pods at ${cpu}% CPU.`,
        `${s.name} runs ${min}–${max} replicas in prod (HPA, target CPU ${cpu}%).`,
        `${s.name}: minReplicas ${min}, maxReplicas ${max}, scaling on CPU at ${cpu}%`,
      ]);
    },
  },
  {
    key: 'cache', kinds: ['service'], weight: 2,
    render: (s, c) => {
      const ttl = pv(c.w, s.id, 'ttl', [30, 60, 120, 300, 600, 900, 3600]);
      const redis = `redis-${s.domain!.key}-0${1 + Math.floor(u(c.w, s.id, 'redis') * 2)}`;
      const what = s.prefix!.vendor && (s.role === 'gateway' || s.role === 'proxy') ? `${s.prefix!.vendor} responses` : `${s.prefix!.noun} lookups`;
      const t = ttl >= 60 ? c.one([`${ttl / 60} min`, `${ttl}s`, `${ttl / 60} minutes`]) : `${ttl}s`;
      return c.one([
        `${s.name} caches ${what} in ${redis} for ${t}.`,
        `Cache TTL for ${what} in ${s.name} is ${t} (Redis, ${redis}).`,
        `${s.name} keeps ${what} in ${redis} with a ${t} TTL and stampede protection via a short lock.`,
      ]);
    },
  },
  {
    key: 'latency', kinds: ['service'], weight: 2, scope: () => 'observability',
    render: (s, c) => {
      const p99 = latencyOf(c.w, s);
      const p50 = Math.max(5, Math.round(p99 / 4 / 5) * 5);
      return c.one([
        `p99 latency for ${s.name} sits around ${p99} ms, p50 around ${p50} ms.`,
        `${s.name} usually answers in ~${p50}ms (p50); p99 is about ${p99}ms.`,
        `Load test on ${s.name}: p99 ${p99}ms at twice peak traffic, no errors.`,
      ]);
    },
  },
  {
    key: 'latency-alert', kinds: ['service'], weight: 1, scope: () => 'observability',
    render: (s, c) => {
      const threshold = Math.round((latencyOf(c.w, s) * pv(c.w, s.id, 'alert-x', [2, 2.5, 3])) / 50) * 50;
      const mins = pv(c.w, s.id, 'alert-min', [5, 10, 15]);
      return c.one([
        `The ${s.name} latency alert fires when p99 stays above ${threshold}ms for ${mins} minutes.`,
        `${s.name} pages if p99 > ${threshold} ms for ${mins}m (alerts/${s.name}.rules.yml).`,
      ]);
    },
  },
  {
    key: 'slo', kinds: ['service'], weight: 1, scope: () => 'observability',
    render: (s, c) => {
      const slo = pv(c.w, s.id, 'slo', ['99.5', '99.9', '99.9', '99.95']);
      return c.one([
        `${s.name} has a ${slo}% availability SLO over 30 days.`,
        `SLO for ${s.name}: ${slo}% of requests succeed over a rolling 30 days, with multi-window burn-rate alerts.`,
      ]);
    },
  },
  {
    key: 'authn', kinds: ['service'], weight: 1, scope: () => 'security',
    render: (s, c) => pv(c.w, s.id, 'authn', [0, 0, 1]) === 0
      ? c.one([`${s.name} only accepts calls from inside the Linkerd mesh; identity comes from mTLS.`, `Callers of ${s.name} are authenticated by Linkerd mTLS identities, checked against an allowlist.`])
      : c.one([`${s.name} checks a signed service JWT on every request, verified against the JWKS that ${c.w.issuer} publishes.`, `${s.name} verifies caller JWTs (audience \`${s.name}\`) in middleware.`]),
  },
  {
    key: 'body-limit', kinds: ['service'], weight: 1,
    render: (s, c) => {
      const mb = pv(c.w, s.id, 'body', [1, 2, 5, 10, 25]);
      return c.one([`${s.name} rejects request bodies over ${mb} MB with a 413.`, `Max request body for ${s.name} is ${mb}MB (${s.env}_MAX_BODY_BYTES=${mb * 1024 * 1024}).`]);
    },
  },
  {
    key: 'page-size', kinds: ['service'], weight: 1, when: (s) => s.apiStyle === 'REST',
    render: (s, c) => {
      const d = pv(c.w, s.id, 'page', [20, 25, 50, 100]);
      const m = d * pv(c.w, s.id, 'page-max', [4, 5, 10]);
      return c.one([`List endpoints in ${s.name} default to ${d} items per page, max ${m}, cursor-paginated.`, `${s.name} pagination: limit defaults to ${d}, capped at ${m}.`]);
    },
  },
  {
    key: 'idempotency', kinds: ['service'], weight: 1, when: (s) => ['billing', 'fulfillment', 'risk', 'growth'].includes(s.domain!.key),
    render: (s, c) => {
      const h = pv(c.w, s.id, 'idem', [24, 48, 72]);
      return c.one([`${s.name} honours Idempotency-Key headers on POSTs and keeps the keys for ${h} hours.`, `Idempotency keys in ${s.name} are stored for ${h}h; a replay returns the original response.`]);
    },
  },
  {
    key: 'flag', kinds: ['service', 'worker'], weight: 1,
    render: (s, c) => {
      const flag = `${s.prefix!.key}-${pv(c.w, s.id, 'flag', ['v2-pipeline', 'async-writes', 'new-pricing-path', 'batch-mode', 'strict-validation', 'shadow-reads'])}`;
      return c.one([
        `The ${flag} flag in Beacon (our in-house flag service) gates the new code path in ${s.name}; it is on for internal accounts.`,
        `${s.name} reads the \`${flag}\` Beacon flag on every request; its default is off.`,
      ]);
    },
  },
  // --- Workers --------------------------------------------------------------------------------
  {
    key: 'queue', kinds: ['worker'], weight: 3,
    render: (s, c) => {
      const q = s.queue!;
      if (s.role === 'publisher') {
        return q.tech === 'Kafka'
          ? c.one([`${s.name} publishes to the ${q.channel} topic on ${q.cluster}.`, `${s.name} relays outbox rows to Kafka topic ${q.channel}.`])
          : c.one([`${s.name} publishes to ${q.channel} (${q.tech}).`]);
      }
      switch (q.tech) {
        case 'Kafka': return c.one([`${s.name} consumes the ${q.channel} topic as consumer group ${s.name}.`, `${s.name} reads ${q.channel} from Kafka (${q.cluster}).`]);
        case 'SQS': return c.one([`${s.name} polls the ${q.channel} SQS queue.`, `Work for ${s.name} arrives on SQS queue ${q.channel}.`]);
        case 'RabbitMQ': return c.one([`${s.name} consumes the ${q.channel} queue on ${q.cluster}.`, `${s.name} gets its jobs from RabbitMQ, queue ${q.channel}.`]);
        default: return c.one([`${s.name} is a JetStream consumer on ${q.channel}.`, `${s.name} subscribes to ${q.channel} on NATS JetStream (durable consumer ${s.name}).`]);
      }
    },
  },
  {
    key: 'concurrency', kinds: ['worker'], weight: 2,
    render: (s, c) => {
      const n = pv(c.w, s.id, 'conc', [1, 2, 4, 8, 10, 16, 32]);
      return c.one([`${s.name} processes ${n} message${n === 1 ? '' : 's'} at a time per pod.`, `${s.env}_CONCURRENCY=${n} for ${s.name} in prod.`, n === 1 ? `${s.name} handles one message at a time per pod to keep ordering simple.` : `Each ${s.name} pod runs ${numWord(c, n)} handlers in parallel.`]);
    },
  },
  {
    key: 'dlq', kinds: ['worker'], weight: 2, when: (s) => s.role !== 'publisher',
    render: (s, c) => {
      const n = pv(c.w, s.id, 'attempts', [3, 3, 5, 5, 8, 10]);
      return c.one([
        `${s.name} retries a failed message ${numWord(c, n)} times, then parks it on ${s.queue!.dlq}.`,
        `After ${n} failed attempts ${s.name} sends the message to ${s.queue!.dlq}; replay with \`tw queue replay ${s.queue!.dlq}\`.`,
      ]);
    },
  },
  {
    key: 'batch', kinds: ['worker', 'job'], weight: 2,
    render: (s, c) => {
      const n = pv(c.w, s.id, 'batch', [50, 100, 200, 250, 500, 1000, 5000]);
      return c.one([`${s.name} writes in batches of ${thousands(n)}.`, `Batch size for ${s.name} is ${n} (${s.env}_BATCH_SIZE).`, `${s.name} flushes every ${thousands(n)} records or ${pv(c.w, s.id, 'flush', [1, 2, 5, 10])}s, whichever comes first.`]);
    },
  },
  {
    key: 'lag-alert', kinds: ['worker'], weight: 1, scope: () => 'observability', when: (s) => s.role !== 'publisher',
    render: (s, c) => {
      const q = s.queue!;
      const m = pv(c.w, s.id, 'lag-min', [5, 10, 15, 30]);
      if (q.tech === 'Kafka') {
        const n = pv(c.w, s.id, 'lag', [1000, 5000, 10000, 50000]);
        return c.one([`${s.name} pages when consumer lag on ${q.channel} passes ${thousands(n)} messages for ${m} minutes.`, `Lag alert: ${s.name} > ${thousands(n)} msgs behind for ${m}m.`]);
      }
      return c.one([`Alert fires when the oldest message on ${q.channel} is older than ${m} minutes (${s.name} not keeping up).`, `${s.name} is alerted on queue age: ${m} min on ${q.channel}.`]);
    },
  },
  {
    key: 'throughput', kinds: ['worker'], weight: 1,
    render: (s, c) => {
      const n = pv(c.w, s.id, 'tput', [20, 50, 150, 400, 1200, 3000]);
      return c.one([`${s.name} peaks around ${thousands(n)} messages/s on Monday mornings UTC.`, `Typical load on ${s.name}: ~${thousands(n)} msg/s at peak, a fraction of that overnight.`]);
    },
  },
  {
    key: 'idempotent-consumer', kinds: ['worker'], weight: 1, when: (s) => s.role !== 'publisher',
    render: (s, c) => c.one([
      `${s.name} dedupes on event_id, so redelivered messages are harmless.`,
      `Handlers in ${s.name} are idempotent: they upsert by ${snake(s.prefix!.noun)}_id and skip events older than the stored version.`,
    ]),
  },
  {
    key: 'visibility', kinds: ['worker'], weight: 1, when: (s) => s.queue?.tech === 'SQS',
    render: (s, c) => {
      const v = pv(c.w, s.id, 'vis', [30, 60, 120, 300, 900]);
      return c.one([`Visibility timeout on ${s.queue!.channel} is ${v >= 120 ? `${v / 60} minutes` : `${v}s`}.`, `${s.queue!.channel}: VisibilityTimeout=${v}s (terraform/sqs/${s.domain!.key}.tf)`]);
    },
  },
  {
    key: 'ordering', kinds: ['worker'], weight: 1, when: (s) => s.queue?.tech === 'Kafka' && s.role !== 'publisher',
    render: (s, c) => c.one([
      `${s.queue!.channel} is keyed by ${snake(s.prefix!.noun)}_id, so ${s.name} sees each ${s.prefix!.noun}'s events in order.`,
      `${s.name} relies on per-key ordering in ${s.queue!.channel}; do not repartition that topic without talking to ${s.owner!.first}.`,
    ]),
  },
  {
    key: 'keda', kinds: ['worker'], weight: 1,
    render: (s, c) => {
      const min = pv(c.w, s.id, 'keda-min', [1, 2, 3]);
      const max = pv(c.w, s.id, 'keda-max', [6, 10, 12, 20, 30]);
      const metric = s.queue!.tech === 'Kafka' ? 'consumer lag' : 'queue depth';
      return c.one([`KEDA scales ${s.name} between ${min} and ${max} pods on ${metric}.`, `${s.name} autoscaling: KEDA ${s.queue!.tech} scaler, ${min}–${max} replicas.`]);
    },
  },
  // --- Jobs -----------------------------------------------------------------------------------
  {
    key: 'schedule', kinds: ['job'], weight: 3,
    render: (s, c) => {
      const cron = cronFor(c.w, s.id);
      return c.one([`${s.name} runs on cron \`${cron.expr}\` (${cron.human}${cron.human.endsWith('UTC') ? '' : ', UTC'}).`, `${s.name} is a CronJob that fires ${cron.human}.`, `schedule for ${s.name}: \`${cron.expr}\``]);
    },
  },
  {
    key: 'job-duration', kinds: ['job'], weight: 1,
    render: (s, c) => {
      const m = pv(c.w, s.id, 'job-min', [1, 3, 8, 15, 25, 40]);
      return c.one([`A normal ${s.name} run takes about ${m} minute${m === 1 ? '' : 's'}.`, `${s.name} usually finishes in ${m} min; much longer means ${s.upstream ? s.upstream.name : s.store?.name ?? 'its upstream'} is slow.`]);
    },
  },
  {
    key: 'job-deadline', kinds: ['job'], weight: 1,
    render: (s, c) => {
      const sec = pv(c.w, s.id, 'deadline', [900, 1800, 3600, 7200]);
      return c.one([`${s.name} has activeDeadlineSeconds=${sec}.`, `Kubernetes kills ${s.name} if a run lasts longer than ${sec / 60} minutes.`]);
    },
  },
  {
    key: 'job-overlap', kinds: ['job'], weight: 1,
    render: (s, c) => c.one([`${s.name} uses concurrencyPolicy: Forbid, so a slow run delays the next one instead of overlapping it.`, `Two ${s.name} runs never overlap (concurrencyPolicy Forbid).`]),
  },
  {
    key: 'job-manual', kinds: ['job'], weight: 1, scope: () => 'runbooks',
    render: (s, c) => c.one([
      `To run ${s.name} by hand: \`kubectl -n ${s.domain!.key} create job --from=cronjob/${s.name} ${s.name}-manual\`.`,
      `Re-running ${s.name} is safe; trigger it with \`tw job run ${s.name}\`.`,
    ]),
  },
  {
    key: 'job-failure', kinds: ['job'], weight: 1, scope: () => 'observability',
    render: (s, c) => c.one([`A failed ${s.name} run posts to ${s.team.alerts}; two failures in a row page ${s.team.pd}.`, `${s.name} failures show up in ${s.team.alerts}.`]),
  },
  {
    key: 'export-target', kinds: ['job'], weight: 2, when: (s) => !!s.bucket,
    render: (s, c) => c.one([`${s.name} writes to s3://${s.bucket}/${s.prefix!.key}/dt=YYYY-MM-DD/.`, `Output of ${s.name} lands in s3://${s.bucket}/${s.prefix!.key}/, partitioned by day.`]),
  },
  // --- Web apps -------------------------------------------------------------------------------
  {
    key: 'web-owner', kinds: ['web'], weight: 2,
    render: (s, c) => c.one([`${s.owner!.full} owns ${s.label}.`, `${cap(s.label!)} is maintained by ${s.owner!.first} on the Web team.`, `frontend questions about ${s.label} → ${s.owner!.first}`]),
  },
  {
    key: 'web-framework', kinds: ['web'], weight: 3,
    render: (s, c) => {
      const fw = webFramework(c.w, s);
      return c.one([`${cap(s.label!)} is built with ${fw}.`, `${s.name} (${s.base}) is a ${fw} app.`, `${cap(s.label!)}: ${fw}, TypeScript, strict mode.`]);
    },
  },
  {
    key: 'web-node', kinds: ['web'], weight: 1,
    render: (s, c) => {
      const v = pv(c.w, s.id, 'node', ['20', '22']);
      return c.one([`${cap(s.label!)} builds on Node ${v}; the version is pinned in ${s.base}.nvmrc.`, `${s.base}.nvmrc says Node ${v}`]);
    },
  },
  {
    key: 'web-hosting', kinds: ['web'], weight: 2, scope: () => 'infra/cdn',
    render: (s, c) => {
      const ssr = webFramework(c.w, s).startsWith('Next') || webFramework(c.w, s).startsWith('Remix');
      return ssr
        ? c.one([`${cap(s.label!)} runs as a Node server on EKS behind CloudFront.`, `${s.name} is server-rendered on EKS (${s.name}-web pods) with CloudFront in front.`])
        : c.one([`${cap(s.label!)} is a static build served from S3 through CloudFront.`, `${s.name} deploys as static files to s3://tidewell-web-${s.name}, fronted by CloudFront.`]);
    },
  },
  {
    key: 'web-css', kinds: ['web'], weight: 1,
    render: (s, c) => {
      const css = pv(c.w, s.id, 'css', ['Tailwind', 'CSS Modules', 'vanilla-extract', 'Tailwind']);
      return c.one([`${cap(s.label!)} styles with ${css} on top of the @tidewell/ui design tokens.`, `${s.name} uses ${css} for styling.`]);
    },
  },
  {
    key: 'web-data', kinds: ['web'], weight: 1,
    render: (s, c) => {
      const lib = pv(c.w, s.id, 'data', ['TanStack Query', 'SWR', 'TanStack Query', 'Apollo Client']);
      return c.one([`${cap(s.label!)} fetches data with ${lib}.`, `Data fetching in ${s.name} goes through ${lib}; don't call fetch directly from components.`]);
    },
  },
  {
    key: 'web-state', kinds: ['web'], weight: 1,
    render: (s, c) => {
      const lib = pv(c.w, s.id, 'state', ['Zustand', 'Redux Toolkit', 'Jotai', 'React context only']);
      return c.one([`Client state in ${s.label} is kept in ${lib}.`, `${s.name} state management: ${lib}.`]);
    },
  },
  {
    key: 'web-i18n', kinds: ['web'], weight: 1,
    render: (s, c) => {
      const n = pv(c.w, s.id, 'locales', [3, 5, 8, 12]);
      const lib = pv(c.w, s.id, 'i18n', ['react-intl', 'i18next', 'Lingui']);
      return c.one([`${cap(s.label!)} ships ${n} locales; strings go through ${lib} and are translated in Crowdin.`, `${s.name} i18n: ${lib}, ${n} locales, messages in ${s.base}locales/.`]);
    },
  },
  {
    key: 'web-bundle', kinds: ['web'], weight: 1, scope: () => 'ci',
    render: (s, c) => {
      const kb = pv(c.w, s.id, 'bundle', [150, 180, 200, 250, 300]);
      return c.one([`CI fails if ${s.label}'s main bundle grows past ${kb} kB gzipped (size-limit).`, `Bundle budget for ${s.name}: ${kb} kB gzip for the entry chunk.`]);
    },
  },
  {
    key: 'web-e2e', kinds: ['web'], weight: 2, scope: () => 'testing',
    render: (s, c) => c.one([
      `${cap(s.label!)} e2e tests are Playwright specs in ${s.base}e2e/; run \`pnpm --filter ${s.name} e2e\` with the dev server up.`,
      `Run \`make seed\` against the local stack before ${s.name}'s Playwright suite, or the login fixtures are missing.`,
      `${s.name} Playwright runs shard across 4 CI workers; retries are capped at 1 so flakes stay visible.`,
    ]),
  },
  {
    key: 'web-dev', kinds: ['web'], weight: 1, scope: () => 'dev-env',
    render: (s, c) => {
      // One port per app, so two apps' dev servers never claim the same one.
      const port = 3000 + WEB_APPS.findIndex((x) => x.name === s.name);
      return c.one([`\`pnpm --filter ${s.name} dev\` serves ${s.label} on localhost:${port}.`, `${s.name} dev server port is ${port}.`]);
    },
  },
  {
    key: 'web-sentry', kinds: ['web'], weight: 1, scope: () => 'observability',
    render: (s, c) => c.one([`Front-end errors from ${s.label} go to the Sentry project ${s.name}-web.`, `${s.name} reports JS errors to Sentry (${s.name}-web) with source maps uploaded in CI.`]),
  },
  {
    key: 'web-lighthouse', kinds: ['web'], weight: 1, scope: () => 'ci',
    render: (s, c) => {
      const score = pv(c.w, s.id, 'lh', [85, 90, 95]);
      return c.one([`Lighthouse CI on ${s.name} requires a performance score of at least ${score} on the key pages.`]);
    },
  },
  {
    key: 'web-area', kinds: ['web'], weight: 3,
    render: (s, c) => {
      const area = c.sub!;
      const slug = area.toLowerCase().replace(/ /g, '-').replace(/-page$/, '');
      return c.one([
        `The ${area} in ${s.label} lives in ${s.base}src/routes/${slug}/.`,
        `${cap(s.label!)}'s ${area} is lazy-loaded and has its own Playwright spec (${slug}.spec.ts).`,
        `${cap(s.label!)} ${area}: components in ${s.base}src/features/${slug}, owned by ${s.owner!.first}.`,
      ]);
    },
  },
  {
    key: 'web-api-client', kinds: ['web'], weight: 1,
    render: (s, c) => {
      const api = apiFor(c.w, s);
      return c.one([
        `${cap(s.label!)} talks to ${api.name} through the edge gateway, with a client generated from its OpenAPI spec (\`pnpm gen:api\`).`,
        `${s.name} gets its ${api.prefix!.plural} from ${api.name}, proxied through the edge gateway at /${api.prefix!.key}.`,
      ]);
    },
  },
  // --- Mobile apps ----------------------------------------------------------------------------
  {
    key: 'mobile-owner', kinds: ['mobile'], weight: 2,
    render: (s, c) => c.one([`${s.owner!.full} owns the ${s.name}.`, `${s.owner!.first} is the lead engineer on the ${s.name}.`]),
  },
  {
    key: 'mobile-ui', kinds: ['mobile'], weight: 2,
    render: (s, c) => {
      const ui = s.platform === 'iOS'
        ? pv(c.w, s.id, 'ui', ['SwiftUI', 'UIKit with SwiftUI for new screens'])
        : pv(c.w, s.id, 'ui', ['Jetpack Compose', 'Views with Compose for new screens']);
      const arch = s.platform === 'iOS' ? pv(c.w, s.id, 'arch', ['TCA', 'MVVM with Combine']) : pv(c.w, s.id, 'arch', ['MVVM with Hilt', 'MVI with Hilt']);
      return c.one([`The ${s.name} is ${ui}, architected as ${arch}.`, `${s.name}: ${ui}; architecture is ${arch}.`]);
    },
  },
  {
    key: 'mobile-min-os', kinds: ['mobile'], weight: 2,
    render: (s, c) => s.platform === 'iOS'
      ? c.one([`The ${s.name} supports iOS ${pv(c.w, s.id, 'min', [15, 16, 17])} and later.`, `Deployment target for the ${s.name} is iOS ${pv(c.w, s.id, 'min', [15, 16, 17])}.`])
      : c.one([`The ${s.name} has minSdk ${pv(c.w, s.id, 'min', [24, 26, 28])} and targets SDK 34.`, `${s.name}: minSdk ${pv(c.w, s.id, 'min', [24, 26, 28])}, targetSdk 34.`]),
  },
  {
    key: 'mobile-bundle-id', kinds: ['mobile'], weight: 1,
    render: (s, c) => c.one([`The ${s.name}'s ${s.platform === 'iOS' ? 'bundle identifier' : 'application id'} is com.tidewell.${s.app}.`, `${s.name} id: com.tidewell.${s.app}`]),
  },
  {
    key: 'mobile-network', kinds: ['mobile'], weight: 1,
    render: (s, c) => {
      const lib = s.platform === 'iOS' ? pv(c.w, s.id, 'net', ['URLSession with async/await', 'Alamofire']) : pv(c.w, s.id, 'net', ['Retrofit and OkHttp', 'Ktor client']);
      return c.one([`Networking in the ${s.name} uses ${lib}.`, `${s.name} networking layer: ${lib}, with a shared auth interceptor.`]);
    },
  },
  {
    key: 'mobile-storage', kinds: ['mobile'], weight: 1,
    render: (s, c) => {
      const db = s.platform === 'iOS' ? pv(c.w, s.id, 'db', ['GRDB', 'Core Data', 'SwiftData']) : pv(c.w, s.id, 'db', ['Room', 'SQLDelight']);
      return c.one([`The ${s.name} caches data on device with ${db}.`, `Local persistence in the ${s.name}: ${db}.`]);
    },
  },
  {
    key: 'mobile-images', kinds: ['mobile'], weight: 1,
    render: (s, c) => {
      const lib = s.platform === 'iOS' ? pv(c.w, s.id, 'img', ['Nuke', 'Kingfisher']) : pv(c.w, s.id, 'img', ['Coil', 'Glide']);
      return c.one([`Image loading in the ${s.name} goes through ${lib}.`, `${s.name} uses ${lib} for images.`]);
    },
  },
  {
    key: 'mobile-release', kinds: ['mobile'], weight: 2, scope: () => 'release',
    render: (s, c) => {
      const cadence = pv(c.w, `app:${s.app}`, 'cadence', ['weekly', 'every two weeks']);
      const day = pv(c.w, `app:${s.app}`, 'cut', ['Monday', 'Tuesday', 'Wednesday']);
      return c.one([`The ${s.label} apps ship ${cadence}; the release branch is cut on ${day}.`, `${s.name} releases go out ${cadence}, cut on ${day} mornings.`]);
    },
  },
  {
    key: 'mobile-rollout', kinds: ['mobile'], weight: 1, scope: () => 'release',
    render: (s, c) => s.platform === 'iOS'
      ? c.one([`The ${s.name} uses App Store phased release over 7 days.`, `Betas of the ${s.name} go to TestFlight (internal group first, then the Tidewell staff group).`])
      : c.one([`The ${s.name} rolls out in Play Console at 1%, 10%, 50%, then 100%.`, `Betas of the ${s.name} go through the Play internal testing track.`]),
  },
  {
    key: 'mobile-crash', kinds: ['mobile'], weight: 1, scope: () => 'observability',
    render: (s, c) => {
      const tool = pv(c.w, `app:${s.app}`, 'crash', ['Crashlytics', 'Sentry', 'Bugsnag']);
      return c.one([`Crash reports for the ${s.name} go to ${tool}.`, `${s.name} crash-free sessions are tracked in ${tool}; the release gate is 99.5%.`]);
    },
  },
  {
    key: 'mobile-fastlane', kinds: ['mobile'], weight: 1, scope: () => 'ci',
    render: (s, c) => c.one([
      `\`bundle exec fastlane ${s.platform === 'iOS' ? 'ios' : 'android'} beta\` builds and uploads a ${s.name} beta.`,
      `CI for the ${s.name} runs on GitHub-hosted ${s.platform === 'iOS' ? 'macOS' : 'Linux'} runners and takes about ${pv(c.w, s.id, 'ci', [14, 18, 22, 28])} minutes.`,
    ]),
  },
  {
    key: 'mobile-deeplink', kinds: ['mobile'], weight: 1,
    render: (s, c) => c.one([`The ${s.name} handles tidewell-${s.app}:// links and universal links under tidewell.com/${s.app}/.`, `Deep links for the ${s.name}: scheme tidewell-${s.app}://, routes defined in DeepLinkRouter.`]),
  },
  {
    key: 'mobile-module', kinds: ['mobile'], weight: 3,
    render: (s, c) => {
      const m = c.sub!;
      const mod = m.split(' ').map(cap).join('');
      return s.platform === 'iOS'
        ? c.one([`The ${m} feature of the ${s.name} is the ${mod}Feature Swift package.`, `${s.name}: ${m} lives in Packages/${mod}Feature and has snapshot tests.`])
        : c.one([`The ${m} feature of the ${s.name} is the :feature:${snake(m).replace(/_/g, '-')} Gradle module.`, `${s.name} ${m} code is in feature/${snake(m).replace(/_/g, '-')}; screenshot tests run with Paparazzi.`]);
    },
  },
  // --- Data -----------------------------------------------------------------------------------
  {
    key: 'dag-schedule', kinds: ['dag'], weight: 3,
    render: (s, c) => {
      const hourly = s.engine === 'hourly';
      const m = pv(c.w, s.id, 'min', [5, 10, 15, 20, 30]);
      const h = pv(c.w, s.id, 'hour', [1, 2, 3, 4]);
      return hourly
        ? c.one([`The ${s.name} Airflow DAG runs hourly at :${String(m).padStart(2, '0')}.`, `${s.name} is scheduled \`${m} * * * *\`.`])
        : c.one([`The ${s.name} DAG runs daily at 0${h}:${String(m).padStart(2, '0')} UTC.`, `${s.name} schedule: \`${m} ${h} * * *\` (UTC).`]);
    },
  },
  {
    key: 'dag-owner', kinds: ['dag', 'dbt'], weight: 2,
    render: (s, c) => c.one([`${s.owner!.full} owns ${s.name}.`, `${s.name} belongs to ${s.team.name}; ${s.owner!.first} is the contact.`]),
  },
  {
    key: 'dag-source', kinds: ['dag'], weight: 2,
    render: (s, c) => {
      const src = s.upstream;
      const where = src?.store
        ? src.store.tech === 'DynamoDB' ? `a DynamoDB export of ${src.store.name}` : `a read replica of ${src.store.name}`
        : `the ${s.prefix!.key}.events.v1 archive in S3`;
      return c.one([`${s.name} extracts ${s.prefix!.plural} from ${where} into RAW.${envName(s.domain!.key)}.`, `Source for ${s.name}: ${where}.`]);
    },
  },
  {
    key: 'dag-sla', kinds: ['dag'], weight: 1, scope: () => 'data/alerts',
    render: (s, c) => {
      const h = pv(c.w, s.id, 'sla', [1, 2, 3, 4, 6]);
      return c.one([`${s.name} has a ${h}h SLA; a miss posts to #data-alerts.`, `SLA on ${s.name} is ${h} hour${h === 1 ? '' : 's'} after the scheduled time.`]);
    },
  },
  {
    key: 'dag-retries', kinds: ['dag'], weight: 1,
    render: (s, c) => {
      const n = pv(c.w, s.id, 'retries', [1, 2, 3, 5]);
      const d = pv(c.w, s.id, 'delay', [5, 10, 15]);
      return c.one([`${s.name} tasks retry ${numWord(c, n)} time${n === 1 ? '' : 's'} with a ${d}-minute delay.`, `retries=${n}, retry_delay=${d}m on ${s.name}`]);
    },
  },
  {
    key: 'dag-backfill', kinds: ['dag'], weight: 1, scope: () => 'runbooks',
    render: (s, c) => c.one([
      `To backfill ${s.name}, use \`tw airflow backfill ${s.name} --from <date> --to <date>\`; it runs in the backfill pool so it does not starve the scheduled runs.`,
      `Backfills of ${s.name} are safe to rerun: each run overwrites its own partition.`,
    ]),
  },
  {
    key: 'dag-volume', kinds: ['dag'], weight: 1,
    render: (s, c) => {
      const n = pv(c.w, s.id, 'rows', [40_000, 250_000, 1_200_000, 8_000_000, 30_000_000]);
      return c.one([`${s.name} moves about ${thousands(n)} rows per run.`, `A typical ${s.name} run loads ~${thousands(n)} rows.`]);
    },
  },
  {
    key: 'dag-pii', kinds: ['dag'], weight: 1, scope: () => 'security',
    render: (s, c) => c.one([`${s.name} hashes email and phone columns before loading; raw PII never reaches Snowflake.`, `PII columns in ${s.name} are tagged in the schema YAML and masked by a Snowflake masking policy.`]),
  },
  {
    key: 'dbt-materialization', kinds: ['dbt'], weight: 2,
    render: (s, c) => {
      const mat = pv(c.w, s.id, 'mat', ['incremental', 'table', 'incremental']);
      return mat === 'incremental'
        ? c.one([`${s.name} is an incremental dbt model (merge on ${snake(s.prefix!.noun)}_id).`, `${s.name}: materialized='incremental', unique_key='${snake(s.prefix!.noun)}_id'`])
        : c.one([`${s.name} is rebuilt as a full table on every dbt run.`, `${s.name} is materialized as a table.`]);
    },
  },
  {
    key: 'dbt-grain', kinds: ['dbt'], weight: 2,
    render: (s, c) => s.name.startsWith('fct_')
      ? c.one([`${s.name} has one row per ${s.prefix!.noun} event.`, `Grain of ${s.name}: one row per ${s.prefix!.noun} per state change.`])
      : c.one([`${s.name} has one row per ${s.prefix!.noun}, SCD type 2 with valid_from/valid_to.`, `${s.name} keeps history as SCD2 (one row per ${s.prefix!.noun} version).`]),
  },
  {
    key: 'dbt-tests', kinds: ['dbt'], weight: 1, scope: () => 'testing',
    render: (s, c) => c.one([`${s.name} has not_null and unique tests on its key plus a freshness check on the source.`, `dbt tests for ${s.name} live in models/${s.domain!.key}/${s.name}.yml.`]),
  },
  {
    key: 'dbt-run', kinds: ['dbt'], weight: 1,
    render: (s, c) => c.one([`${s.name} is built in the nightly dbt_nightly run (02:30 UTC).`, `${s.name} refreshes with dbt_nightly, so it is at most a day stale.`]),
  },
  {
    key: 'dbt-consumers', kinds: ['dbt'], weight: 1,
    render: (s, c) => c.one([`${s.name} feeds the ${s.domain!.team} dashboards in Looker.`]),
  },
  // --- Datastores, topics, clusters, buckets --------------------------------------------------
  {
    key: 'db-version', kinds: ['db'], weight: 2,
    render: (s, c) => {
      const v = s.engine === 'Postgres' ? `Postgres ${pv(c.w, s.id, 'v', ['14.11', '15.6', '15.7', '16.2', '16.3'])}` : s.engine === 'MySQL' ? `MySQL ${pv(c.w, s.id, 'v', ['8.0.36', '8.0.35'])}` : `MongoDB ${pv(c.w, s.id, 'v', ['6.0', '7.0'])}`;
      return c.one([`${s.name} runs ${v}.`, `${s.name} is on ${v}${s.engine === 'MongoDB' ? ' (Atlas)' : ' (RDS)'}.`]);
    },
  },
  {
    key: 'db-instance', kinds: ['db'], weight: 1,
    render: (s, c) => {
      const cls = pv(c.w, s.id, 'cls', ['db.r6g.large', 'db.r6g.xlarge', 'db.r6g.2xlarge', 'db.r7g.xlarge']);
      return s.engine === 'MongoDB'
        ? c.one([`${s.name} is an Atlas ${pv(c.w, s.id, 'tier', ['M30', 'M40', 'M50'])} cluster.`])
        : c.one([`${s.name} primary is a ${cls}.`, `Instance class for ${s.name}: ${cls}, with ${pv(c.w, s.id, 'replicas', ['one read replica', 'two read replicas'])}.`]);
    },
  },
  {
    key: 'db-backup', kinds: ['db'], weight: 1,
    render: (s, c) => {
      const d = pv(c.w, s.id, 'backup', [7, 14, 30, 35]);
      return c.one([`${s.name} keeps automated backups for ${days(c, d)} with point-in-time recovery.`, `Backup retention on ${s.name} is ${d} days.`]);
    },
  },
  {
    key: 'db-maintenance', kinds: ['db'], weight: 1,
    render: (s, c) => {
      const day = pv(c.w, s.id, 'mday', ['Sunday', 'Saturday', 'Tuesday']);
      const h = pv(c.w, s.id, 'mh', [2, 3, 4, 5]);
      return c.one([`${s.name}'s maintenance window is ${day} 0${h}:00–0${h + 1}:00 UTC.`, `Maintenance on ${s.name} happens on ${day}s at 0${h}:00 UTC.`]);
    },
  },
  {
    key: 'db-connections', kinds: ['db'], weight: 1, when: (s) => s.engine !== 'MongoDB',
    render: (s, c) => {
      const n = pv(c.w, s.id, 'maxconn', [200, 400, 500, 800, 1000]);
      return c.one([`max_connections on ${s.name} is ${n}; services connect through PgBouncer in transaction mode.`.replace('PgBouncer in transaction mode', s.engine === 'MySQL' ? 'ProxySQL' : 'PgBouncer in transaction mode'), `${s.name} allows ${n} connections.`]);
    },
  },
  {
    key: 'db-statement-timeout', kinds: ['db'], weight: 1, when: (s) => s.engine === 'Postgres',
    render: (s, c) => {
      const t = pv(c.w, s.id, 'stmt', [5, 15, 30, 60]);
      return c.one([`statement_timeout for the app role on ${s.name} is ${t}s.`, `${s.name}: app_rw role has statement_timeout=${t * 1000}ms; migrations use a separate role without it.`]);
    },
  },
  {
    key: 'db-access', kinds: ['db'], weight: 1, scope: () => 'runbooks',
    render: (s, c) => c.one([`For read-only access to ${s.name}, run \`tw db connect ${s.name} --ro\`; it issues a short-lived IAM credential.`, `Query ${s.name} through the replica with \`tw db connect ${s.name} --ro\`, never the primary.`]),
  },
  {
    key: 'redis-engine', kinds: ['redis'], weight: 2,
    render: (s, c) => {
      const v = pv(c.w, s.id, 'v', ['Redis 7.0', 'Redis 7.1', 'Valkey 7.2']);
      const node = pv(c.w, s.id, 'node', ['cache.r6g.large', 'cache.r7g.large', 'cache.m6g.large']);
      return c.one([`${s.name} is ElastiCache ${v} on ${node} nodes.`, `${s.name} runs ${v}.`]);
    },
  },
  {
    key: 'redis-eviction', kinds: ['redis'], weight: 1,
    render: (s, c) => {
      const p = pv(c.w, s.id, 'evict', ['allkeys-lru', 'volatile-lru', 'allkeys-lfu']);
      return c.one([`${s.name} uses maxmemory-policy ${p}.`, `Eviction policy on ${s.name}: ${p}, so every key written there should carry a TTL.`]);
    },
  },
  {
    key: 'redis-mode', kinds: ['redis'], weight: 1,
    render: (s, c) => u(c.w, s.id, 'cluster') < 0.5
      ? c.one([`${s.name} runs in cluster mode with ${pv(c.w, s.id, 'shards', [2, 3, 4])} shards; multi-key commands need hash tags.`])
      : c.one([`${s.name} is a single primary with one replica (no cluster mode).`]),
  },
  {
    key: 'search-version', kinds: ['search'], weight: 2,
    render: (s, c) => c.one([`${s.name} runs OpenSearch ${pv(c.w, s.id, 'v', ['2.11', '2.13'])} with ${pv(c.w, s.id, 'nodes', [3, 6, 9])} data nodes.`, `${s.name} is OpenSearch ${pv(c.w, s.id, 'v', ['2.11', '2.13'])}.`]),
  },
  {
    key: 'search-shards', kinds: ['search'], weight: 1,
    render: (s, c) => c.one([`Indices on ${s.name} use ${pv(c.w, s.id, 'shards', [1, 3, 5, 6])} primary shards and 1 replica.`, `Snapshots of ${s.name} go to S3 ${pv(c.w, s.id, 'snap', ['hourly', 'every 6 hours', 'nightly'])}.`]),
  },
  {
    key: 'search-reindex', kinds: ['search'], weight: 1, scope: () => 'runbooks',
    render: (s, c) => c.one([`Reindexing on ${s.name} goes through a new versioned index and an alias swap, never in place.`]),
  },
  {
    key: 'kafka-version', kinds: ['kafka'], weight: 2,
    render: (s, c) => c.one([`${s.name} is MSK running Kafka ${pv(c.w, s.id, 'v', ['3.5.1', '3.6.0'])} on ${pv(c.w, s.id, 'brokers', [3, 6, 9])} brokers.`]),
  },
  {
    key: 'kafka-isr', kinds: ['kafka'], weight: 1,
    render: (s, c) => c.one([`${s.name} has min.insync.replicas=2 with replication factor 3; producers use acks=all.`]),
  },
  {
    key: 'kafka-registry', kinds: ['kafka'], weight: 1,
    render: (s, c) => c.one([`Schemas for topics on ${s.name} are registered in the Glue schema registry with BACKWARD compatibility.`]),
  },
  {
    key: 'topic-partitions', kinds: ['topic'], weight: 2,
    render: (s, c) => {
      const n = pv(c.w, s.id, 'parts', [6, 12, 12, 24, 48]);
      return c.one([`${s.name} has ${n} partitions.`, `The ${s.name} topic on ${s.engine} is created with ${n} partitions, RF 3.`]);
    },
  },
  {
    key: 'topic-retention', kinds: ['topic'], weight: 2,
    render: (s, c) => {
      const d = pv(c.w, s.id, 'ret', [3, 7, 14, 30]);
      return c.one([`Retention on ${s.name} is ${days(c, d)}.`, `${s.name}: retention.ms = ${d * 86_400_000} (${d} days).`]);
    },
  },
  {
    key: 'topic-schema', kinds: ['topic'], weight: 1,
    render: (s, c) => {
      const fmt = pv(c.w, s.id, 'fmt', ['Avro', 'Protobuf', 'Protobuf']);
      return c.one([`Messages on ${s.name} are ${fmt}, keyed by ${snake(s.prefix!.noun)}_id.`, `${s.name} payloads are ${fmt}; the schema lives in schemas/${s.domain!.key}/${s.prefix!.key}.${fmt === 'Avro' ? 'avsc' : 'proto'}.`]);
    },
  },
  {
    key: 'topic-producer', kinds: ['topic'], weight: 1, when: (s) => !!s.producer,
    render: (s, c) => c.one([`${s.producer!.name} is the only producer on ${s.name}.`, `${s.name} is written by ${s.producer!.name} via the transactional outbox.`]),
  },
  {
    key: 'bucket-lifecycle', kinds: ['bucket'], weight: 2,
    render: (s, c) => {
      const d = pv(c.w, s.id, 'ia', [30, 60, 90]);
      const g = pv(c.w, s.id, 'glacier', [180, 365]);
      return c.one([`s3://${s.name} moves objects to Infrequent Access after ${d} days and to Glacier after ${g}.`, `Lifecycle on ${s.name}: IA at ${d}d, Glacier at ${g}d.`]);
    },
  },
  {
    key: 'bucket-encryption', kinds: ['bucket'], weight: 1, scope: () => 'security',
    render: (s, c) => c.one([`${s.name} is encrypted with SSE-KMS using the ${s.domain!.key}-data key; public access is blocked at the account level.`, `${s.name} has versioning on and object lock off.`]),
  },
  {
    key: 'cluster-version', kinds: ['cluster'], weight: 2,
    render: (s, c) => {
      const v = pv(c.w, s.id, 'v', ['1.28', '1.29', '1.29', '1.30']);
      return c.one([`${s.name} runs EKS ${v}.`, `Kubernetes version on ${s.name}: ${v}.`]);
    },
  },
  {
    key: 'cluster-nodes', kinds: ['cluster'], weight: 2,
    render: (s, c) => {
      const max = pv(c.w, s.id, 'max', s.engine === 'prod' ? [120, 150, 200] : [20, 30, 40]);
      return c.one([`Karpenter provisions nodes for ${s.name}, capped at ${max} nodes.`, `${s.name} node limit in the Karpenter NodePool is ${max}.`]);
    },
  },
  {
    key: 'cluster-instances', kinds: ['cluster'], weight: 1,
    render: (s, c) => {
      const spot = s.engine === 'prod' ? pv(c.w, s.id, 'spot', [0, 30, 50]) : pv(c.w, s.id, 'spot', [70, 100]);
      return c.one([`${s.name} runs Graviton instances (m7g/c7g), about ${spot}% of them spot.`, `${s.name} node mix: ${spot}% spot, rest on-demand, arm64 only.`]);
    },
  },
  {
    key: 'cluster-upgrade', kinds: ['cluster'], weight: 1,
    render: (s, c) => s.engine === 'prod'
      ? `Upgrades of ${s.name} happen on ${pv(c.w, s.id, 'day', ['Tuesdays', 'Wednesdays', 'Thursdays'])} during EU morning, after the staging cluster has soaked for a week.`
      : `${s.name} is upgraded first, a week ahead of the prod clusters.`,
  },
  {
    key: 'cluster-access', kinds: ['cluster'], weight: 1, scope: () => 'runbooks',
    render: (s, c) => c.one([`Get kubectl access to ${s.name} with \`tw kube login ${s.name}\`; ${s.engine === 'prod' ? 'prod access is read-only unless you request break-glass.' : 'it grants edit rights in your team namespaces.'}`]),
  },
  {
    key: 'cluster-ingress', kinds: ['cluster'], weight: 1,
    render: (s, c) => c.one([`${s.name} ingress goes through an AWS NLB into ingress-nginx; the Linkerd mesh handles service-to-service traffic.`, `Service-to-service traffic in ${s.name} is meshed with Linkerd.`]),
  },
  // --- Teams and people -----------------------------------------------------------------------
  {
    key: 'team-channel', kinds: ['team'], weight: 2,
    render: (s, c) => c.one([`${s.team.name} discusses work in ${s.team.channel}; alerts land in ${s.team.alerts}.`, `Reach the ${s.team.name} team in ${s.team.channel}.`]),
  },
  {
    key: 'team-lead', kinds: ['team'], weight: 2,
    render: (s, c) => c.one([`${s.team.members[0]!.full} is the engineering manager for ${s.team.name}.`, `${s.team.name} is led by ${s.team.members[0]!.first}.`]),
  },
  {
    key: 'team-members', kinds: ['team'], weight: 1,
    render: (s, c) => c.one([
      `${s.team.name} has ${s.team.members.length} people: ${s.team.members.map((m) => m.first).join(', ')}.`,
      `Who's on ${s.team.name}: ${s.team.members.map((m) => m.full).join(', ')}.`,
    ]),
  },
  {
    key: 'team-jira', kinds: ['team'], weight: 1,
    render: (s, c) => c.one([`${s.team.name} tickets use the ${s.team.jira} Jira project.`, `File ${s.team.name} bugs in Jira under ${s.team.jira}.`]),
  },
  {
    key: 'team-standup', kinds: ['team'], weight: 1,
    render: (s, c) => {
      const t = pv(c.w, s.id, 'standup', ['09:15', '09:30', '10:00', '10:30', '15:00']);
      const tz = s.team.members[0]!.tz;
      return c.one([`${s.team.name} standup is at ${t} ${tz}, async in Slack on Fridays.`, `${s.team.name} daily standup: ${t} ${tz}.`]);
    },
  },
  {
    key: 'team-sprint', kinds: ['team'], weight: 1,
    render: (s, c) => {
      const weeks = pv(c.w, s.id, 'sprint', [1, 2, 2, 3]);
      const day = pv(c.w, s.id, 'plan', ['Monday', 'Tuesday', 'Wednesday']);
      return c.one([`${s.team.name} runs ${weeks}-week sprints with planning on ${day}.`, `Sprints on ${s.team.name} are ${weeks} week${weeks === 1 ? '' : 's'} long.`]);
    },
  },
  {
    key: 'team-oncall', kinds: ['team'], weight: 1, scope: () => 'observability',
    render: (s, c) => {
      const day = pv(c.w, s.id, 'handoff', ['Monday', 'Wednesday', 'Thursday']);
      return c.one([`${s.team.name} on-call (${s.team.pd}) rotates weekly, handing off ${day} at 10:00.`, `The ${s.team.pd} PagerDuty schedule hands off on ${day}s.`]);
    },
  },
  {
    key: 'team-review-sla', kinds: ['team'], weight: 1, scope: () => 'conventions',
    render: (s, c) => {
      const h = pv(c.w, s.id, 'review-h', [4, 8, 24]);
      return c.one([`${s.team.name} aims to give a first review within ${h} working hours.`, `On ${s.team.name}, PRs should get a first review within ${h}h.`]);
    },
  },
  {
    key: 'team-docs', kinds: ['team'], weight: 1,
    render: (s, c) => c.one([`${s.team.name}'s roadmap and team docs live in the Confluence space ${s.team.jira}.`, `${s.team.name} keeps its design docs in Confluence (space ${s.team.jira}).`]),
  },
  {
    key: 'team-triage', kinds: ['team'], weight: 1,
    render: (s, c) => c.one([`${s.team.name} triages new ${s.team.jira} tickets every ${pv(c.w, s.id, 'triage', ['Monday', 'Tuesday', 'Thursday'])}.`]),
  },
  {
    key: 'person-role', kinds: ['person'], weight: 2,
    render: (s, c) => {
      const p = s.person!;
      return p.role === 'engineering manager'
        ? c.one([`${p.full} is the engineering manager for ${p.team.name}.`, `${p.first} manages the ${p.team.name} team.`])
        : c.one([`${p.full} is a ${p.role} on ${p.team.name}.`, `${p.first} ${p.last} works on ${p.team.name} as a ${p.role}.`]);
    },
  },
  {
    key: 'person-location', kinds: ['person'], weight: 1,
    render: (s, c) => {
      const p = s.person!;
      return c.one([`${p.first} works from ${p.city} (${p.tz}).`, `${p.full} is based in ${p.city}.`]);
    },
  },
  {
    key: 'person-expertise', kinds: ['person'], weight: 2, when: (s) => !!s.person!.expertise,
    render: (s, c) => {
      const p = s.person!;
      return c.one([`${p.first} is the go-to person for ${p.expertise}.`, `For ${p.expertise}, ask ${p.full}.`, `${p.first} ${p.last} knows ${p.expertise} best.`]);
    },
  },
];

/** Attributes whose key carries a sub-key, so one subject can state several (one per library, area...). */
function attrKey(a: Attr, s: Subject, rng: Rng): { key: string; sub?: string } {
  if (a.key === 'pin') {
    const libs = LIBS[s.lang!];
    const [lib] = libs[Math.floor(rng() * libs.length)]!;
    return { key: `${s.id}|pin|${lib}`, sub: lib };
  }
  if (a.key === 'web-area' || a.key === 'mobile-module') {
    const area = s.areas![Math.floor(rng() * s.areas!.length)]!;
    return { key: `${s.id}|${a.key}|${area}`, sub: area };
  }
  return { key: `${s.id}|${a.key}` };
}

function entrypoint(s: Subject): string {
  switch (s.lang) {
    case 'Go': return pathIn(s, `cmd/${s.name}/main.go`);
    case 'TypeScript': return pathIn(s, 'src/main.ts');
    case 'Python': return pathIn(s, 'app/main.py');
    case 'Rust': return pathIn(s, 'src/main.rs');
    default: return pathIn(s, 'src/main/kotlin/Application.kt'.replace('kotlin', s.lang === 'Java' ? 'java' : 'kotlin').replace('.kt', s.lang === 'Java' ? '.java' : '.kt'));
  }
}
function runtimeFile(s: Subject): string {
  switch (s.lang) {
    case 'Go': return pathIn(s, 'go.mod');
    case 'TypeScript': return pathIn(s, '.nvmrc');
    case 'Python': return pathIn(s, 'pyproject.toml');
    case 'Rust': return pathIn(s, 'rust-toolchain.toml');
    default: return pathIn(s, 'build.gradle.kts');
  }
}
function baseImage(s: Subject): string {
  const v = s.runtime!.split(' ')[1]!;
  switch (s.lang) {
    case 'Go': return 'gcr.io/distroless/static';
    case 'TypeScript': return `node:${v}-slim`;
    case 'Python': return `python:${v}-slim`;
    case 'Rust': return 'gcr.io/distroless/cc';
    default: return `eclipse-temurin:${v}-jre`;
  }
}
const clusterOf = (region: string) => CLUSTERS.find((c) => c.region === region && c.env === 'prod')!.name;
const latencyOf = (w: World, s: Subject) => pv(w, s.id, 'p99', [35, 60, 90, 120, 180, 250, 400]);
function webFramework(w: World, s: Subject): string {
  if (s.name === 'careers-site' || s.name === 'status-page') return pv(w, s.id, 'fw', ['Astro 4', 'Astro 4']);
  return pv(w, s.id, 'fw', ['Next.js 14 (App Router)', 'Remix', 'Vite + React 18', 'Next.js 14 (App Router)', 'SvelteKit 2']);
}
function apiFor(w: World, s: Subject): Subject {
  const rest = (w.byKind.get('service') ?? []).filter((x) => x.apiStyle === 'REST' && x.role === 'api');
  return pv(w, s.id, 'api', rest);
}

// ---------------------------------------------------------------------------------------------
// Drawing facts.

/** How often each kind of subject is drawn: components dominate a real workspace. */
const KIND_WEIGHTS: readonly (readonly [Kind, number])[] = [
  ['service', 30], ['worker', 20], ['job', 10], ['web', 6], ['mobile', 6], ['dag', 6], ['dbt', 3], ['db', 3], ['redis', 1],
  ['search', 1], ['kafka', 0.5], ['topic', 3], ['bucket', 1], ['cluster', 1.5], ['team', 3], ['person', 5],
];

const ATTRS_BY_KIND = new Map<Kind, Attr[]>();
for (const a of ATTRS) for (const k of a.kinds) ATTRS_BY_KIND.set(k, [...(ATTRS_BY_KIND.get(k) ?? []), a]);

function weightedPick<T>(rng: Rng, xs: readonly T[], weight: (x: T) => number): T {
  const total = xs.reduce((n, x) => n + weight(x), 0);
  let r = rng() * total;
  for (const x of xs) if ((r -= weight(x)) < 0) return x;
  return xs[xs.length - 1]!;
}

/** Agents sometimes add where a fact came from; it names people and tickets, never a value. */
function withProvenance(text: string, s: Subject, c: Ctx): string {
  if (!s.owner || c.rng() >= 0.1) return text;
  const end = /[.!?`)]$/.test(text) ? (text.endsWith('.') ? '' : '.') : '.';
  const note = c.one([
    () => `Confirmed with ${s.owner!.first} in ${s.team.channel}.`,
    () => `Context is in ${c.claim((n) => `${s.team.jira}-${n}`, 100, 3999)}.`,
    () => 'Noting it here because it cost me an hour to find.',
    () => `${s.owner!.first} mentioned this in the ${s.team.name} weekly.`,
    () => 'Double-checked against the code.',
  ])();
  return `${text}${end} ${note}`;
}

/**
 * `count` realistic, mutually consistent facts about one imaginary company's codebase,
 * deterministic for a seed; the first n facts of a longer run equal a run of n.
 */
export function generateFiller(count: number, seed = 1): FillerFact[] {
  const w = buildWorld(seed);
  const rng = mulberry32(seed ^ 0x9e3779b9);
  const used = new Set<string>();
  const texts = new Set<string>();
  const ids = new Set<string>();
  const ctx: Ctx = {
    w, rng,
    one: (xs) => xs[Math.floor(rng() * xs.length)]!,
    chance: (p) => rng() < p,
    claim: (make, lo, hi) => {
      for (;;) {
        const id = make(lo + Math.floor(rng() * (hi - lo)));
        if (!ids.has(id)) {
          ids.add(id);
          return id;
        }
      }
    },
  };
  const out: FillerFact[] = [];
  const maxAttempts = count * 50 + 1000;
  for (let attempt = 0; out.length < count; attempt++) {
    if (attempt > maxAttempts) throw new Error(`generateFiller: only ${out.length} distinct facts fit seed ${seed}`);
    const kind = weightedPick(rng, KIND_WEIGHTS, ([, weight]) => weight)[0];
    const subjects = w.byKind.get(kind);
    if (!subjects?.length) continue;
    // A skewed pick: a few components collect many facts, as core services do in a real workspace.
    const subject = subjects[Math.floor(subjects.length * Math.pow(rng(), 1.4))]!;
    const attr = weightedPick(rng, ATTRS_BY_KIND.get(kind)!, (a) => a.weight);
    if (attr.when && !attr.when(subject, w)) continue;
    const { key, sub } = attrKey(attr, subject, rng);
    if (used.has(key)) continue;
    ctx.sub = sub;
    const content = withProvenance(attr.render(subject, ctx), subject, ctx);
    if (texts.has(content)) continue;
    used.add(key);
    texts.add(content);
    const scope = attr.scope && rng() < 0.35 ? attr.scope(subject) : rng() < 0.2 && subject.domain ? subject.domain.key : subject.scope;
    const agent = weightedPick(rng, AGENTS, ([, weight]) => weight)[0];
    // Older facts are more common: a workspace accumulates, and most of it was written long ago.
    const age = Math.max(1, Math.round(6000 * Math.pow(rng(), 0.6)));
    out.push({ content, scope, agent_id: agent, age_hours: age });
  }
  return out;
}

