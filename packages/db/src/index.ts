export * from './client.ts';
export * from './migrate.ts';
export * from './schema.ts';
export * from './system.ts';
export * from './tenant.ts';
export * as schema from './schema.ts';
export * from './facts.ts';
export * from './invites.ts';
export * from './rate-limits.ts';
