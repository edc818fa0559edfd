#!/bin/bash
# Fixture: the shape of amd_utils/helpers/rdma_check.sh — skipped without
# nicctl, else a hard gate on the NIC QoS.
if ! command -v nicctl &>/dev/null; then
    echo "nicctl not found on $(hostname -s)"
    exit 0
fi
q=$(sudo nicctl show qos 2>/dev/null)
[[ "$(echo "$q" | grep "Classification type" | head -1 | awk '{print $NF}')" == "DSCP" ]] || exit 1
