/**
 * Builds the web dashboard (apps/dashboard → apps/dashboard/dist) and measures it.
 *
 *   node infra/dashboard-build.ts ensure   build only when dist is missing or older than a source file
 *   node infra/dashboard-build.ts build    build now
 *   node infra/dashboard-build.ts size     what a first visit downloads (raw, gzip, brotli)
 *
 * `npm start` runs `ensure`, so a fresh clone serves the dashboard with one command. Without the
 * build tools (an `npm ci --omit=dev` install) `ensure` says so and the server shows a page
 * explaining how to build it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { staleSince } from './build-freshness.ts';

const repo = fileURLToPath(new URL('..', import.meta.url));
export const DASHBOARD_ROOT = path.join(repo, 'apps/dashboard');
export const DASHBOARD_DIST = path.join(DASHBOARD_ROOT, 'dist');
const SOURCES = ['index.html', 'vite.config.ts', 'package.json', 'src', 'public'].map((p) => path.join(DASHBOARD_ROOT, p));

/** Why the build is out of date, or null when dist matches the sources. */
export function staleReason(): string | null {
  return staleSince(path.join(DASHBOARD_DIST, 'index.html'), SOURCES);
}

/** Runs the production build (Vite) in this process (a CLI run of this script). */
async function viteBuild(): Promise<void> {
  // A NODE_ENV left over in the shell would otherwise bundle React's development build.
  process.env.NODE_ENV = 'production';
  const { build } = await import('vite');
  await build({ configFile: path.join(DASHBOARD_ROOT, 'vite.config.ts'), mode: 'production', logLevel: 'warn' });
}

/**
 * Builds in a child process with NODE_ENV=production: callers such as test runners set NODE_ENV
 * to something else, which would bundle React's development build.
 */
export async function buildDashboard(): Promise<void> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'build'], {
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`the dashboard build failed (exit code ${code})`);
}

export interface FirstLoadSize {
  files: { file: string; raw: number; gzip: number; brotli: number }[];
  raw: number;
  gzip: number;
  brotli: number;
}

/** The JS and CSS that index.html loads before the first view renders (entry, preloads, styles). */
export function firstLoadSize(): FirstLoadSize {
  const html = fs.readFileSync(path.join(DASHBOARD_DIST, 'index.html'), 'utf8');
  const refs = [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  const files = [...new Set(refs)].map((ref) => {
    const source = fs.readFileSync(path.join(DASHBOARD_DIST, ref));
    return {
      file: ref,
      raw: source.length,
      gzip: zlib.gzipSync(source, { level: 9 }).length,
      brotli: zlib.brotliCompressSync(source).length,
    };
  });
  const sum = (key: 'raw' | 'gzip' | 'brotli') => files.reduce((n, f) => n + f[key], 0);
  return { files, raw: sum('raw'), gzip: sum('gzip'), brotli: sum('brotli') };
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

async function main(command: string | undefined): Promise<void> {
  const say = (line: string) => process.stderr.write(`[dashboard] ${line}\n`);
  switch (command) {
    case 'ensure': {
      const reason = staleReason();
      if (!reason) return;
      try {
        await import('vite');
      } catch {
        say(`${reason}, and the build tools are not installed (npm ci without --omit=dev installs them); the server will say how to build it`);
        return;
      }
      say(`${reason}: building apps/dashboard…`);
      await viteBuild();
      say('built apps/dashboard/dist');
      return;
    }
    case 'build':
      await viteBuild();
      return;
    case 'size': {
      const size = firstLoadSize();
      for (const f of size.files) process.stdout.write(`${f.file}  ${kb(f.raw)} raw, ${kb(f.gzip)} gzip, ${kb(f.brotli)} brotli\n`);
      process.stdout.write(`first load (JS + CSS): ${kb(size.raw)} raw, ${kb(size.gzip)} gzip, ${kb(size.brotli)} brotli\n`);
      return;
    }
    default:
      say('usage: node infra/dashboard-build.ts ensure|build|size');
      process.exitCode = 2;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main(process.argv[2]);
}
