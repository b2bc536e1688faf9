#!/usr/bin/env bash
# Starts a Cohort cluster on this machine without Docker: Redis (if none answers at REDIS_URL's host and
# port) plus N node processes in cluster mode on loopback ports BASE_PORT, BASE_PORT+1, ...
#
#   scripts/start-cluster.sh [N]          # default N=3; Ctrl-C (or SIGTERM) stops every node it started
#   scripts/start-cluster.sh --auth [N]   # the same with authentication on: static tokens and a cluster
#                                         # secret from scripts/gen-secrets.sh in CLUSTER_DIR/secrets,
#                                         # User:operator a super user (its token: secrets/operator.token)
#
# Environment: BASE_PORT (3000), REDIS_HOST (127.0.0.1), REDIS_PORT (6379), CLUSTER_ID (cohort),
# CLUSTER_DIR (./data/cluster: node-<id>/ data and node-<id>.log), plus any SPEC §1 variable, which is
# passed on to every node. Builds dist/ first if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

auth=false
if [ "${1:-}" = "--auth" ]; then
  auth=true
  shift
fi
nodes=${1:-3}
if ! [[ "$nodes" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [--auth] [number of nodes >= 1]" >&2
  exit 2
fi
base_port=${BASE_PORT:-3000}
redis_host=${REDIS_HOST:-127.0.0.1}
redis_port=${REDIS_PORT:-6379}
cluster_id=${CLUSTER_ID:-cohort}
cluster_dir=${CLUSTER_DIR:-./data/cluster}

if ! redis-cli -h "$redis_host" -p "$redis_port" ping >/dev/null 2>&1; then
  echo "starting redis-server on $redis_host:$redis_port"
  redis-server --daemonize yes --bind "$redis_host" --port "$redis_port" --appendonly yes --dir "$(mkdir -p "$cluster_dir" && cd "$cluster_dir" && pwd)"
  for _ in $(seq 1 50); do redis-cli -h "$redis_host" -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
fi

[ -f dist/src/main.js ] || npm run build

if [ "$auth" = true ]; then
  secrets="$(mkdir -p "$cluster_dir" && cd "$cluster_dir" && pwd)/secrets"
  scripts/gen-secrets.sh "$secrets"
  export AUTH_TOKENS_FILE="$secrets/tokens.json" CLUSTER_SECRET_FILE="$secrets/cluster.secret" SUPER_USERS="${SUPER_USERS:-User:operator}"
  echo "authentication on: tokens in $secrets (e.g. curl -H \"Authorization: Bearer \$(cat $secrets/operator.token)\" ...)"
fi

pids=()
stop_all() {
  trap - INT TERM EXIT
  if [ ${#pids[@]} -gt 0 ]; then
    echo "stopping nodes: ${pids[*]}"
    kill -TERM "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
  fi
}
trap stop_all INT TERM EXIT

for ((id = 0; id < nodes; id++)); do
  port=$((base_port + id))
  mkdir -p "$cluster_dir/node-$id"
  CLUSTER_MODE=redis \
  REDIS_URL="redis://$redis_host:$redis_port" \
  CLUSTER_ID="$cluster_id" \
  NODE_ID="$id" \
  HOST=127.0.0.1 \
  PORT="$port" \
  ADVERTISED_URL="http://127.0.0.1:$port" \
  DATA_DIR="$cluster_dir/node-$id" \
  OFFSETS_TOPIC_REPLICATION_FACTOR="${OFFSETS_TOPIC_REPLICATION_FACTOR:-$((nodes < 3 ? nodes : 3))}" \
  MIN_INSYNC_REPLICAS="${MIN_INSYNC_REPLICAS:-$((nodes < 2 ? 1 : 2))}" \
    node dist/src/main.js >"$cluster_dir/node-$id.log" 2>&1 &
  pids+=($!)
  echo "node $id: http://127.0.0.1:$port (pid $!, log $cluster_dir/node-$id.log)"
done

for ((id = 0; id < nodes; id++)); do
  port=$((base_port + id))
  for _ in $(seq 1 100); do
    if node -e "fetch('http://127.0.0.1:$port/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"; then
      echo "node $id is live"
      break
    fi
    if ! kill -0 "${pids[$id]}" 2>/dev/null; then
      echo "node $id exited; last lines of its log:" >&2
      tail -n 20 "$cluster_dir/node-$id.log" >&2
      exit 1
    fi
    sleep 0.2
  done
done

echo "cluster '$cluster_id' with $nodes node(s) is up; Ctrl-C or SIGTERM stops it"
wait
