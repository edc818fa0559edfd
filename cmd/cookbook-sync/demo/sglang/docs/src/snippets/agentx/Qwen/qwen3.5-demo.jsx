// cookbook-sync demo workspace: a small AgentX data file in the format of
// sgl-project/sglang docs/src/snippets/agentx/*.jsx, written for the demo (not upstream data).
// (SemiAnalysisAI/InferenceX main@111111111111 plus open PRs #9003, #9004), with SA-specific settings removed.
export const agentx = {
 "model": "Qwen3.5 (cookbook-sync demo)",
 "generatedOn": "2026-11-30",
 "source": {
  "repo": "https://github.com/SemiAnalysisAI/InferenceX",
  "main": "1111111111111111111111111111111111111111",
  "prs": {
   "9003": {
    "run": null,
    "sha": "1111111111111111111111111111111111111111",
    "status": "in-progress"
   },
   "9004": {
    "run": null,
    "sha": "1111111111111111111111111111111111111111",
    "status": "in-progress"
   }
  }
 },
 "hardware": [
  {
   "id": "gb300",
   "label": "GB300"
  },
  {
   "id": "b200",
   "label": "B200"
  }
 ],
 "checkpoints": [
  {
   "id": "Qwen/Qwen3.5-397B-A17B-FP8"
  }
 ],
 "envs": [],
 "kvMooncake": null,
 "files": {
  "nats.conf#48a4de48": {
   "name": "nats.conf",
   "content": "max_payload: 8388608\njetstream { store_dir: \"/tmp/nats\" }\n"
  },
  "nginx.conf#3f274881": {
   "name": "nginx.conf",
   "content": "# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.\n# SPDX-License-Identifier: Apache-2.0\n# Defines the group of servers to which NGINX will proxy requests.\n# NGINX will cycle through these servers in a round-robin fashion by default.\nworker_processes auto;\n\n\nhttp {\n    # Raise the request-body cap (nginx default is 1 MiB) so the load balancer\n    # does not reject large client requests with 413 before they reach the\n    # frontend. Agentic replay traces (e.g. multi-turn cc-traces warmup bodies)\n    # exceed 1 MiB; this mirrors the dynamo frontend's own body limit so nginx\n    # is never the bottleneck and is never more permissive than the backend.\n    client_max_body_size 45m;\n    access_log off;\n\n\n    # Agentic replay reproduces recorded think-time, so a session's connection can\n    # sit idle for minutes between turns. nginx's default keepalive_timeout of 75s\n    # closes it underneath a pooled client connection, and the client's next write\n    # on that socket surfaces as \"broken pipe\" / \"server disconnected\" with nothing\n    # logged server-side.\n    keepalive_timeout 600s;\n\n    upstream backend_servers {\n\n        \n        server $FRONTEND_0_IP:8180;\n        \n        server $FRONTEND_1_IP:8180;\n        \n        # Reuse upstream connections instead of a fresh TCP handshake per request.\n        keepalive 512;\n        keepalive_timeout 600s;\n    }\n\n    # The main server block that listens for incoming traffic.\n    server {\n        listen 8000; # Public-facing port for incoming HTTP requests.\n\n        location / {\n            # Pass the request to the upstream group defined above.\n            proxy_pass http://backend_servers;\n\n            proxy_buffering off;\n            proxy_read_timeout 24h;\n            proxy_send_timeout 24h;\n\n            # Required for the upstream keepalive pool above: without these nginx\n            # talks HTTP/1.0 to the backend and opens a new connection per request.\n            proxy_http_version 1.1;\n            proxy_set_header Connection \"\";\n        }\n    }\n}\n\nevents {\n\n    #\n    # Determines how many clients will be served by each worker process.\n    # (Max clients = worker_connections * worker_processes)\n    # Should be equal to `ulimit -n / worker_processes`\n    #\n    worker_connections 65535;\n\n    #\n    # Let each process accept multiple connections.\n    # Accept as many connections as possible, after nginx gets notification\n    # about a new connection.\n    # May flood worker_connections, if that option is set too low.\n    #\n    multi_accept on;\n\n    #\n    # Preferred connection method for newer linux versions.\n    # Essential for linux, optmized to serve many clients with each thread.\n    #\n    use epoll;\n}"
  }
 },
 "cells": [
  {
   "id": "qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg#0",
   "hw": "gb300",
   "ckpt": "Qwen/Qwen3.5-397B-A17B-FP8",
   "label": "Agg TP4",
   "detail": "MTP 3-1-4",
   "gpus": 4,
   "configKey": "qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg",
   "image": "lmsysorg/sglang:v0.5.19-cu130",
   "imageStatus": "ok",
   "imageCommit": null,
   "submitted": "sglang",
   "setup": [],
   "disclosures": [
    "synthetic-acceptance"
   ],
   "kv": {
    "available": [
     "none"
    ],
    "unavailable": {
     "hicache": "no verified HiCache settings for this model yet"
    }
   },
   "prov": {
    "sha": "1111111111111111111111111111111111111111",
    "recipe": "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/gb300-fp8/agentx/agg-variants.yaml",
    "run": "100000001/attempts/1",
    "pr": "9001",
    "status": "verified",
    "date": "2026-11-20"
   },
   "points": [
    {
     "concs": [
      4
     ],
     "item": 0,
     "override": "override_c4",
     "kv": "none"
    },
    {
     "concs": [
      32
     ],
     "item": 1,
     "override": "override_c32",
     "goldenAL": "3.39",
     "kv": "none",
     "patch": {
      "sglang": [
       {
        "args": {
         "--cuda-graph-max-bs": [
          "64"
         ],
         "--max-running-requests": [
          "64"
         ]
        }
       },
       null
      ]
     }
    }
   ],
   "routers": {
    "sglang": {
     "install": [],
     "files": [],
     "blocks": [
      {
       "kind": "worker",
       "role": "agg",
       "workers": 1,
       "cmd": "python3 -m sglang.launch_server",
       "env": {
        "NCCL_NVLS_ENABLE": "1",
        "SGLANG_ENABLE_JIT_DEEPGEMM": "false",
        "SGLANG_ENABLE_SPEC_V2": "1"
       },
       "args": [
        [
         "--model-path",
         "Qwen/Qwen3.5-397B-A17B-FP8"
        ],
        [
         "--served-model-name",
         "Qwen/Qwen3.5-397B-A17B-FP8"
        ],
        [
         "--host",
         "0.0.0.0"
        ],
        [
         "--port",
         "30000"
        ],
        [
         "--attention-backend",
         "trtllm_mha"
        ],
        [
         "--chunked-prefill-size",
         "16384"
        ],
        [
         "--cuda-graph-max-bs",
         "8"
        ],
        [
         "--data-parallel-size",
         "1"
        ],
        [
         "--expert-parallel-size",
         "1"
        ],
        [
         "--kv-cache-dtype",
         "fp8_e4m3"
        ],
        [
         "--mamba-radix-cache-strategy",
         "extra_buffer"
        ],
        [
         "--mem-fraction-static",
         "0.8"
        ],
        [
         "--moe-runner-backend",
         "flashinfer_trtllm"
        ],
        [
         "--page-size",
         "64"
        ],
        [
         "--speculative-algorithm",
         "NEXTN"
        ],
        [
         "--speculative-eagle-topk",
         "1"
        ],
        [
         "--speculative-num-draft-tokens",
         "4"
        ],
        [
         "--speculative-num-steps",
         "3"
        ],
        [
         "--tp",
         "4"
        ],
        [
         "--trust-remote-code"
        ]
       ]
      },
      {
       "kind": "sglang-router",
       "cmd": "python3 -m sglang_router.launch_router",
       "env": {},
       "args": [
        [
         "--host",
         "0.0.0.0"
        ],
        [
         "--port",
         "8000"
        ],
        [
         "--worker-urls",
         "http://127.0.0.1:30000"
        ]
       ]
      }
     ]
    },
    "dynamo": {
     "install": [],
     "files": [
      "nats.conf#48a4de48"
     ],
     "blocks": [
      {
       "kind": "etcd",
       "count_nodes": 1,
       "cmd": "etcd",
       "env": {},
       "args": [
        [
         "--data-dir",
         "/tmp/etcd"
        ],
        [
         "--listen-client-urls",
         "http://0.0.0.0:2379"
        ],
        [
         "--advertise-client-urls",
         "http://$ETCD_IP:2379"
        ]
       ]
      },
      {
       "kind": "nats",
       "count_nodes": 1,
       "cmd": "nats-server -c nats.conf",
       "env": {},
       "args": []
      },
      {
       "kind": "dynamo-frontend",
       "count": 1,
       "cmd": "python3 -m dynamo.frontend",
       "env": {
        "DYN_REQUEST_PLANE": "tcp",
        "ETCD_ENDPOINTS": "http://$ETCD_IP:2379",
        "NATS_SERVER": "nats://$NATS_IP:4222"
       },
       "args": [
        [
         "--http-port",
         "8000"
        ],
        [
         "--router-mode",
         "kv"
        ]
       ]
      },
      {
       "from": 0,
       "cmd": "python3 -m dynamo.sglang",
       "diff": {
        "args": {
         "--request-plane": [
          "tcp"
         ]
        },
        "env": {
         "DYN_REQUEST_PLANE": "tcp",
         "ETCD_ENDPOINTS": "http://$ETCD_IP:2379",
         "NATS_SERVER": "nats://$NATS_IP:4222"
        }
       }
      }
     ]
    }
   }
  },
  {
   "id": "qwen3.5-fp8-gb300-dynamo-sglang-agentic-disagg#0",
   "hw": "gb300",
   "ckpt": "Qwen/Qwen3.5-397B-A17B-FP8",
   "label": "Disagg 1P1D · prefill TP4 · decode TP4",
   "detail": "MTP 3-1-4",
   "gpus": 8,
   "configKey": "qwen3.5-fp8-gb300-dynamo-sglang-agentic-disagg",
   "image": "lmsysorg/sglang:v0.5.19-cu130",
   "imageStatus": "ok",
   "imageCommit": null,
   "submitted": "dynamo",
   "setup": [],
   "disclosures": [],
   "kv": {
    "available": [
     "none"
    ],
    "unavailable": {}
   },
   "prov": {
    "sha": "2222222222222222222222222222222222222222",
    "recipe": "benchmarks/multi_node/srt-slurm-recipes/sglang/qwen3.5/gb300-fp8/agentic/disagg-gb300-1p1d-tp4-tp4-c8.yaml",
    "run": "100000002/attempts/1",
    "pr": "9002",
    "status": "verified",
    "date": "2026-11-21"
   },
   "points": [
    {
     "concs": [
      8
     ],
     "item": 0,
     "kv": "none"
    }
   ],
   "routers": {
    "dynamo": {
     "install": [
      "# Dynamo built from source at https://github.com/ai-dynamo/dynamo/commit/5a638087d82c990d35c69cb8e41c2c2582e9ef9a"
     ],
     "files": [
      "nats.conf#48a4de48",
      "nginx.conf#3f274881"
     ],
     "blocks": [
      {
       "kind": "etcd",
       "count_nodes": 1,
       "cmd": "etcd",
       "env": {},
       "args": [
        [
         "--data-dir",
         "/tmp/etcd"
        ],
        [
         "--listen-client-urls",
         "http://0.0.0.0:2379"
        ],
        [
         "--advertise-client-urls",
         "http://$ETCD_IP:2379"
        ]
       ]
      },
      {
       "kind": "nats",
       "count_nodes": 1,
       "cmd": "nats-server -c nats.conf",
       "env": {},
       "args": []
      },
      {
       "kind": "nginx",
       "cmd": "nginx -c nginx.conf -g daemon off;",
       "env": {},
       "args": []
      },
      {
       "kind": "dynamo-frontend",
       "count": 2,
       "cmd": "python3 -m dynamo.frontend",
       "env": {
        "DYN_REQUEST_PLANE": "tcp",
        "ETCD_ENDPOINTS": "http://$ETCD_IP:2379",
        "NATS_SERVER": "nats://$NATS_IP:4222"
       },
       "args": [
        [
         "--http-port",
         "8180"
        ],
        [
         "--router-mode",
         "kv"
        ]
       ]
      },
      {
       "kind": "worker",
       "role": "prefill",
       "workers": 1,
       "cmd": "python3 -m dynamo.sglang",
       "env": {
        "DYN_REQUEST_PLANE": "tcp",
        "ETCD_ENDPOINTS": "http://$ETCD_IP:2379",
        "NATS_SERVER": "nats://$NATS_IP:4222",
        "NCCL_NVLS_ENABLE": "1",
        "SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT": "100000",
        "SGLANG_ENABLE_SPEC_V2": "1"
       },
       "args": [
        [
         "--model-path",
         "Qwen/Qwen3.5-397B-A17B-FP8"
        ],
        [
         "--served-model-name",
         "Qwen/Qwen3.5-397B-A17B-FP8"
        ],
        [
         "--host",
         "0.0.0.0"
        ],
        [
         "--port",
         "30000"
        ],
        [
         "--disaggregation-mode",
         "prefill"
        ],
        [
         "--disaggregation-bootstrap-port",
         "8998"
        ],
        [
         "--request-plane",
         "tcp"
        ],
        [
         "--attention-backend",
         "trtllm_mha"
        ],
        [
         "--chunked-prefill-size",
         "65536"
        ],
        [
         "--disable-cuda-graph"
        ],
        [
         "--kv-cache-dtype",
         "fp8_e4m3"
        ],
        [
         "--mem-fraction-static",
         "0.8"
        ],
        [
         "--moe-runner-backend",
         "flashinfer_trtllm"
        ],
        [
         "--page-size",
         "64"
        ],
        [
         "--tensor-parallel-size",
         "4"
        ],
        [
         "--trust-remote-code"
        ]
       ]
      },
      {
       "kind": "worker",
       "role": "decode",
       "workers": 1,
       "cmd": "python3 -m dynamo.sglang",
       "env": {
        "DYN_REQUEST_PLANE": "tcp",
        "ETCD_ENDPOINTS": "http://$ETCD_IP:2379",
        "NATS_SERVER": "nats://$NATS_IP:4222",
        "NCCL_NVLS_ENABLE": "1",
        "SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT": "100000",
        "SGLANG_ENABLE_SPEC_V2": "1"
       },
       "args": [
        [
         "--model-path",
         "Qwen/Qwen3.5-397B-A17B-FP8"
        ],
        [
         "--served-model-name",
         "Qwen/Qwen3.5-397B-A17B-FP8"
        ],
        [
         "--host",
         "0.0.0.0"
        ],
        [
         "--port",
         "30000"
        ],
        [
         "--disaggregation-mode",
         "decode"
        ],
        [
         "--request-plane",
         "tcp"
        ],
        [
         "--attention-backend",
         "trtllm_mha"
        ],
        [
         "--cuda-graph-max-bs",
         "16"
        ],
        [
         "--kv-cache-dtype",
         "fp8_e4m3"
        ],
        [
         "--mem-fraction-static",
         "0.8"
        ],
        [
         "--moe-runner-backend",
         "flashinfer_trtllm"
        ],
        [
         "--page-size",
         "64"
        ],
        [
         "--speculative-algorithm",
         "NEXTN"
        ],
        [
         "--speculative-eagle-topk",
         "1"
        ],
        [
         "--speculative-num-draft-tokens",
         "4"
        ],
        [
         "--speculative-num-steps",
         "3"
        ],
        [
         "--tensor-parallel-size",
         "4"
        ],
        [
         "--trust-remote-code"
        ]
       ]
      }
     ]
    },
    "sglang": {
     "install": [],
     "files": [],
     "blocks": [
      {
       "from": 4,
       "cmd": "python3 -m sglang.launch_server",
       "diff": {
        "args": {
         "--request-plane": null,
         "--skip-server-warmup": []
        },
        "env": {
         "DYN_REQUEST_PLANE": null,
         "ETCD_ENDPOINTS": null,
         "NATS_SERVER": null
        }
       }
      },
      {
       "from": 5,
       "cmd": "python3 -m sglang.launch_server",
       "diff": {
        "args": {
         "--request-plane": null,
         "--skip-server-warmup": []
        },
        "env": {
         "DYN_REQUEST_PLANE": null,
         "ETCD_ENDPOINTS": null,
         "NATS_SERVER": null
        }
       }
      },
      {
       "kind": "sglang-router",
       "cmd": "python3 -m sglang_router.launch_router",
       "env": {},
       "args": [
        [
         "--host",
         "0.0.0.0"
        ],
        [
         "--port",
         "8000"
        ],
        [
         "--pd-disaggregation"
        ],
        [
         "--prefill",
         "http://$PREFILL_0_HEAD_IP:30000",
         "8998"
        ],
        [
         "--decode",
         "http://$DECODE_0_HEAD_IP:30000"
        ],
        [
         "--policy",
         "cache_aware"
        ]
       ]
      }
     ]
    }
   }
  },
  {
   "id": "qwen3.5-fp8-b200-sglang-agentic-mtp#0",
   "hw": "b200",
   "ckpt": "Qwen/Qwen3.5-397B-A17B-FP8",
   "label": "Agg TP8",
   "detail": "MTP 3-1-4",
   "gpus": 8,
   "configKey": "qwen3.5-fp8-b200-sglang-agentic-mtp",
   "image": "lmsysorg/sglang:v0.5.19-cu130",
   "imageStatus": "ok",
   "imageCommit": null,
   "submitted": "sglang",
   "setup": [],
   "disclosures": [],
   "kv": {
    "available": [
     "none"
    ],
    "unavailable": {}
   },
   "prov": {
    "sha": "1111111111111111111111111111111111111111",
    "recipe": "benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh",
    "pr": "9003",
    "status": "in-progress"
   },
   "points": [
    {
     "concs": [
      1
     ],
     "item": 0,
     "kv": "none"
    }
   ],
   "routers": {
    "sglang": {
     "install": [],
     "files": [],
     "blocks": [
      {
       "ref": [
        0,
        "sglang",
        0
       ],
       "diff": {
        "args": {
         "--tp": [
          "8"
         ]
        }
       }
      }
     ]
    }
   }
  },
  {
   "id": "qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg#1",
   "hw": "gb300",
   "ckpt": "Qwen/Qwen3.5-397B-A17B-FP8",
   "label": "Agg TP8",
   "detail": "MTP 3-1-4",
   "gpus": 8,
   "configKey": "qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg",
   "image": "lmsysorg/sglang:v0.5.19-cu130",
   "imageStatus": "ok",
   "imageCommit": null,
   "submitted": "sglang",
   "setup": [],
   "disclosures": [],
   "kv": {
    "available": [
     "none"
    ],
    "unavailable": {}
   },
   "prov": {
    "sha": "1111111111111111111111111111111111111111",
    "recipe": "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/gb300-fp8/agentx/agg-tp8-c1.yaml",
    "pr": "9004",
    "status": "in-progress"
   },
   "points": [
    {
     "concs": [
      1
     ],
     "item": 0,
     "kv": "none"
    }
   ],
   "routers": {
    "sglang": {
     "install": [],
     "files": [],
     "blocks": [
      {
       "ref": [
        0,
        "sglang",
        0
       ],
       "diff": {
        "args": {
         "--tp": [
          "8"
         ]
        }
       }
      },
      {
       "ref": [
        0,
        "sglang",
        1
       ]
      }
     ]
    }
   }
  }
 ]
};
