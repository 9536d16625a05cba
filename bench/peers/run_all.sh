#!/usr/bin/env bash
# One sweep of the peers kit with evolve-action as a third runner: each runner at concurrency
# 1, 8 and 16 (N=200, 3 runs, medians), then its cold start; one JSON line per measurement.
# The kit's run_all.sh only finds runners beside itself (../shared/peers/run_<name>.sh),
# so this is the same loop over the kit's scripts and ours (bench/peers/run_evolve.sh).
#   PEERS_RUNNERS  "promptfoo agentv evolve"     PEERS_CONCURRENCIES  "1 8 16"
# Other knobs (PEERS_SCRATCH, PEERS_N, PEERS_REPEAT, FAKE_LATENCY_S, ...) pass through.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The kit sits beside the repository, in ../shared/peers, wherever the clone is.
KIT="${PEERS_KIT:-$(cd "$HERE/../.." && pwd)/../shared/peers}"
for r in ${PEERS_RUNNERS:-promptfoo agentv evolve}; do
  script="$KIT/run_$r.sh"
  [ -f "$HERE/run_$r.sh" ] && script="$HERE/run_$r.sh"
  for c in ${PEERS_CONCURRENCIES:-1 8 16}; do
    PEERS_CONCURRENCY="$c" bash "$script"
  done
  PEERS_COLD=1 bash "$script"
done
