#!/usr/bin/env bash
set -eo pipefail
source "$(dirname "$0")/../../benchmark_lib.sh"
HICACHE_ARGS=()
if require_agentic_kv_offload_backend hicache; then
    HICACHE_SIZE=$(( TOTAL_CPU_DRAM_GB / TP ))
    MAX_HICACHE_SIZE=200
    if awk -v s="$HICACHE_SIZE" -v cap="$MAX_HICACHE_SIZE" 'BEGIN { exit !(s > cap) }'; then
        HICACHE_SIZE=$MAX_HICACHE_SIZE
    fi
    HICACHE_ARGS=(--enable-hierarchical-cache --hicache-size "$HICACHE_SIZE")
fi
export SGLANG_ENABLE_SPEC_V2=1
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" "${HICACHE_ARGS[@]}" &
