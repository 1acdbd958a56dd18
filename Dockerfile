# syntax=docker/dockerfile:1
# Engram service image: Node 24, production dependencies only, runs as the unprivileged `node` user.
# `engram start` applies pending migrations, then listens (Fly also runs `engram migrate` as its
# release command, so a failed migration stops a deploy before any machine is replaced).

# --- dependencies: resolved from the lockfile, without dev tools ------------------------------
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps/server/package.json apps/server/
COPY apps/dashboard/package.json apps/dashboard/
COPY apps/conflict-app/package.json apps/conflict-app/
COPY packages/config/package.json packages/config/
COPY packages/core/package.json packages/core/
COPY packages/db/package.json packages/db/
COPY packages/mcp/package.json packages/mcp/
# patches/ fixes known defects in dependencies (applied by patch-package at install).
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- dashboard and the conflict MCP App: built with the dev tools; only its static files ship -------
FROM node:24-bookworm-slim AS dashboard
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps/server/package.json apps/server/
COPY apps/dashboard/package.json apps/dashboard/
COPY apps/conflict-app/package.json apps/conflict-app/
COPY packages/config/package.json packages/config/
COPY packages/core/package.json packages/core/
COPY packages/db/package.json packages/db/
COPY packages/mcp/package.json packages/mcp/
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY infra/dashboard-build.ts infra/
COPY apps/dashboard apps/dashboard
RUN node infra/dashboard-build.ts build
COPY infra/conflict-app-build.ts infra/
COPY apps/conflict-app apps/conflict-app
RUN node infra/conflict-app-build.ts build

# --- runtime -----------------------------------------------------------------------------------
FROM node:24-bookworm-slim AS runtime
# The V8 heap is capped at half of the machine's (or the container's) memory: the rest is for the
# embedded database's WebAssembly memory, buffers and the runtime. V8 otherwise sizes the heap for
# the host, and a 512 MB machine runs out of memory before it collects. The young generation is
# capped too: V8 gave it 128 MB beside a 256 MB old space, most of an idle server's RSS (with 16 MB
# semi-spaces the 200-client bench peaked at 380 MiB instead of 445, at the same throughput). The
# flag is for the server's heap: the embedded database's thread is given a smaller young generation
# of its own (packages/db/src/embedded/thread.ts).
# jemalloc instead of glibc's malloc: V8 compiles the embedded database's WebAssembly on
# background threads, with up to 600 MB of short-lived compiler memory for one large function,
# and glibc's per-thread arenas kept about 80 MiB of it resident for good. Under the embedded
# concurrency bench the idle server took 400 MiB instead of 480, the 200-client peak 424 instead
# of 512, at the same throughput. Debian puts the library under the architecture's directory.
RUN apt-get update && apt-get install -y --no-install-recommends libjemalloc2 && rm -rf /var/lib/apt/lists/* \
    && ln -s "$(find /usr/lib -name libjemalloc.so.2 | head -n 1)" /usr/local/lib/libjemalloc.so.2 \
    && test -e /usr/local/lib/libjemalloc.so.2
ENV LD_PRELOAD=/usr/local/lib/libjemalloc.so.2 \
    NODE_ENV=production \
    NODE_OPTIONS="--max-old-space-size-percentage=50 --max-semi-space-size=16" \
    HOST=0.0.0.0 \
    PORT=8080 \
    ENGRAM_DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY drizzle ./drizzle
COPY packages ./packages
COPY apps ./apps
COPY --from=dashboard /app/apps/dashboard/dist ./apps/dashboard/dist
COPY --from=dashboard /app/apps/conflict-app/dist ./apps/conflict-app/dist
# /data holds the embedded database when DATABASE_URL is not set (mount a volume there).
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "apps/server/src/cli.ts", "start"]
