#!/bin/bash
# In the shape of InferenceX benchmarks/multi_node/amd_utils: the
# pre-flight gate (helpers/rdma_check.sh) and the QoS detection (env.sh).
set -uo pipefail
die() { echo "FAIL $*"; exit 1; }
if command -v nicctl &>/dev/null; then
    q=$(sudo nicctl show qos 2>/dev/null)
    [[ "$(echo "$q" | grep "Classification type" | head -1 | awk '{print $NF}')" == "DSCP" ]] || die class
    prio=$(echo "$q" | grep "PFC no-drop priorities" | head -1 | awk '{print $NF}')
    bitmap=$(echo "$q" | grep "PFC priority bitmap" | head -1 | awk '{print $NF}')
    (( bitmap & (1 << prio) )) || die bitmap
    d=$(sudo nicctl show dcqcn 2>/dev/null)
    [[ $(echo "$d" | grep -c "ROCE device") -gt 0 ]] || die roce
    [[ -z "$(echo "$d" | grep "Status" | grep -v "Enabled" || true)" ]] || die dcqcn
    [[ $(echo "$d" | grep "DSCP value used for CNP" | awk '{print $NF}' | sort -u | grep -c .) -eq 1 ]] || die cnp
fi
if command -v nicctl &> /dev/null; then
    ND_PRIO=$(nicctl show qos  2>/dev/null | awk '/PFC no-drop priorities/ {print $NF; exit}')
    ND_DSCP=$(nicctl show qos 2>/dev/null| awk -v p="$ND_PRIO" '
$1 == "DSCP" && $2 == ":" && $NF == p {
    print $3; exit
}')
    export MORI_RDMA_TC=$(( 4 * ND_DSCP )) MORI_RDMA_SL=$ND_PRIO
fi
MOUNT=$(command -v nicctl >/dev/null 2>&1 && echo "-v $(which nicctl):/usr/sbin/nicctl")
vllm serve m --mount "$MOUNT"
