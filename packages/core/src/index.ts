export * from './auth.ts';
export * from './credentials.ts';
export * from './errors.ts';
export * from './status.ts';
export * from './workspaces.ts';
export * from './version.ts';
