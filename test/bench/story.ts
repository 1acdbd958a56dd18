/**
 * The benchmarks' synthetic but varied codebase story (ten services, the same settings restated with
 * different values) and the questions agents ask about it. No imports: client threads load it alone.
 */
const SUBJECTS = ['auth', 'payments', 'search', 'billing', 'orders', 'inventory', 'notifications', 'gateway', 'users', 'analytics'];
const AREAS = ['api', 'worker', 'db', 'cache', 'queue', 'config', 'deploy', 'tests'];
const TEMPLATES = [
  (s: string, n: number) => `The ${s} service rate limit is ${100 + (n % 900)} req/s per IP`,
  (s: string, n: number) => `${s} requests time out after ${1 + (n % 60)} seconds`,
  (s: string, n: number) => `The ${s} worker pool size is ${2 + (n % 30)} threads`,
  (s: string, n: number) => `${s} uses Redis for caching with a TTL of ${60 + (n % 3600)} seconds`,
  (s: string, n: number) => `Max ${s} database connections is ${10 + (n % 190)} connections`,
  (s: string, n: number) => `The ${s} queue retries failed jobs ${1 + (n % 9)} times with exponential backoff`,
  (s: string, n: number) => `${s} stores uploads up to ${1 + (n % 500)} MB in S3`,
  (s: string, n: number) => `The ${s} API returns paginated JSON with page size ${10 + (n % 90)}`,
  (s: string, n: number) => `Feature flag ${s.toUpperCase()}_V${n % 7}_ENABLED controls the new ${s} flow`,
  (s: string, n: number) => `The ${s} service is deployed to us-east-1 with ${1 + (n % 12)} replicas`,
];
const scopeOf = (n: number) => `${SUBJECTS[n % SUBJECTS.length]}/${AREAS[Math.floor(n / SUBJECTS.length) % AREAS.length]}`;
/** Questions about the story above, as agents would ask them. */
export const QUERY_TOPICS = [
  'What is the auth service rate limit?',
  'how long until payments requests time out',
  'search worker pool size',
  'which cache does billing use and what is the ttl',
  'orders database connection limit',
  'inventory queue retry policy',
  'notification upload size limit',
  'gateway api pagination',
  'users feature flags for the new flow',
  'where is analytics deployed and how many replicas',
];
/** A distinct fact per n (the serial keeps contents unique within a scope). */
export function factText(n: number): { content: string; scope: string } {
  const subject = SUBJECTS[n % SUBJECTS.length]!;
  const template = TEMPLATES[Math.floor(n / 7) % TEMPLATES.length]!;
  return { content: `${template(subject, n)} (note ${n})`, scope: scopeOf(n) };
}

// Facts that state no value: most of what agents say about a design, and all of them share one
// entity signature (the case the corroboration guard has to stay cheap for).
const PROSE = [
  ['The billing worker', 'The search service', 'The gateway', 'The inventory service', 'The mobile client', 'The ledger', 'The scheduler', 'The mailer'],
  ['retries', 'caches', 'validates', 'batches', 'logs', 'owns', 'streams', 'signs', 'compresses', 'audits'],
  ['webhooks', 'query results', 'auth tokens', 'stock reservations', 'push notifications', 'ledger entries', 'cron jobs', 'outgoing mail', 'session cookies', 'export files', 'image uploads', 'feature flags'],
  ['before production', 'through the outbox', 'in memory', 'behind the load balancer', 'on every deploy', 'with exponential backoff', 'through a sidecar', 'after review'],
  ['for reporting', 'for the checkout flow', 'for search ranking', 'for the admin console', 'for partner integrations', 'for the nightly export', 'for fraud review', 'for the support team', 'for onboarding', 'for the public API'],
];

/** The n-th fact with no value (a different sentence for each n below 76,800). */
export function proseText(n: number): string {
  let rest = n;
  return PROSE.map((words) => {
    const word = words[rest % words.length]!;
    rest = Math.floor(rest / words.length);
    return word;
  }).join(' ');
}
