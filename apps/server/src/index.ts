export { buildApp, type BuildAppOptions } from './app.ts';
export type { AppContext } from './context.ts';
export { createLogger, loggerOptions, REDACT_PATHS } from './logger.ts';
export { localOperatorToken } from './local-state.ts';
export { startServer, type RunningServer } from './server.ts';
