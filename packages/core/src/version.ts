import rootPackage from '../../../package.json' with { type: 'json' };

/** The Engram release, from the root package.json (reported by the MCP server and /healthz). */
export const ENGRAM_VERSION: string = rootPackage.version;
