#!/usr/bin/env bash
# Fixture: TRT-LLM with an engine config written from a heredoc.
EXTRA_CONFIG=/workspace/extra-llm-api-config.yml
cat > "$EXTRA_CONFIG" <<EOF_CFG
enable_attention_dp: $DP_ATTENTION
cuda_graph_config:
  max_batch_size: $CONC
EOF_CFG
cat "$EXTRA_CONFIG" | tee /workspace/config-copy.yml > /dev/null
trtllm-serve "$MODEL" --host 0.0.0.0 --port "$PORT" --tp_size "$TP" --ep_size "$EP_SIZE" \
    --extra_llm_api_options "$EXTRA_CONFIG" &
