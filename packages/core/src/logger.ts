/** The logging the domain needs (pino-compatible), so packages stay free of a logger dependency. */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A logger that drops everything (tests, CLI tools). */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
