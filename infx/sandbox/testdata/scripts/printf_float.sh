#!/usr/bin/env bash
# Fixture: printf conversions the interpreter's own printf lacks.
FRAC=$(printf "%.2f" 0.5)
BIG=$(printf '%g' 1234567)
HEX=$(printf '%#X' 255)
PAD=$(printf '%05.1f|%-4s|%.3s|%d' 3.14159 ab abcdef)
printf -v SCI '%e' 1500
MISSING=$(printf '%.1f')
f() { local q; printf -v q '%s|%s' "it's" b; QUOTED=$q; }
f
python3 -m sglang.launch_server --model-path "$MODEL" --mem-fraction-static "$FRAC" \
  --big "$BIG" --hex "$HEX" --pad "$PAD" --sci "$SCI" --missing "$MISSING" --quoted "$QUOTED" --port "$PORT" &
