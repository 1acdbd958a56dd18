export * from './client.ts';
export { EVIDENCE_TRIGGERS, MIN_NEIGHBOUR_SIMILARITY } from './evidence.ts';
export * from './forgetting.ts';
export * from './pass.ts';
export * from './prompt.ts';
export * from './story.ts';
