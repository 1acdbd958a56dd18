/**
 * Vocabulary the entity extractor recognises: technologies (with the category of thing each one
 * is, so "Redis" and "Memcached" compete for the same slot), subsystem names that can be a fact's
 * subject, environments and change language.
 */

/** Technology name → [canonical name, category]. Aliases map to the same canonical name. */
const TECHNOLOGIES: Record<string, [string, string]> = {};

function tech(category: string, canonical: string, ...aliases: string[]) {
  for (const name of [canonical, ...aliases]) TECHNOLOGIES[name.toLowerCase()] = [canonical.toLowerCase(), category];
}

// Data stores and caches.
tech('cache', 'redis');
tech('cache', 'memcached');
tech('cache', 'valkey');
tech('cache', 'dragonfly', 'dragonflydb');
tech('cache', 'keydb');
tech('database', 'postgres', 'postgresql', 'psql', 'pg');
tech('database', 'mysql');
tech('database', 'mariadb');
tech('database', 'sqlite');
tech('database', 'mongodb', 'mongo');
tech('database', 'dynamodb');
tech('database', 'cassandra');
tech('database', 'cockroachdb');
tech('database', 'clickhouse');
tech('database', 'oracle');
tech('database', 'realm');
tech('database', 'core data');
tech('database', 'room');
tech('database', 'watermelondb');
tech('database', 'firestore');
tech('database', 'supabase postgres');
tech('data_warehouse', 'redshift', 'amazon redshift');
tech('data_warehouse', 'bigquery', 'google bigquery');
tech('data_warehouse', 'snowflake');
tech('data_warehouse', 'databricks');
tech('data_warehouse', 'synapse', 'azure synapse');
tech('database', 'mssql', 'sql server');
tech('search_engine', 'elasticsearch');
tech('search_engine', 'opensearch');
tech('search_engine', 'meilisearch');
tech('search_engine', 'typesense');
tech('search_engine', 'algolia');
tech('search_engine', 'solr');
tech('vector_store', 'pgvector');
tech('vector_store', 'pinecone');
tech('vector_store', 'qdrant');
tech('vector_store', 'weaviate');
// Messaging.
tech('message_broker', 'kafka');
tech('message_broker', 'rabbitmq');
tech('message_broker', 'nats');
tech('message_broker', 'sqs', 'amazon sqs', 'aws sqs');
tech('message_broker', 'sns');
tech('message_broker', 'pubsub', 'pub/sub');
tech('message_broker', 'kinesis');
tech('job_queue', 'sidekiq');
tech('job_queue', 'celery');
tech('job_queue', 'bullmq', 'bull');
// API styles and formats.
tech('api_style', 'rest', 'restful', 'rest-based');
tech('api_style', 'graphql');
tech('api_style', 'grpc');
tech('api_style', 'soap');
tech('api_style', 'trpc');
tech('api_style', 'json-rpc', 'jsonrpc');
tech('data_format', 'json');
tech('data_format', 'xml');
tech('data_format', 'yaml');
tech('data_format', 'protobuf', 'protocol buffers');
tech('data_format', 'msgpack', 'messagepack');
tech('data_format', 'avro');
tech('data_format', 'csv');
// Auth.
tech('auth_token', 'jwt', 'jwts', 'json web token', 'json web tokens');
tech('auth_token', 'paseto');
tech('auth_protocol', 'oauth', 'oauth2');
tech('auth_protocol', 'oidc', 'openid connect');
tech('auth_protocol', 'saml');
tech('auth_protocol', 'ldap');
// Runtimes and languages.
tech('runtime', 'node', 'node.js', 'nodejs');
tech('runtime', 'deno');
tech('runtime', 'bun');
tech('language', 'python');
tech('language', 'typescript');
tech('language', 'javascript');
tech('language', 'go', 'golang');
tech('language', 'rust');
tech('language', 'java');
tech('language', 'kotlin');
tech('language', 'ruby');
tech('language', 'php');
tech('language', 'elixir');
// Frameworks and tools.
tech('web_framework', 'express');
tech('web_framework', 'fastify');
tech('web_framework', 'koa');
tech('web_framework', 'nestjs');
tech('web_framework', 'django');
tech('web_framework', 'flask');
tech('web_framework', 'fastapi');
tech('web_framework', 'rails');
tech('web_framework', 'spring');
tech('web_framework', 'laravel');
tech('frontend_framework', 'react');
tech('frontend_framework', 'vue');
tech('frontend_framework', 'angular');
tech('frontend_framework', 'svelte');
tech('frontend_framework', 'next.js', 'nextjs');
tech('frontend_framework', 'nuxt');
tech('state_management', 'redux', 'redux toolkit');
tech('state_management', 'mobx');
tech('state_management', 'zustand');
tech('state_management', 'recoil');
tech('state_management', 'jotai');
tech('state_management', 'vuex');
tech('state_management', 'pinia');
tech('state_management', 'ngrx');
tech('state_management', 'xstate');
tech('mobile_framework', 'react native');
tech('mobile_framework', 'flutter');
tech('mobile_framework', 'swiftui');
tech('mobile_framework', 'jetpack compose');
tech('bundler', 'webpack');
tech('bundler', 'vite');
tech('bundler', 'esbuild');
tech('bundler', 'rollup');
tech('test_framework', 'jest');
tech('test_framework', 'vitest');
tech('test_framework', 'mocha');
tech('test_framework', 'pytest');
tech('test_framework', 'playwright');
tech('test_framework', 'cypress');
tech('orm', 'prisma');
tech('orm', 'drizzle');
tech('orm', 'typeorm');
tech('orm', 'sequelize');
tech('orm', 'sqlalchemy');
tech('docs_tool', 'docusaurus');
tech('docs_tool', 'mkdocs');
tech('docs_tool', 'sphinx');
tech('docs_tool', 'storybook');
// Infrastructure.
tech('container_runtime', 'docker');
tech('container_runtime', 'podman');
tech('orchestrator', 'kubernetes', 'k8s', 'eks', 'gke', 'aks');
tech('orchestrator', 'nomad');
tech('orchestrator', 'ecs');
tech('iac', 'terraform');
tech('iac', 'pulumi');
tech('iac', 'cloudformation');
tech('iac', 'cdk', 'aws cdk');
tech('iac', 'opentofu');
tech('deploy_tool', 'ansible');
tech('deploy_tool', 'argo cd', 'argocd');
tech('deploy_tool', 'flux', 'fluxcd');
tech('deploy_tool', 'spinnaker');
tech('deploy_tool', 'capistrano');
tech('deploy_tool', 'chef');
tech('deploy_tool', 'puppet');
tech('deploy_tool', 'octopus deploy');
tech('deploy_tool', 'shell scripts', 'bash scripts', 'shell script');
tech('cloud', 'aws');
tech('cloud', 'gcp', 'google cloud');
tech('cloud', 'azure');
tech('hosting', 'fly.io', 'fly');
tech('hosting', 'heroku');
tech('hosting', 'vercel');
tech('hosting', 'netlify');
tech('hosting', 'render');
tech('cdn', 'cloudflare');
tech('cdn', 'cloudfront', 'amazon cloudfront');
tech('cdn', 'fastly');
tech('cdn', 'akamai');
tech('cdn', 'bunny', 'bunnycdn', 'bunny.net');
tech('compute', 'lambda', 'aws lambda');
tech('compute', 'fargate', 'ecs fargate');
tech('compute', 'cloud run', 'google cloud run');
tech('compute', 'cloud functions', 'google cloud functions');
tech('compute', 'azure functions');
tech('compute', 'ec2');
tech('compute', 'app engine');
tech('proxy', 'nginx');
tech('proxy', 'envoy');
tech('proxy', 'haproxy');
tech('proxy', 'traefik');
tech('object_storage', 's3');
tech('object_storage', 'gcs');
tech('object_storage', 'r2');
tech('object_storage', 'minio');
tech('object_storage', 'azure blob storage', 'azure blob');
tech('object_storage', 'local disk', 'local filesystem', 'local file system');
tech('object_storage', 'nfs');
tech('object_storage', 'efs');
tech('ci', 'github actions');
tech('ci', 'circleci');
tech('ci', 'jenkins');
tech('ci', 'gitlab ci');
tech('ci', 'buildkite');
tech('ci', 'travis ci', 'travis');
tech('ci', 'drone ci');
tech('ci', 'azure pipelines');
// Observability and vendors.
tech('error_tracking', 'sentry');
tech('error_tracking', 'rollbar');
tech('error_tracking', 'bugsnag');
tech('monitoring', 'datadog');
tech('monitoring', 'prometheus');
tech('monitoring', 'grafana');
tech('monitoring', 'new relic', 'newrelic');
tech('monitoring', 'honeycomb');
tech('logging', 'elk');
tech('logging', 'loki');
tech('logging', 'splunk');
tech('logging', 'fluentd');
tech('logging', 'fluent bit', 'fluent-bit');
tech('logging', 'vector');
tech('logging', 'logstash');
tech('logging', 'papertrail');
tech('payments_provider', 'stripe');
tech('payments_provider', 'braintree');
tech('payments_provider', 'adyen');
tech('payments_provider', 'paypal');
tech('email_provider', 'sendgrid');
tech('email_provider', 'mailgun');
tech('email_provider', 'ses', 'amazon ses', 'aws ses');
tech('email_provider', 'postmark');
tech('feature_flags', 'launchdarkly');
tech('feature_flags', 'unleash');
// Tooling and well-known enumerated settings: each is one choice among its kind.
tech('package_manager', 'npm');
tech('package_manager', 'pnpm');
tech('package_manager', 'yarn');
tech('password_hash', 'bcrypt');
tech('password_hash', 'argon2', 'argon2id', 'argon2i');
tech('password_hash', 'scrypt');
tech('password_hash', 'pbkdf2');
tech('scheduler', 'node-cron');
tech('scheduler', 'kubernetes cronjobs', 'kubernetes cronjob', 'k8s cronjobs', 'cronjobs');
tech('scheduler', 'celery beat');
tech('scheduler', 'eventbridge scheduler', 'cloudwatch events');
tech('managed_database', 'rds', 'amazon rds', 'aws rds');
tech('managed_database', 'aurora', 'amazon aurora');
tech('managed_database', 'cloud sql');
tech('managed_database', 'supabase');
tech('managed_database', 'neon');
tech('isolation_level', 'read committed');
tech('isolation_level', 'repeatable read');
tech('isolation_level', 'serializable');
tech('isolation_level', 'read uncommitted');
tech('eviction_policy', 'allkeys-lru');
tech('eviction_policy', 'allkeys-lfu');
tech('eviction_policy', 'volatile-lru');
tech('eviction_policy', 'volatile-lfu');
tech('eviction_policy', 'volatile-ttl');
tech('eviction_policy', 'noeviction');
tech('signing_algorithm', 'rs256');
tech('signing_algorithm', 'rs512');
tech('signing_algorithm', 'es256');
tech('signing_algorithm', 'hs256');
tech('signing_algorithm', 'eddsa', 'ed25519');

