#!/usr/bin/env bash
# Starts a Cohort cluster on this machine without Docker: Redis (if none answers at REDIS_URL's host and
# port) plus N node processes in cluster mode on loopback ports BASE_PORT, BASE_PORT+1, ...
#
#   scripts/start-cluster.sh [N]          # default N=3; Ctrl-C (or SIGTERM) stops every node it started
#   scripts/start-cluster.sh --auth [N]   # the same with authentication on: static tokens and a cluster
#                                         # secret from scripts/gen-secrets.sh in CLUSTER_DIR/secrets,
#                                         # User:operator a super user (its token: secrets/operator.token)
#   scripts/start-cluster.sh restart ID [--kill]
#                                         # from another terminal: restarts node ID of the running cluster
#                                         # (SIGTERM, a clean stop; --kill: SIGKILL, a crash) with the same
#                                         # settings and data, and waits until it is live again
#
# Variables (docs/operations.md, "A cluster on one machine"): BASE_PORT (3000), REDIS_HOST (127.0.0.1),
# REDIS_PORT (6379), CLUSTER_ID (cohort), CLUSTER_DIR (./data/cluster: node-<id>/ data, node-<id>.log,
# node-<id>.pid), NODE_COMMAND (node dist/src/main.js, built first if missing), plus any variable of
# README.md's configuration table, which is passed on to every node.
set -euo pipefail
cd "$(dirname "$0")/.."

cluster_dir=${CLUSTER_DIR:-./data/cluster}
supervisor_pid_file="$cluster_dir/supervisor.pid"

# `restart ID [--kill]`: asks the running script (the supervisor, which holds every node's settings) to
# restart one node, and waits for its answer.
if [ "${1:-}" = "restart" ]; then
  id=${2:-}
  signal=TERM
  [ "${3:-}" = "--kill" ] && signal=KILL
  if ! [[ "$id" =~ ^[0-9]+$ ]]; then
    echo "usage: $0 restart ID [--kill]" >&2
    exit 2
  fi
  supervisor=$(cat "$supervisor_pid_file" 2>/dev/null || true)
  if [ -z "$supervisor" ] || ! kill -0 "$supervisor" 2>/dev/null; then
    echo "no cluster started by $0 is running with CLUSTER_DIR=$cluster_dir" >&2
    exit 1
  fi
  rm -f "$cluster_dir/restart.result"
  echo "$id $signal" >"$cluster_dir/restart.request"
  kill -USR1 "$supervisor"
  for _ in $(seq 1 600); do
    if [ -f "$cluster_dir/restart.result" ]; then
      read -r outcome message <"$cluster_dir/restart.result"
      echo "$message"
      [ "$outcome" = ok ] && exit 0 || exit 1
    fi
    sleep 0.1
  done
  echo "node $id: no answer from the cluster's script (pid $supervisor) within 60 s" >&2
  exit 1
fi

auth=false
if [ "${1:-}" = "--auth" ]; then
  auth=true
  shift
