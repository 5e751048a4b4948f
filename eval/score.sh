#!/usr/bin/env bash
# Design2Code step 3: score a predictions folder and write the report.
#   eval/score.sh TESTSET_DIR PRED_DIR OUT_DIR [extra `vcoder eval design2code` flags, e.g. --no-clip]
# Writes OUT_DIR/results.jsonl (resumable: rerun to finish an interrupted run), OUT_DIR/summary.json and
# OUT_DIR/report.html; prints the summary JSON. Missing or unrenderable predictions count 0 on every metric.
# CLIP needs OpenAI ViT-B-32 weights available locally (--clip-pretrained PATH); without them the clip column is
# null and overall averages the four block metrics (summary.json "overall_of" says which).
set -euo pipefail
TESTSET=${1:?usage: eval/score.sh TESTSET_DIR PRED_DIR OUT_DIR [flags]}
PRED=${2:?missing PRED_DIR}
OUT=${3:?missing OUT_DIR}
shift 3
vcoder eval design2code --testset "$TESTSET" --predictions "$PRED" --out "$OUT" --json "$@"
echo "report: $OUT/report.html" >&2
