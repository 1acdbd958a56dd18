/**
 * Builds the conflict queue MCP App (apps/conflict-app → apps/conflict-app/dist/conflict-app.html):
 * one self-contained HTML file, script and styles inline, no remote assets, with a
 * Content-Security-Policy that allows exactly that inline script and style (by hash) and nothing
 * else. The MCP server serves it as the `ui://engram/conflicts` resource.
 *
 *   node infra/conflict-app-build.ts ensure   build only when missing or older than a source file
 *   node infra/conflict-app-build.ts build    build now
 *   node infra/conflict-app-build.ts size     how big the file is (raw, gzip, brotli)
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { staleSince } from './build-freshness.ts';
import type { PluginBuild } from 'esbuild';

const repo = fileURLToPath(new URL('..', import.meta.url));
export const CONFLICT_APP_ROOT = path.join(repo, 'apps/conflict-app');
/** The built App: the file the server reads at startup. */
export const CONFLICT_APP_FILE = path.join(CONFLICT_APP_ROOT, 'dist/conflict-app.html');
const SOURCES = ['package.json', 'src'].map((p) => path.join(CONFLICT_APP_ROOT, p));

/** Why the build is out of date, or null when it matches the sources. */
export function conflictAppStaleReason(): string | null {
  return staleSince(CONFLICT_APP_FILE, [...SOURCES, fileURLToPath(import.meta.url)]);
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * zod re-exports every locale's error messages (`z.locales`), over a third of the bundle; the App
 * only ever shows English messages (zod's default), so the locale index is just English here.
 */
const englishZodMessagesOnly = {
  name: 'english-zod-messages-only',
  setup(build: PluginBuild) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}zod${path.sep}`) ? { path: 'zod-locales', namespace: 'english-zod-messages-only' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'english-zod-messages-only' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: CONFLICT_APP_ROOT,
      loader: 'js',
    }));
  },
};

/** Bundles, minifies and inlines the App; returns the HTML it wrote. */
export async function buildConflictApp(): Promise<string> {
  const { build } = await import('esbuild');
  const bundle = await build({
    entryPoints: [path.join(CONFLICT_APP_ROOT, 'src/main.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    write: false,
    logLevel: 'warning',
    plugins: [englishZodMessagesOnly],
  });
  // `</script` may only appear inside string, template or regex literals, where `<\/` means the same.
  const js = bundle.outputFiles[0]!.text.replaceAll('</script', '<\\/script').trim();
  const css = fs.readFileSync(path.join(CONFLICT_APP_ROOT, 'src/styles.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\s*\n\s*/g, '\n').trim();
  // Nothing remote: no network (connect-src), frames, fonts or images beyond data: URIs; only
  // this exact script and stylesheet run. The host's own CSP for the frame comes on top.
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(js)}`,
    `style-src ${sha256(css)}`,
    'img-src data:',
    'font-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const template = fs.readFileSync(path.join(CONFLICT_APP_ROOT, 'src/index.html'), 'utf8');
  // Replacer functions: `$` in the bundle must not be read as a replacement pattern.
  const html = template
    .replace('%CSP%', () => csp)
    .replace('%CSS%', () => css)
    .replace('%JS%', () => js);
  fs.mkdirSync(path.dirname(CONFLICT_APP_FILE), { recursive: true });
  fs.writeFileSync(CONFLICT_APP_FILE, html);
  return html;
}

/** The built file's size: raw, and as a host would fetch it compressed. */
export function conflictAppSize(): { raw: number; gzip: number; brotli: number } {
  const source = fs.readFileSync(CONFLICT_APP_FILE);
  return { raw: source.length, gzip: zlib.gzipSync(source, { level: 9 }).length, brotli: zlib.brotliCompressSync(source).length };
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

async function main(command: string | undefined): Promise<void> {
  const say = (line: string) => process.stderr.write(`[conflict-app] ${line}\n`);
  switch (command) {
    case 'ensure': {
      const reason = conflictAppStaleReason();
      if (!reason) return;
      try {
        await import('esbuild');
      } catch {
        say(`${reason}, and the build tools are not installed (npm ci without --omit=dev installs them); the server will serve a page that says how to build it`);
        return;
      }
      say(`${reason}: building apps/conflict-app…`);
      await buildConflictApp();
      say(`built ${path.relative(repo, CONFLICT_APP_FILE)}`);
      return;
    }
    case 'build':
      await buildConflictApp();
      return;
    case 'size': {
      const size = conflictAppSize();
      process.stdout.write(`${path.relative(repo, CONFLICT_APP_FILE)}  ${kb(size.raw)} raw, ${kb(size.gzip)} gzip, ${kb(size.brotli)} brotli\n`);
      return;
    }
    default:
      say('usage: node infra/conflict-app-build.ts ensure|build|size');
      process.exitCode = 2;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main(process.argv[2]);
}
