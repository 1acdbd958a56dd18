/**
 * Runs the official MCP tools against Engram with a member token (docs/testing-with-clients.md).
 *
 *   node infra/mcp-tools.ts inspect [--url U] [--token T] [--web] [inspector options...]
 *   node infra/mcp-tools.ts conformance [--url U] [--token T] [--proxy-only] [suite options...]
 *
 * `npm run inspect` and `npm run conformance` run these. The server is `--url` (its MCP URL or its
 * origin), else ENGRAM_PUBLIC_URL, else http://127.0.0.1:$PORT; the token is `--token`, else the
 * owner token an embedded `npm start` recorded in ENGRAM_DATA_DIR.
 *
 * Before either tool runs, the token is tried: a refused token stops here with the server's
 * reason, instead of the Inspector falling back to an OAuth sign-in it cannot complete without a
 * terminal. The conformance suite cannot send a token, so a local proxy adds it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@engram/config';
import { localOwnerToken, localServerUrl } from '../apps/server/src/local-server.ts';
import { startBearerProxy } from './bearer-proxy.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const INSPECTOR_PACKAGE = path.join(REPO, 'node_modules/@modelcontextprotocol/inspector');
const CONFORMANCE = path.join(REPO, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
/** What `npm run conformance` runs without options: the newest revision's required scenarios, with its baseline. */
const DEFAULT_SUITE = ['--requirements', '2026-07-28', '--expected-failures', path.join(REPO, 'test/conformance/expected-failures-2026-07-28.yml')];

const USAGE = `Usage: npm run inspect -- [--url URL] [--token TOKEN] [--web] [inspector options]
       npm run conformance -- [--url URL] [--token TOKEN] [--proxy-only] [conformance server options]

  --url URL       Engram's MCP URL or origin (default: ENGRAM_PUBLIC_URL or http://127.0.0.1:$PORT)
  --token TOKEN   a member token (default: the owner token npm start recorded in ENGRAM_DATA_DIR)
  --web           inspect: open the Inspector's web UI instead of its CLI
  --proxy-only    conformance: only run the proxy that adds the token, and print its URL
The Inspector's --method defaults to tools/list; conformance options to ${DEFAULT_SUITE.slice(0, 2).join(' ')}.`;

/** The tool, this script's own options, and what is passed on to the tool. */
interface Invocation {
  tool: 'inspect' | 'conformance';
  url: string | undefined;
  token: string | undefined;
  web: boolean;
  proxyOnly: boolean;
  rest: string[];
}

/** Splits the command line: this script's options anywhere, everything else passed on in order. */
function parseInvocation(argv: string[]): Invocation {
  const [tool, ...args] = argv;
  if (tool !== 'inspect' && tool !== 'conformance') throw new UsageError(`Unknown tool "${tool ?? ''}".`);
  const invocation: Invocation = { tool, url: undefined, token: undefined, web: false, proxyOnly: false, rest: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = () => {
      const next = args[++i];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`${arg} needs a value.`);
      return next;
    };
    if (arg === '--url') invocation.url = value();
    else if (arg === '--token') invocation.token = value();
    else if (arg === '--web' && tool === 'inspect') invocation.web = true;
    else if (arg === '--proxy-only' && tool === 'conformance') invocation.proxyOnly = true;
    else if (arg === '--help' || arg === '-h') throw new UsageError('');
    else invocation.rest.push(arg);
  }
  return invocation;
}

class UsageError extends Error {}

/** The server's origin and MCP URL from `--url` (either form) or the configuration. */
function target(url: string | undefined): { origin: string; mcpUrl: string } {
  const base = localServerUrl(loadConfig(), url);
  const origin = base.replace(/\/mcp$/, '');
  return { origin, mcpUrl: `${origin}/mcp` };
}

/** Tries the token on the REST API; throws what to do when it is missing, refused or unreachable. */
async function checkToken(origin: string, token: string | undefined): Promise<string> {
  if (!token) {
    throw new Error(`No token: pass --token egm_… (a member token), or start Engram with npm start, which records its owner token in ENGRAM_DATA_DIR.`);
  }
  let response: Response;
  try {
    response = await fetch(`${origin}/api/v1/workspace`, { headers: { authorization: `Bearer ${token}` } });
  } catch (error) {
    throw new Error(`Nothing answers at ${origin} (${(error as Error).message}): start Engram (npm start) or pass --url.`, { cause: error });
  }
  if (response.ok) return token;
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  throw new Error(`${origin} refused the token (${response.status}: ${body.error?.message ?? 'no details'}). Pass a member token with --token.`);
}

function run(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: 'inherit', cwd: REPO });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function inspect(invocation: Invocation, mcpUrl: string, token: string): Promise<number> {
  const manifest = JSON.parse(fs.readFileSync(path.join(INSPECTOR_PACKAGE, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  const inspector = path.join(INSPECTOR_PACKAGE, manifest.bin['mcp-inspector']!);
  const header = `Authorization: Bearer ${token}`;
  if (invocation.web) return run([inspector, '--web', '--transport', 'http', '--server-url', mcpUrl, '--header', header, ...invocation.rest]);
  // --stored-auth-only: should the token stop working mid-run, fail rather than start an OAuth login.
  const rest = invocation.rest.includes('--method') ? invocation.rest : ['--method', 'tools/list', ...invocation.rest];
  return run([inspector, '--cli', mcpUrl, '--transport', 'http', '--header', header, '--stored-auth-only', ...rest]);
}

async function conformance(invocation: Invocation, origin: string, token: string): Promise<number> {
  const proxy = await startBearerProxy(origin, token);
  try {
    if (invocation.proxyOnly) {
      process.stdout.write(`Proxy adding the token: ${proxy.url}/mcp → ${origin}/mcp (Ctrl-C stops it)\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      return 0;
    }
    const rest = invocation.rest.length > 0 ? invocation.rest : DEFAULT_SUITE;
    return await run([CONFORMANCE, 'server', '--url', `${proxy.url}/mcp`, ...rest]);
  } finally {
    await proxy.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const invocation = parseInvocation(argv);
  const { origin, mcpUrl } = target(invocation.url);
  const token = await checkToken(origin, invocation.token ?? localOwnerToken(loadConfig().dataDir));
  return invocation.tool === 'inspect' ? inspect(invocation, mcpUrl, token) : conformance(invocation, origin, token);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      if (error instanceof UsageError) {
        process.stderr.write(`${error.message ? `${error.message}\n` : ''}${USAGE}\n`);
        process.exit(2);
      }
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
