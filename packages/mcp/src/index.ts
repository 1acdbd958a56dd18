export * from './http.ts';
export * from './server.ts';
export * from './tool.ts';
