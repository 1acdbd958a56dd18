# Sourced (POSIX sh): puts a Node.js of at least $ENGRAM_NODE_MIN (default 22) first on PATH.
#
# When the machine's `node` is older, Node $ENGRAM_NODE_FETCH (default 24) is fetched once from the
# npm registry (`npm install --prefix <cache> node@24`) into $ENGRAM_NODE_CACHE and reused after.
engram_node_min="${ENGRAM_NODE_MIN:-22}"
engram_node_fetch="${ENGRAM_NODE_FETCH:-24}"
engram_node_cache="${ENGRAM_NODE_CACHE:-$HOME/.cache/engram-node}"

engram_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(engram_node_major)" -lt "$engram_node_min" ]; then
  if [ ! -x "$engram_node_cache/node_modules/.bin/node" ] ||
    [ "$("$engram_node_cache/node_modules/.bin/node" -p 'process.versions.node.split(".")[0]')" -lt "$engram_node_min" ]; then
    echo "[engram] node $(node -v 2>/dev/null || echo missing) is older than $engram_node_min; fetching node@$engram_node_fetch into $engram_node_cache" >&2
    mkdir -p "$engram_node_cache"
    # The `node` package installs its binary from a preinstall script, which npm runs only when allowed.
    printf '{ "name": "engram-node-cache", "private": true, "allowScripts": { "node": true } }\n' >"$engram_node_cache/package.json"
    npm install --prefix "$engram_node_cache" --no-audit --no-fund --loglevel=error "node@$engram_node_fetch" >&2 || {
      echo "[engram] could not fetch node@$engram_node_fetch from the npm registry" >&2
      return 1 2>/dev/null || exit 1
    }
  fi
  PATH="$engram_node_cache/node_modules/.bin:$PATH"
  export PATH
fi
