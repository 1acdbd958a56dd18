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
tech('message_broker', 'sqs');
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
tech('orchestrator', 'kubernetes', 'k8s');
tech('orchestrator', 'nomad');
tech('orchestrator', 'ecs');
tech('iac', 'terraform');
tech('iac', 'pulumi');
tech('iac', 'cloudformation');
tech('cloud', 'aws');
tech('cloud', 'gcp', 'google cloud');
tech('cloud', 'azure');
tech('hosting', 'fly.io', 'fly');
tech('hosting', 'heroku');
tech('hosting', 'vercel');
tech('hosting', 'netlify');
tech('hosting', 'render');
tech('hosting', 'cloudflare');
tech('proxy', 'nginx');
tech('proxy', 'envoy');
tech('proxy', 'haproxy');
tech('proxy', 'traefik');
tech('object_storage', 's3');
tech('object_storage', 'gcs');
tech('object_storage', 'r2');
tech('ci', 'github actions');
tech('ci', 'circleci');
tech('ci', 'jenkins');
tech('ci', 'gitlab ci');
tech('ci', 'buildkite');
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
tech('payments_provider', 'stripe');
tech('payments_provider', 'braintree');
tech('payments_provider', 'adyen');
tech('payments_provider', 'paypal');
tech('email_provider', 'sendgrid');
tech('email_provider', 'mailgun');
tech('email_provider', 'ses');
tech('email_provider', 'postmark');
tech('feature_flags', 'launchdarkly');
tech('feature_flags', 'unleash');

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
  'service', 'services', 'api', 'server', 'servers', 'cluster', 'worker', 'workers', 'app', 'application', 'client',
  'gateway', 'backend', 'frontend', 'module', 'component', 'microservice', 'daemon', 'job', 'jobs', 'pipeline',
  'indexer', 'proxy', 'layer', 'system',
]);

/** Adjectives that sit before a subject head without being the subject ("the public API"). */
export const NON_SUBJECT_ADJECTIVES = new Set([
  'public', 'private', 'internal', 'external', 'main', 'new', 'old', 'legacy', 'primary', 'secondary', 'core', 'our',
  'the', 'this', 'that', 'a', 'an', 'its', 'their', 'same', 'current', 'whole', 'entire',
]);

/** Environment words → canonical qualifier. */
export const ENVIRONMENTS: Record<string, string> = {
  prod: 'prod',
  production: 'prod',
  live: 'prod',
  staging: 'staging',
  stage: 'staging',
  preprod: 'staging',
  'pre-prod': 'staging',
  dev: 'dev',
  development: 'dev',
  local: 'local',
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