fi
nodes=${1:-3}
if ! [[ "$nodes" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [--auth] [number of nodes >= 1] | $0 restart ID [--kill]" >&2
  exit 2
fi
base_port=${BASE_PORT:-3000}
redis_host=${REDIS_HOST:-127.0.0.1}
redis_port=${REDIS_PORT:-6379}
cluster_id=${CLUSTER_ID:-cohort}
node_command=${NODE_COMMAND:-node dist/src/main.js}
mkdir -p "$cluster_dir"

if ! redis-cli -h "$redis_host" -p "$redis_port" ping >/dev/null 2>&1; then
  echo "starting redis-server on $redis_host:$redis_port"
  redis-server --daemonize yes --bind "$redis_host" --port "$redis_port" --appendonly yes --dir "$(cd "$cluster_dir" && pwd)"
  for _ in $(seq 1 50); do redis-cli -h "$redis_host" -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
fi

[ -n "${NODE_COMMAND:-}" ] || [ -f dist/src/main.js ] || npm run build

if [ "$auth" = true ]; then
  secrets="$(cd "$cluster_dir" && pwd)/secrets"
  scripts/gen-secrets.sh "$secrets"
  export AUTH_TOKENS_FILE="$secrets/tokens.json" CLUSTER_SECRET_FILE="$secrets/cluster.secret" SUPER_USERS="${SUPER_USERS:-User:operator}"
  echo "authentication on: tokens in $secrets (e.g. curl -H \"Authorization: Bearer \$(cat $secrets/operator.token)\" ...)"
fi

pids=()
stopping=false
stop_all() {
  trap - INT TERM EXIT USR1
  stopping=true
  if [ ${#pids[@]} -gt 0 ]; then
    echo "stopping nodes: ${pids[*]}"
    kill -TERM "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
  fi
  rm -f "$supervisor_pid_file" "$cluster_dir"/node-*.pid
}

start_node() {
  local id=$1 port=$((base_port + $1))
  mkdir -p "$cluster_dir/node-$id"
  # shellcheck disable=SC2086 # NODE_COMMAND is a command line
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
    $node_command >>"$cluster_dir/node-$id.log" 2>&1 &
  pids[id]=$!
  echo "${pids[id]}" >"$cluster_dir/node-$id.pid"
  echo "node $id: http://127.0.0.1:$port (pid ${pids[id]}, log $cluster_dir/node-$id.log)"
}

# Waits until node $1 answers /health/live; 1 if it exited first or took over 30 s.
await_live() {
  local id=$1 port=$((base_port + $1))
  for _ in $(seq 1 150); do
    if node -e "fetch('http://127.0.0.1:$port/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"; then
      return 0
    fi
    if ! kill -0 "${pids[id]}" 2>/dev/null; then
      echo "node $id exited; last lines of its log:" >&2
      tail -n 20 "$cluster_dir/node-$id.log" >&2
      return 1
    fi
    sleep 0.2
  done
  return 1
}

# SIGUSR1 from `restart ID`: stop that node as asked, start it again with the same settings, report.
restart_requested() {
  local id signal outcome message
  read -r id signal <"$cluster_dir/restart.request" || true
  rm -f "$cluster_dir/restart.request"
  if ! [[ "$id" =~ ^[0-9]+$ ]] || [ "$id" -ge "$nodes" ]; then
    echo "failed node '$id' is not one of 0..$((nodes - 1))" >"$cluster_dir/restart.result"
    return
  fi
  local old=${pids[id]}
  echo "node $id: restarting (SIG$signal to pid $old)"
  kill "-$signal" "$old" 2>/dev/null || true
  wait "$old" 2>/dev/null || true
  start_node "$id"
  if await_live "$id"; then
    outcome=ok message="node $id is live again (pid ${pids[id]}, was $old)"
  else
    outcome=failed message="node $id did not come back; see $cluster_dir/node-$id.log"
  fi
  echo "$message"
  echo "$outcome $message" >"$cluster_dir/restart.result.tmp"
  mv "$cluster_dir/restart.result.tmp" "$cluster_dir/restart.result"
}

trap stop_all INT TERM EXIT
trap restart_requested USR1
echo $$ >"$supervisor_pid_file"

for ((id = 0; id < nodes; id++)); do
  : >"$cluster_dir/node-$id.log" # a new cluster, new logs; a restart appends
  start_node "$id"
done
for ((id = 0; id < nodes; id++)); do
  await_live "$id" || exit 1
  echo "node $id is live"
done

echo "cluster '$cluster_id' with $nodes node(s) is up; Ctrl-C or SIGTERM stops it;" \
  "'$0 restart ID' restarts one node"
# Runs until every node has exited; a short sleep at a time, so that signals are handled at once.
while [ "$stopping" = false ]; do
  alive=false
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=true; done
  [ "$alive" = true ] || break
  sleep 1 &
  wait $! || true
done
