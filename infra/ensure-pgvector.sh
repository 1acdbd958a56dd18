#!/usr/bin/env bash
# Makes the pgvector extension available to the local PostgreSQL server.
#
# Debian bookworm does not package pgvector, so when `CREATE EXTENSION vector` fails we build it
# from Debian's own source package (trixie) against the server's major version. Idempotent: when
# the extension is already installed this only checks and exits.
#
# Environment: PGHOST (default 127.0.0.1), PGPORT (5432), PGUSER (postgres).
set -euo pipefail

export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
log() { printf '[ensure-pgvector] %s\n' "$*" >&2; }

probe_db="engram_pgvector_probe_$$"
vector_works() {
  psql -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $probe_db" >/dev/null
  local ok=0
  psql -q -v ON_ERROR_STOP=1 -d "$probe_db" -c 'CREATE EXTENSION vector' >/dev/null 2>&1 || ok=1
  psql -q -d postgres -c "DROP DATABASE IF EXISTS $probe_db" >/dev/null
  return $ok
}

if ! pg_isready -q; then
  # Debian's cluster tooling can start a stopped local server; anything else is the operator's call.
  if [ "$(id -u)" -eq 0 ] && command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    log "PostgreSQL is not accepting connections; starting the local cluster"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n 1)" main start || true
    for _ in $(seq 1 30); do pg_isready -q && break; sleep 1; done
  fi
  if ! pg_isready -q; then
    log "PostgreSQL is not accepting connections on $PGHOST:$PGPORT; start it first"
    exit 1
  fi
fi

if vector_works; then
  log "pgvector already available"
  exit 0
fi

major=$(psql -tAc 'SHOW server_version_num' -d postgres | cut -c1-2)
log "pgvector missing; building it from Debian's source package for PostgreSQL $major"

if [ "$(id -u)" -ne 0 ]; then
  log "building pgvector needs root (apt-get and make install); re-run this script as root"
  exit 1
fi

src_list=/etc/apt/sources.list.d/engram-trixie-src.sources
if [ ! -f "$src_list" ]; then
  cat >"$src_list" <<SOURCES
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "postgresql-server-dev-$major" dpkg-dev make gcc >/dev/null

build_dir=$(mktemp -d)
chmod 755 "$build_dir"  # apt-get source downloads as the _apt user
trap 'rm -rf "$build_dir"' EXIT
(
  cd "$build_dir"
  apt-get source -qq pgvector >/dev/null
  cd pgvector-*/
  pg_config="/usr/lib/postgresql/$major/bin/pg_config"
  make -s PG_CONFIG="$pg_config" >/dev/null
  make -s PG_CONFIG="$pg_config" install >/dev/null
)

if vector_works; then
  log "pgvector built and installed"
else
  log "pgvector was built but CREATE EXTENSION vector still fails"
  exit 1
fi
