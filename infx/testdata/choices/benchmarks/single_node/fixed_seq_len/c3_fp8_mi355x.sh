#!/usr/bin/env bash
# A condition on the image's engine source, and the patch it guards.
MIXIN=/sgl-workspace/sglang/python/sglang/srt/managers/multi_tokenizer_mixin.py
if ! sed -n '/elif isinstance/,/input_token_logprobs_val/p' "$MIXIN" \
    | grep -q 'cached_tokens_details'; then
    sed -i '/cached_tokens=/a\            cached_tokens_details=None,' "$MIXIN"
fi
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" --port "$PORT"
