#!/usr/bin/env bash
# Fixture: the shape of InferenceX benchmarks/benchmark_lib.sh.
export PORT="${PORT:-8888}"
GPU_METRICS_CSV="${GPU_METRICS_CSV:-gpu_metrics.csv}"
export GPU_METRICS_CSV

check_env_vars() {
    local missing=0
    for v in "$@"; do
        if [[ -z "${!v:-}" ]]; then echo "Error: $v is not set" >&2; missing=1; fi
    done
    [[ $missing -eq 0 ]] || exit 1
}

require_agentic_kv_offload_backend() {
    local expected_backend="$1"
    case "$KV_OFFLOADING" in
        none)
            if [[ -n "${KV_OFFLOAD_BACKEND:-}" ]]; then
                echo "Error: KV_OFFLOAD_BACKEND must be empty when KV_OFFLOADING=none" >&2
                exit 1
            fi
            return 1 ;;
        dram)
            if [[ "${KV_OFFLOAD_BACKEND:-}" != "$expected_backend" ]]; then
                echo "Error: expected KV_OFFLOAD_BACKEND=$expected_backend when KV_OFFLOADING=dram, got '${KV_OFFLOAD_BACKEND:-}'" >&2
                exit 1
            fi
            return 0 ;;
    esac
}

wait_for_server_ready() {
    while ! curl -sf "http://0.0.0.0:$PORT/health"; do sleep 5; done
}
