// GENERATED-style fixture written by hand for cookbook-sync tests — not upstream data.
// Exercises what the shared corpus files do not: measured mooncake, mooncake-store, preamble,
// drop, patch replace and {"block"}, cross-router ref, quoting.
export const agentx = {
 "model": "Tiny",
 "generatedOn": "2026-11-30",
 "source": {
  "repo": "https://github.com/SemiAnalysisAI/InferenceX",
  "main": "0123456789abcdef0123456789abcdef01234567",
  "prs": {
   "42": {"run": null, "sha": "89abcdef0123456789abcdef0123456789abcdef", "status": "in-progress"}
  }
 },
 "hardware": [{"id": "b200", "label": "B200"}],
 "checkpoints": [{"id": "org/Tiny-FP8"}],
 "envs": [
  {"B_VAR": "2", "A_VAR": "1"},
  {"MOONCAKE_MASTER": "$MOONCAKE_MASTER_IP:8700", "MC_X": "1"}
 ],
 "kvMooncake": {
  "donor": "tiny-donor",
  "donorHardware": "b200",
  "master": {
   "dynamo": {"kind": "mooncake-master", "count_nodes": 1, "ports": ["8700"], "cmd": "mooncake_master", "env": {"Z_VAR": "1", "ETCD_ENDPOINTS": "http://$ETCD_IP:2379"}, "args": [["--port", "8700"], ["--eviction_high_watermark_ratio", "0.90"]]},
   "sglang": {"kind": "mooncake-master", "count_nodes": 1, "ports": ["8700"], "cmd": "mooncake_master", "env": {}, "args": [["--port", "8700"]]}
  },
  "args": [["--enable-unified-cache-external-linker"], ["--hicache-storage-backend-extra-config", "{\"g\":true}"], ["--unified-cache-external-linker-backend", "mooncake"]],
  "env": {"MOONCAKE_MASTER": "$MOONCAKE_MASTER_IP:8700", "MC_TCP_BIND_ADDRESS": "$NODE_IP"},
  "decode_env": {"MOONCAKE_MASTER": "$MOONCAKE_MASTER_IP:8700"}
 },
 "files": {
  "nginx.conf#333134d1": {"name": "nginx.conf", "content": "server $FRONTEND_0_IP:8180;\nserver $FRONTEND_1_IP:8180;\n"}
 },
 "cells": [
  {
   "id": "tiny-mooncake#0",
   "hw": "b200",
   "ckpt": "org/Tiny-FP8",
   "label": "Agg TP2",
   "detail": "measured with Mooncake",
   "gpus": 2,
   "configKey": "tiny-fp8-b200-sglang-agentic",
   "image": "lmsysorg/sglang:v0.0.1",
   "imageStatus": "ok",
   "imageCommit": null,
   "submitted": "sglang",
   "setup": [],
   "disclosures": [],
   "kv": {"available": ["none", "mooncake"], "unavailable": {"hicache": "no verified HiCache settings"}},
   "prov": {"sha": "89abcdef0123456789abcdef0123456789abcdef", "recipe": "benchmarks/tiny.yaml", "pr": "42", "status": "in-progress"},
   "points": [
    {"concs": [1], "item": 0, "kv": "mooncake"},
    {"concs": [8], "item": 1, "kv": "mooncake", "recipe": "benchmarks/tiny-c8.yaml", "override": "override_c8",
     "patch": {"sglang": {"replace": [
       {"kind": "worker", "role": "agg", "cmd": "python3 -m sglang.launch_server", "env": {"Z": "1", "A": "it's"}, "args": [["--port", "30000"], ["--model-path", "org/Tiny-FP8"]]}
      ]},
      "dynamo": [null, {"block": {"kind": "mooncake-master", "cmd": "mooncake_master", "args": []}}]}},
    {"concs": [16], "item": 2, "kv": "mooncake",
     "patch": {"sglang": [null, null, {"args": {"--mem-fraction-static": ["0.8"], "--trust-remote-code": null, "--bare": [], "--cuda-graph-bs": ["1", "2"]}, "env": {"A_VAR": null, "C_VAR": "x y"}}], "dynamo": null}}
   ],
   "routers": {
    "sglang": {
     "install": [],
     "files": [],
     "blocks": [
      {"kind": "mooncake-master", "count_nodes": 1, "ports": ["8700"], "cmd": "mooncake_master", "env": {}, "args": [["--port", "8700"]]},
      {"kind": "mooncake-store", "count_nodes": 2, "ports": ["8800", "8801"], "preamble": ["ulimit -n 1048576", "ulimit -l unlimited"], "cmd": "python -m mooncake.mooncake_store_service", "args": [["--port", "8800"]], "envRef": 1},
      {"kind": "worker", "role": "agg", "workers": 1, "gpu_pinning": [["0,1"]], "cmd": "python3 -m sglang.launch_server", "envRef": 0, "args": [["--model-path", "org/Tiny-FP8"], ["--host", "0.0.0.0"], ["--port", "30000"], ["--enable-unified-cache-external-linker"], ["--mem-fraction-static", "0.9"], ["--trust-remote-code"]]}
     ]
    },
    "dynamo": {
     "install": ["# Dynamo bundled"],
     "files": [],
     "blocks": [
      {"kind": "etcd", "cmd": "etcd", "env": {}, "args": [["--advertise-client-urls", "http://$ETCD_IP:2379"]]},
      {"from": 0, "cmd": "mooncake_master", "diff": {"env": {"ETCD_ENDPOINTS": "http://$ETCD_IP:2379"}}},
      {"from": 1, "cmd": "python -m mooncake.mooncake_store_service"},
      {"from": 2, "cmd": "python3 -m dynamo.sglang", "drop": ["gpu_pinning"], "diff": {"args": {"--request-plane": ["tcp"], "--trust-remote-code": null}, "env": {"DYN_REQUEST_PLANE": "tcp", "A_VAR": null}}}
     ]
    }
   }
  },
  {
   "id": "tiny-disagg#0",
   "hw": "b200",
   "ckpt": "org/Tiny-FP8",
   "label": "Disagg 1P1D",
   "detail": "no spec",
   "gpus": 4,
   "configKey": "tiny-fp8-b200-dynamo-sglang-agentic-disagg",
   "image": "lmsysorg/sglang:v0.0.1",
   "imageStatus": "ok",
   "imageCommit": null,
   "submitted": "dynamo",
   "setup": [],
   "disclosures": [],
   "kv": {"available": ["none", "hicache", "mooncake"], "unavailable": {},
          "hicache": {"args": [["--enable-hierarchical-cache"], ["--hicache-ratio", "2"]], "donor": "tiny-donor", "donorHardware": "b200"}},
   "prov": {"sha": "89abcdef0123456789abcdef0123456789abcdef", "pr": "42", "status": "in-progress"},
   "points": [
    {"concs": [4], "item": 0, "kv": "none"}
   ],
   "routers": {
    "dynamo": {
     "install": [],
     "files": ["nginx.conf#333134d1"],
     "blocks": [
      {"ref": [0, "dynamo", 0]},
      {"kind": "nginx", "cmd": "nginx -c nginx.conf -g daemon off;", "env": {}, "args": []},
      {"ref": [0, "sglang", 2], "drop": ["env"], "role": "prefill", "cmd": "python3 -m dynamo.sglang", "diff": {"args": {"--disaggregation-mode": ["prefill"], "--port": ["30001"], "--mem-fraction-static": null}}},
      {"kind": "worker", "role": "decode", "cmd": "python3 -m dynamo.sglang", "env": {"Y": "a b", "MOONCAKE_MASTER": "kept"}, "args": [["--model-path", "org/Tiny-FP8"], ["--disaggregation-mode", "decode"], ["--dist-init-addr", "$DECODE_HEAD_IP:20000"], ["--hicache-ratio", "3"], ["--json", "{\"a\": 'x'}"], ["--empty", ""]]},
      {"kind": "dynamo-frontend", "count": 2, "cmd": "python3 -m dynamo.frontend", "env": {}, "args": [["--http-port", "8180"]]}
     ]
    },
    "sglang": {
     "install": [],
     "files": [],
     "blocks": [
      {"from": 2, "cmd": "python3 -m sglang.launch_server", "diff": {"args": {"--skip-server-warmup": []}}},
      {"kind": "sglang-router", "cmd": "python3 -m sglang_router.launch_router", "env": {}, "args": [["--prefill", "http://$PREFILL_0_HEAD_IP:30000", "8998"], ["--decode", "http://$DECODE_0_HEAD_IP:30000"], ["--policy", "cache_aware"]]}
     ]
    }
   }
  }
 ]
};
