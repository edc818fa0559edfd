#!/bin/bash
# Fixture: the benchmark client (amd_utils/bench.sh); its run is not followed.
unknown-client --model "$1"
