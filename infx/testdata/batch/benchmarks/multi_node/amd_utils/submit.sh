#!/bin/bash
# Fixture: the shape of amd_utils/submit.sh — a module probe and sbatch.
export xP=$2 yD=$4
export PREFILL_NODES_PER_WORKER=$(( $1 / $2 ))
export DECODE_NODES_PER_WORKER=$(( $3 / $4 ))
NUM_NODES=$(( $1 + $3 ))
EXCLUDE=""
if python3 -c "import yaml" >/dev/null 2>&1; then
    EXCLUDE="--exclude=bad-node"
fi
sbatch --parsable -N "$NUM_NODES" -n "$NUM_NODES" $EXCLUDE ./job.slurm
