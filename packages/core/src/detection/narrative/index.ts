export * from './ask-detective.ts';
export { EVIDENCE_TRIGGERS, gatherEvidence, MIN_NEIGHBOUR_SIMILARITY, type EvidenceFact, type EvidenceLimits } from './evidence.ts';
export * from './forgetting.ts';
export * from './pass.ts';
export * from './prompt.ts';
export * from './story.ts';
