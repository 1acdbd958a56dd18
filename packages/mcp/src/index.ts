export * from './http.ts';
export * from './server.ts';
export * from './tool.ts';
export * from './portable-schema.ts';
export * from './prompts.ts';
export * from './resources.ts';
export * from './conflict-app.ts';