/** Technology aliases, longest first (so "node.js" wins over "node"). */
export const TECHNOLOGY_NAMES: readonly string[] = Object.keys(TECHNOLOGIES).sort((a, b) => b.length - a.length);

/** Canonical name and category of a technology alias, if known. */
export function lookupTechnology(name: string): { name: string; category: string } | undefined {
  const found = TECHNOLOGIES[name.toLowerCase()];
  return found ? { name: found[0], category: found[1] } : undefined;
}

/**
 * Subsystem nouns that, leading a sentence, name what the fact is about ("Auth allows 5,000
 * req/s"). Compared after lower-casing.
 */
export const SUBSYSTEM_NOUNS = new Set(
  [
    'auth', 'authentication', 'authorization', 'payments', 'payment', 'billing', 'checkout', 'search', 'api', 'gateway',
    'frontend', 'backend', 'web', 'mobile', 'ios', 'android', 'worker', 'workers', 'queue', 'queues', 'cache', 'db',
    'database', 'infra', 'deploy', 'deployment', 'ci', 'docs', 'notifications', 'notification', 'email', 'emails',
    'users', 'user', 'accounts', 'account', 'orders', 'order', 'inventory', 'analytics', 'logging', 'logs', 'metrics',
    'monitoring', 'storage', 'uploads', 'scheduler', 'cron', 'webhooks', 'webhook', 'admin', 'dashboard', 'session',
    'sessions', 'sso', 'identity', 'reporting', 'ingest', 'ingestion', 'pipeline', 'etl', 'ml', 'recommendations',
    'indexer', 'cdn', 'dns', 'network', 'release', 'releases', 'testing', 'tests', 'build', 'config', 'settings',
  ],
);

