#!/usr/bin/env bash
# Generates the secrets of a secured cluster (scripts/gen-secrets.mjs): a cluster secret for
# CLUSTER_SECRET_FILE, a tokens file for AUTH_TOKENS_FILE and each principal's token beside it.
#
#   scripts/gen-secrets.sh [DIR]     # default ./data/secrets; files that exist are kept
#   TOKEN_PRINCIPALS="User:operator,User:billing" scripts/gen-secrets.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exec node scripts/gen-secrets.mjs "${1:-./data/secrets}"
