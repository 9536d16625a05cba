#!/usr/bin/env bash
# Measure evolve-action against the peers kit's fake OpenAI server, on the kit's own workload
# file (the AgentV EVAL.yaml written by the kit's agentv/gen_eval.py: one regex and one judge
# statement per case). Prints one JSON line (medians) on stdout, like the kit's run_*.sh.
#
# Env knobs (defaults), as in the kit's run_agentv.sh:
#   PEERS_KIT          the kit (../shared/peers)        EVOLVE_BIN  (.venv/bin/evolve-action)
#   PEERS_SCRATCH      scratch dir for the eval file, results and logs ("${TMPDIR:-/tmp}/peers-scratch")
#   PEERS_N            test cases (200)                 PEERS_CONCURRENCY  --max-concurrency (8)
#   PEERS_REPEAT       measured runs (3)                FAKE_LATENCY_S     server latency (0.2)
#   PEERS_JUDGE_ITEMS  judge statements per case (1; 5 for the batched-judging row)
#   PEERS_COLD=1       instead: time `evolve-action --version` and an N=1 run
#   PEERS_EXTRA_ARGS   extra CLI arguments for the measured runs (word-split)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
KIT="${PEERS_KIT:-$REPO/../shared/peers}"
EV="${EVOLVE_BIN:-$REPO/.venv/bin/evolve-action}"
SCRATCH="${PEERS_SCRATCH:-${TMPDIR:-/tmp}/peers-scratch}"
N="${PEERS_N:-200}"
C="${PEERS_CONCURRENCY:-8}"
REPEAT="${PEERS_REPEAT:-3}"
ITEMS="${PEERS_JUDGE_ITEMS:-1}"
export FAKE_LATENCY_S="${FAKE_LATENCY_S:-0.2}"
export OPENAI_API_KEY="${OPENAI_API_KEY:-sk-fake}" FAKE_MODEL="${FAKE_MODEL:-fake-model}"
unset ANTHROPIC_API_KEY ANTHROPIC_BASE_URL
mkdir -p "$SCRATCH/logs"
LOGS="$SCRATCH/logs"
WORK="$SCRATCH/evolve-work"
rm -rf "$WORK"
mkdir -p "$WORK/bench" "$WORK/bench1"
cd "$WORK"

gen() {  # gen DIR N: the kit's file, plus (ITEMS > 1) extra judge statements per case
  python3 "$KIT/agentv/gen_eval.py" "$1/bench.eval.yaml" "$2"
  if [ "$ITEMS" -gt 1 ]; then
    python3 "$HERE/more_judge_items.py" "$1/bench.eval.yaml" "$ITEMS"
  fi
}
MODEL="openai/$FAKE_MODEL"
run_cmd() {  # run_cmd ROOT CONCURRENCY OUT
  echo "$EV" run --base none --root "$1" --models "$MODEL" --judge-model "$MODEL" --runs 1 \
    --max-concurrency "$2" --comment off --results-dir "$3"
}

if [ "${PEERS_COLD:-0}" = 1 ]; then
  gen "$WORK/bench1" 1
  V=$(python3 "$KIT/measure.py" --no-server --n 1 --repeat 5 --label ev-version \
      --logdir "$LOGS" -- "$EV" --version 2>/dev/null)
  E=$(python3 "$KIT/measure.py" --n 1 --concurrency 1 --repeat 3 --label ev-cold \
      --logdir "$LOGS" -- $(run_cmd "$WORK/bench1" 1 "$WORK/cold-{i}") 2>/dev/null)
  rm -rf "$WORK"/cold-*
  python3 -c '
import json, sys
v, e = json.loads(sys.argv[3]), json.loads(sys.argv[4])
print(json.dumps({"runner": "evolve", "version": sys.argv[1], "python": sys.argv[2],
    "version_cmd_s": v["wall_s"], "version_cmd_rss_mb": v["rss_mb"],
    "eval_n1_fresh_s": e["wall_s"], "eval_n1_rss_mb": e["rss_mb"],
    "eval_n1_requests": e["requests"], "eval_n1_overhead_s": round(e["wall_s"] - e["ideal_s"], 3),
    "eval_n1_startup_s": e.get("startup_s"), "eval_n1_teardown_s": e.get("teardown_s"),
    "version_cmd_all": v["wall_s_all"], "eval_n1_all": e["wall_s_all"], "rc": e["rc"]}))
' "$("$EV" --version | awk '{print $2}')" "$("$(dirname "$EV")/python" --version | awk '{print $2}')" "$V" "$E"
  exit 0
fi

gen "$WORK/bench" "$N"
gen "$WORK/bench1" 1
# Unmeasured N=1 warm-up (page cache, .pyc files), as the kit does for its runners.
python3 "$KIT/measure.py" --n 1 --concurrency 1 --repeat 1 --label ev-warmup --logdir "$LOGS" -- \
  $(run_cmd "$WORK/bench1" 1 "$WORK/warmup") >/dev/null 2>&1 || true
python3 "$KIT/measure.py" --n "$N" --concurrency "$C" --repeat "$REPEAT" \
  --label "evolve-c$C-n$N${PEERS_LABEL_SUFFIX:-}" --logdir "$LOGS" -- \
  $(run_cmd "$WORK/bench" "{c}" "$WORK/out-{i}") ${PEERS_EXTRA_ARGS:-}