/** Words after a subject that mark it as one ("the auth service", "the search indexer"). */
export const SUBJECT_HEADS = new Set([
  'service', 'services', 'api', 'apis', 'server', 'servers', 'cluster', 'worker', 'workers', 'app', 'application', 'client',
  'gateway', 'backend', 'frontend', 'module', 'component', 'microservice', 'daemon', 'job', 'jobs', 'pipeline',
  'indexer', 'proxy', 'layer', 'system', 'deployment', 'deployments', 'endpoint', 'endpoints', 'bucket', 'cronjob',
  'sidecar', 'container', 'lambda', 'function', 'consumer', 'consumers', 'database', 'db', 'pod', 'pods', 'queue',
  'queues', 'topic', 'runner', 'runners',
]);

/** Heads that name a subject by themselves ("the public API", "Production API"). */
export const STANDALONE_SUBJECTS = new Set(['api', 'gateway', 'backend', 'frontend', 'worker', 'workers', 'proxy', 'indexer']);

/** Adjectives that sit before a subject head without being the subject ("the public API"). */
export const NON_SUBJECT_ADJECTIVES = new Set([
  'public', 'private', 'internal', 'external', 'main', 'new', 'old', 'legacy', 'primary', 'secondary', 'core', 'our',
  'the', 'this', 'that', 'a', 'an', 'its', 'their', 'same', 'current', 'whole', 'entire',
]);

