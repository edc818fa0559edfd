#!/usr/bin/env bash
vllm serve "$MODEL" --tensor-parallel-size "$TP" --port "$PORT" &
