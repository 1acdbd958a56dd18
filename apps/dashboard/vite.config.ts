import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/**
 * Writes `.br` and `.gz` next to every text asset of the build, which the server sends as they are
 * (@fastify/static `preCompressed`): small transfers with no compression work per request.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'engram-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async writeBundle(_options, bundle) {
      const files = [...Object.keys(bundle), 'favicon.svg'].filter((f) => /\.(?:js|css|html|svg|json)$/.test(f));
      await Promise.all(
        files.map(async (file) => {
          const full = path.join(outDir, file);
          const source = await fs.readFile(full).catch(() => null);
          if (!source || source.length < 1024) return;
          const [gz, br] = await Promise.all([
            gzip(source, { level: 9 }),
            brotli(source, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: source.length } }),
          ]);
          await Promise.all([fs.writeFile(`${full}.gz`, gz), fs.writeFile(`${full}.br`, br)]);
        }),
      );
    },
  };
}

/**
 * The dashboard builds to static files in `dist/`, which apps/server serves at `/` (the API is
 * same-origin, so there is no proxy or CORS to configure in production). The chart library is
 * imported only by the timeline view, which becomes its own chunk: the first load stays small.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Every browser the dashboard supports has native modulepreload.
    modulePreload: { polyfill: false },
    // The timeline chunk (Apache ECharts, loaded on demand) is ~570 kB before compression.
    chunkSizeWarningLimit: 700,
  },
  server: {
    // `npm run dev -w apps/dashboard`: hot reload against a running `npm start` on :8080.
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
});
