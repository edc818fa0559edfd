#!/bin/bash
# Fixture: the shape of amd_utils/server.sh + env.sh + server_sglang.sh —
# the node's role from NODE_RANK, env detected in the container, the
# servers started under setsid.
export IBDEVICES=$(ibv_devinfo 2>/dev/null | grep "hca_id:" | awk '{print $2}' | paste -sd',')
export GLOO_SOCKET_IFNAME=$(ip route | grep '^default' | awk '{print $5}' | head -n 1)
export SGLANG_MORI_FLAG=1
if command -v nicctl &> /dev/null; then
    ND_PRIO=$(nicctl show qos 2>/dev/null | awk '/PFC no-drop priorities/ {print $NF; exit}')
    ND_DSCP=$(nicctl show qos 2>/dev/null | awk -v p="$ND_PRIO" '$1 == "DSCP" && $2 == ":" && $NF == p {print $3; exit}')
    export MORI_RDMA_TC=$(( 4 * ND_DSCP ))
fi
host_ip=$(ip route get 1.1.1.1 | awk '/src/ {print $7}')
IFS=',' read -ra IPS <<< "$IPADDRS"
PREFILL_NODES=$(( xP * PREFILL_NODES_PER_WORKER ))
COMMON="--model-path /models/$MODEL_NAME --disaggregation-ib-device $IBDEVICES --host 0.0.0.0 --port 8000 --trust-remote-code"
if [ "$NODE_RANK" -lt "$PREFILL_NODES" ]; then
    rank=$(( NODE_RANK % PREFILL_NODES_PER_WORKER ))
    head=$(( NODE_RANK - rank ))
    CMD="SGLANG_PREFILL_ENV=1 python3 -m sglang.launch_server $COMMON --disaggregation-mode prefill --tp-size 8 --mem-fraction-static 0.8"
    if [ "$PREFILL_NODES_PER_WORKER" -gt 1 ]; then
        CMD="$CMD --dist-init-addr ${IPS[$head]}:20000 --nnodes $PREFILL_NODES_PER_WORKER --node-rank $rank"
    fi
    setsid bash -c "$CMD" > >(tee /tmp/prefill.log >/dev/null) 2>&1 &
    prefill_pid=$!
    prefill_pgid=$(ps -o pgid= -p "$prefill_pid" 2>/dev/null | tr -d ' ')
    if [ "$NODE_RANK" -eq 0 ]; then
        setsid python -m sglang_router.launch_router --pd-disaggregation --port 30000 --policy random \
            --prefill "http://${IPS[0]}:8000" --prefill "http://${IPS[1]}:8000" --decode "http://${IPS[2]}:8000" &
        proxy_pid=$!
        canary() {
            local deadline=$(( $(date +%s) + 600 )) code
            while [ "$(date +%s)" -lt "$deadline" ]; do
                code=$(curl -s -o /tmp/canary.out -w '%{http_code}' -m 120 -X POST "http://${IPS[0]}:30000/v1/chat/completions" \
                    -H 'Content-Type: application/json' -d '{"max_tokens":1}' 2>/dev/null)
                if [ "$code" = "200" ] && ! grep -qE "circuits open|No available" /tmp/canary.out 2>/dev/null; then
                    return 0
                fi
                sleep 5
            done
            return 1
        }
        wait_or_die() {
            local watch=$1; shift
            "$@" & local cmd=$!
            while kill -0 "$cmd" 2>/dev/null; do
                kill -0 "$watch" 2>/dev/null || { kill "$cmd" 2>/dev/null || true; return 1; }
                sleep 5
            done
            wait "$cmd"
        }
        curl -sf --max-time 10 "http://0.0.0.0:30000/readiness" >/dev/null 2>&1 || exit 1
        wait_or_die "$prefill_pid" canary || exit 1
        cd /workspace/benchmarks/multi_node/amd_utils && bash bench.sh "$MODEL_NAME"
        python -m sglang_router.launch_router --never-reached &
        kill -TERM -"${proxy_pid}" -"${prefill_pgid}" 2>/dev/null || true
    fi
else
    rank=$(( (NODE_RANK - PREFILL_NODES) % DECODE_NODES_PER_WORKER ))
    head=$(( NODE_RANK - rank ))
    CMD="python3 -m sglang.launch_server $COMMON --disaggregation-mode decode --tp-size 16 --mem-fraction-static 0.85"
    if [ "$DECODE_NODES_PER_WORKER" -gt 1 ]; then
        CMD="$CMD --dist-init-addr ${IPS[$head]}:20000 --nnodes $DECODE_NODES_PER_WORKER --node-rank $rank"
    fi
    setsid bash -c "$CMD" &
fi
