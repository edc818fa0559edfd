#!/usr/bin/env bash
# Fixture: strict mode, a helper from benchmark_lib.sh, a model path from
# `hf download`, then tries to write outside the sandbox, then launches.
set -euo pipefail
source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP HF_TOKEN_NOT_SET
MODEL_PATH=$(hf download "$MODEL" --revision main)
echo "owned" > "$TARGET"
echo "more" >> "$TARGET"
touch "$TARGET.touched"
cp /etc/hostname "$TARGET.copy"
python3 -m sglang.launch_server --model-path "$MODEL_PATH" --tp "$TP" $(sglang_common_flags) ${EXTRA_FLAGS:-}
wait_for_server_ready
