#!/usr/bin/env bash
# Design2Code end to end: serve -> predict -> score -> report.
#   eval/run_design2code.sh MODEL TESTSET_DIR OUT_DIR [PORT]
# Starts a server for MODEL (eval/serve.sh) unless $BASE_URL points at a running one, writes predictions to
# OUT_DIR/predictions and the scores (results.jsonl, summary.json, report.html) to OUT_DIR/scores.
# Prompt: Design2Code's direct prompt by default; set PROMPT_ARGS="--prompt training --config configs/X.yaml" to
# ask exactly as the model was trained.
set -euo pipefail
MODEL=${1:?usage: eval/run_design2code.sh MODEL TESTSET_DIR OUT_DIR [PORT]}
TESTSET=${2:?missing TESTSET_DIR}
OUT=${3:?missing OUT_DIR}
PORT=${4:-8000}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"

SERVER_PID=
if [ -z "${BASE_URL:-}" ]; then
    BASE_URL=http://127.0.0.1:$PORT
    "$HERE/serve.sh" "$MODEL" "$PORT" >"$OUT/server.log" 2>&1 &
    SERVER_PID=$!
    trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT
    echo "waiting for the server on $BASE_URL (log: $OUT/server.log)" >&2
    for _ in $(seq 1 600); do
        curl -sf "$BASE_URL/health" >/dev/null 2>&1 && break
        kill -0 "$SERVER_PID" 2>/dev/null || { echo "the server exited; see $OUT/server.log" >&2; exit 2; }
        sleep 2
    done
fi

# step 2: predictions (exit 3 = some samples failed: they are scored 0, and a rerun retries them)
set +e
vcoder predict --testset "$TESTSET" --out "$OUT/predictions" --model "$MODEL" --base-url "$BASE_URL" \
    ${PROMPT_ARGS:-} ${PREDICT_ARGS:-}
status=$?
set -e
[ "$status" -eq 0 ] || [ "$status" -eq 3 ] || exit "$status"

# step 3: scoring and report (owned by the evaluation command; missing predictions count 0 there)
vcoder eval design2code --testset "$TESTSET" --predictions "$OUT/predictions" --out "$OUT/scores" ${EVAL_ARGS:-}
