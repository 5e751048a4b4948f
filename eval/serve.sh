#!/usr/bin/env bash
# Serve a model behind an OpenAI-compatible API for `vcoder predict` (step 1 of serve -> predict -> score).
#   eval/serve.sh MODEL [PORT]
# Uses vLLM when it is installed (production, GPU), else `transformers serve` (CPU-friendly, slow; tests use it).
# Extra vLLM flags can be given in $VLLM_ARGS (e.g. "--max-model-len 8192 --limit-mm-per-prompt image=1").
set -euo pipefail
MODEL=${1:?usage: eval/serve.sh MODEL [PORT]}
PORT=${2:-8000}
if python3 -c "import vllm" 2>/dev/null; then
    exec vllm serve "$MODEL" --host 127.0.0.1 --port "$PORT" ${VLLM_ARGS:-}
fi
echo "vllm is not installed; serving with transformers serve (requests name the model as: $MODEL)" >&2
# its /v1/models fails unless the hub cache folder exists
export HF_HUB_CACHE=${HF_HUB_CACHE:-$HOME/.cache/huggingface/hub}
mkdir -p "$HF_HUB_CACHE"
exec transformers serve "$MODEL" --host 127.0.0.1 --port "$PORT" ${TRANSFORMERS_SERVE_ARGS:-}
