export * from './protocol.ts';
export * from './clients.ts';
export * from './flow.ts';
export * from './addresses.ts';