/** Environment words → canonical qualifier. */
export const ENVIRONMENTS: Record<string, string> = {
  prod: 'prod',
  production: 'prod',
  staging: 'staging',
  stage: 'staging',
  preprod: 'staging',
  'pre-prod': 'staging',
  dev: 'dev',
  development: 'dev',
  test: 'test',
  testing: 'test',
  qa: 'qa',
  sandbox: 'sandbox',
  preview: 'preview',
  ci: 'ci',
};

/** Nouns that count things: "50 connections", "3 attempts". Singular form → canonical unit. */
export const COUNT_NOUNS: Record<string, string> = {
  connection: 'connection',
  thread: 'thread',
  worker: 'worker',
  process: 'process',
  attempt: 'attempt',
  receive: 'receive',
  retry: 'retry',
  replica: 'replica',
  instance: 'instance',
  node: 'node',
  shard: 'shard',
  partition: 'partition',
  pod: 'pod',
  core: 'core',
  cpu: 'cpu',
  vcpu: 'cpu',
  item: 'item',
  request: 'request',
  user: 'user',
  job: 'job',
  task: 'task',
  consumer: 'consumer',
  producer: 'producer',
  slot: 'slot',
  character: 'character',
  char: 'character',
  line: 'line',
  row: 'row',
  record: 'record',
  file: 'file',
  key: 'key',
  message: 'message',
  event: 'event',
  batch: 'batch',
  page: 'page',
  result: 'result',
  member: 'member',
  seat: 'seat',
  license: 'license',
  region: 'region',
  zone: 'zone',
};

/** Boolean state words. */
export const BOOLEAN_WORDS: Record<string, boolean> = {
  enabled: true,
  enable: true,
  on: true,
  true: true,
  active: true,
  activated: true,
  allowed: true,
  required: true,
  enforced: true,
  mandatory: true,
  disabled: false,
  disable: false,
  off: false,
  false: false,
  inactive: false,
  deactivated: false,
  forbidden: false,
  disallowed: false,
  optional: false,
};

const DISPLAY_NAMES: Record<string, string> = {
  rest: 'REST', graphql: 'GraphQL', grpc: 'gRPC', trpc: 'tRPC', 'json-rpc': 'JSON-RPC', oauth: 'OAuth', oidc: 'OIDC',
  postgres: 'Postgres', mysql: 'MySQL', mariadb: 'MariaDB', mongodb: 'MongoDB', dynamodb: 'DynamoDB', sqlite: 'SQLite',
  cockroachdb: 'CockroachDB', clickhouse: 'ClickHouse', mssql: 'SQL Server', elasticsearch: 'Elasticsearch',
  opensearch: 'OpenSearch', meilisearch: 'Meilisearch', pgvector: 'pgvector', rabbitmq: 'RabbitMQ', pubsub: 'Pub/Sub',
  bullmq: 'BullMQ', protobuf: 'Protobuf', msgpack: 'MessagePack', paseto: 'PASETO', node: 'Node.js', go: 'Go',
  bun: 'Bun', vue: 'Vue', koa: 'Koa', typescript: 'TypeScript', javascript: 'JavaScript', php: 'PHP', nestjs: 'NestJS',
  fastapi: 'FastAPI', 'next.js': 'Next.js', typeorm: 'TypeORM', sqlalchemy: 'SQLAlchemy', mkdocs: 'MkDocs',
  'github actions': 'GitHub Actions', circleci: 'CircleCI', 'gitlab ci': 'GitLab CI', 'travis ci': 'Travis CI',
  'drone ci': 'Drone CI', 'azure pipelines': 'Azure Pipelines', 'fly.io': 'Fly.io', cloudfront: 'CloudFront',
  bunny: 'Bunny CDN', 'cloud run': 'Cloud Run', 'cloud functions': 'Cloud Functions', 'azure functions': 'Azure Functions',
  'app engine': 'App Engine', minio: 'MinIO', 'azure blob storage': 'Azure Blob Storage', 'local disk': 'local disk',
  'new relic': 'New Relic', sendgrid: 'SendGrid', launchdarkly: 'LaunchDarkly', 'fluent bit': 'Fluent Bit',
  haproxy: 'HAProxy', nginx: 'nginx', k8s: 'Kubernetes', pg: 'Postgres', ec2: 'EC2',
};

/** How a technology's canonical name reads: "GraphQL", "SQS", "Redis". */
export function technologyDisplayName(name: string): string {
  const known = DISPLAY_NAMES[name];
  if (known) return known;
  if (name.length <= 3) return name.toUpperCase();
  return name.replace(/(^|\s)\w/g, (c) => c.toUpperCase());
}
