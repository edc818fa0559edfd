#!/usr/bin/env bash
# Fixture in the shape of InferenceX benchmarks/benchmark_lib.sh.
check_env_vars() {
    for v in "$@"; do
        if [ -z "${!v}" ]; then echo "missing $v" >&2; exit 1; fi
    done
}

# A helper the scripts use to build flags.
sglang_common_flags() {
    echo "--enable-metrics --log-level warning"
}

wait_for_server_ready() {
    until [ -f "/tmp/server-ready" ]; do sleep 5; done
}
