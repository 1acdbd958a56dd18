export * from './claims.ts';
export * from './deterministic.ts';
export * from './questions.ts';
export * from './run.ts';
export * from './views.ts';
export * from './worker.ts';
export * from './narrative/index.ts';
export * from './resolve.ts';
