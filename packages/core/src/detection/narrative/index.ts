export * from './client.ts';
export * from './forgetting.ts';
export * from './pass.ts';
export * from './prompt.ts';
export * from './story.ts';
