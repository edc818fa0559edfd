#!/bin/bash
# Fixture: the shape of amd_utils/server.sh + env.sh + server_sglang.sh —
# the node's role from NODE_RANK, env detected in the container, the
# servers started under setsid.
export IBDEVICES=$(ibv_devinfo 2>/dev/null | grep "hca_id:" | awk '{print $2}' | paste -sd',')
export GLOO_SOCKET_IFNAME=$(ip route | grep '^default' | awk '{print $5}' | head -n 1)
export SGLANG_MORI_FLAG=1
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
    if [ "$NODE_RANK" -eq 0 ]; then
        python -m sglang_router.launch_router --pd-disaggregation --port 30000 --policy random \
            --prefill "http://${IPS[0]}:8000" --prefill "http://${IPS[1]}:8000" --decode "http://${IPS[2]}:8000" &
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
