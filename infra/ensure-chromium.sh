#!/usr/bin/env bash
# Makes a Chromium available for the dashboard's browser tests (test/e2e/dashboard.test.ts drives
# /usr/bin/chromium through playwright-core, which downloads no browser of its own).
#
# Idempotent and quiet: when /usr/bin/chromium exists this only checks it starts. Otherwise it
# installs Debian's chromium package (needs root, as on CI).
set -euo pipefail

log() { printf '[ensure-chromium] %s\n' "$*" >&2; }
chromium=/usr/bin/chromium

if [ ! -x "$chromium" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    log "$chromium is missing and installing it needs root: run 'apt-get install chromium' as root"
    exit 1
  fi
  log "installing Debian's chromium package"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

if ! version=$("$chromium" --headless --no-sandbox --disable-gpu --version 2>/dev/null); then
  log "$chromium is installed but does not start"
  exit 1
fi
log "${version:-chromium} ready"
