#!/usr/bin/env bash
# Predictions for a Design2Code testset from a running server (step 2 of serve -> predict -> score).
#   eval/predict.sh TESTSET_DIR PRED_DIR MODEL [BASE_URL] [extra vcoder predict flags...]
# Resumable: rerun after an interruption and finished samples are skipped. Exit 0 all done, 3 some failed.
set -euo pipefail
TESTSET=${1:?usage: eval/predict.sh TESTSET_DIR PRED_DIR MODEL [BASE_URL] [flags...]}
PRED=${2:?missing PRED_DIR}
MODEL=${3:?missing MODEL}
BASE_URL=${4:-http://127.0.0.1:8000}
shift $(( $# < 4 ? $# : 4 ))
exec vcoder predict --testset "$TESTSET" --out "$PRED" --model "$MODEL" --base-url "$BASE_URL" "$@"
