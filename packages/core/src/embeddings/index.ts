export * from './embedder.ts';
export * from './local.ts';
export * from './openai.ts';
export * from './factory.ts';
