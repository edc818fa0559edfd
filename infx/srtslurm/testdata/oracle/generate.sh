#!/bin/bash
# Regenerate testdata/oracle/<name>.<ref>.txt for every line of MANIFEST.tsv
# by running render_oracle.py inside an srt-slurm worktree at the ref.
# Usage: generate.sh [NAME-FILTER]   (env: SRT_SLURM_MIRROR, INFX_DIR)
set -u
here="$(cd "$(dirname "$0")" && pwd)"
pkg="$(cd "$here/../.." && pwd)"
mirror="${SRT_SLURM_MIRROR:-/work/.mirror/NVIDIA+srt-slurm/repo}"
infx="${INFX_DIR:-/work/shared/corpus/upstream/InferenceX}"
grep -v '^#' "$here/MANIFEST.tsv" | while IFS=$'\t' read -r name ref label; do
  [ -n "${1:-}" ] && [[ "$name" != *$1* ]] && continue
  commit="$ref"; [ "$ref" = main ] && commit=c88ef731
  wt="/tmp/srt-$(echo "$commit" | tr '/' '_')"
  if [ ! -d "$wt" ]; then git clone -q --shared "$mirror" "$wt" && git -C "$wt" checkout -q "$commit" || { echo "bad ref $ref"; continue; }; fi
  file="${label%%:*}"; sel=""; [ "$file" != "$label" ] && sel=":${label#*:}"
  case "$file" in testdata/*) path="$pkg/$file" ;; *) path="$infx/$file" ;; esac
  out="$here/$name.$(echo "$ref" | tr '/' '_').txt"
  (cd "$wt" && PYTHONPATH=src /usr/bin/python3 "$here/render_oracle.py" "$path$sel" --label "$label") > "$out" 2>/tmp/oracle-gen.err
  rc=$?
  case $rc in 0|3) echo "rc=$rc $out" ;; *) echo "FAILED rc=$rc $name $ref"; tail -3 /tmp/oracle-gen.err; rm -f "$out" ;; esac
done
