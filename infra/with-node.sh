#!/bin/sh
# Runs a command with a Node.js new enough for Engram first on PATH (see node-env.sh).
# Used by the npm scripts so `npm start` and `npm test` work on a machine whose node is too old.
set -e
. "$(dirname "$0")/node-env.sh"
exec "$@"
