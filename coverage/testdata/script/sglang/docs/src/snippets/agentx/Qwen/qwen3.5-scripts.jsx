// cookbook-sync fixture (written for compare's script tests, not upstream data):
// an AgentX data file in the format of sgl-project/sglang
// docs/src/snippets/agentx/*.jsx whose cells cite single-node scripts of
// compare/testdata/script/inferencex.
export const agentx = {
 "model": "Qwen3.5 (cookbook-sync script fixture)",
 "generatedOn": "2026-11-30",
 "source": {
  "repo": "https://github.com/SemiAnalysisAI/InferenceX",
  "main": "2222222222222222222222222222222222222222",
  "prs": {
   "9100": {
    "run": "200000001",
    "sha": "2222222222222222222222222222222222222222",
    "status": "verified"
   }
  }
 },
 "hardware": [
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
 "files": {},
 "cells": [
  {
   "id": "qwen3.5-fp8-b200-sglang-agentic-mtp#0",
   "hw": "b200",
   "ckpt": "Qwen/Qwen3.5-397B-A17B-FP8",
   "label": "Agg TP8",
   "detail": "MTP 3-1-4",
   "gpus": 8,
   "configKey": "qwen3.5-fp8-b200-sglang-agentic-mtp",
   "image": "lmsysorg/sglang:v0.5.16-cu130",
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
    "sha": "2222222222222222222222222222222222222222",
    "recipe": "benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh",
    "run": "200000001",
    "pr": "9100",
    "status": "verified",
    "date": "2026-11-25"
   },
   "points": [
    {
     "concs": [
      4
     ],
     "item": 0,
     "kv": "none"
    },
    {
     "concs": [
      8
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
       "kind": "worker",
       "role": "agg",
       "workers": 1,
       "cmd": "python3 -m sglang.launch_server",
       "env": {
        "NCCL_NVLS_ENABLE": "1",
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
         "--trust-remote-code"
        ],
        [
         "--tensor-parallel-size",
         "8"
        ],
        [
         "--attention-backend",
         "trtllm_mha"
        ],
        [
         "--mem-fraction-static",
         "0.85"
        ],
        [
         "--context-length",
         "262144"
        ],
        [
         "--cuda-graph-max-bs",
         "4"
        ],
        [
         "--scheduler-recv-interval",
         "10"
        ],
        [
         "--speculative-algorithm",
         "EAGLE"
        ],
        [
         "--speculative-num-steps",
         "3"
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
         "--reasoning-parser",
         "qwen3"
        ],
        [
         "--tool-call-parser",
         "qwen3_coder"
        ]
       ]
      }
     ]
    }
   }
  },
  {
   "id": "qwen3.5-fp8-b200-sglang-agentic-mtp#1",
   "hw": "b200",
   "ckpt": "Qwen/Qwen3.5-397B-A17B-FP8",
   "label": "Agg DEP4",
   "detail": "MTP 3-1-4 · DP attention",
   "gpus": 4,
   "configKey": "qwen3.5-fp8-b200-sglang-agentic-mtp",
   "image": "lmsysorg/sglang:v0.5.16-cu130",
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
    "sha": "2222222222222222222222222222222222222222",
    "recipe": "benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh",
    "run": "200000001",
    "pr": "9100",
    "status": "verified",
    "date": "2026-11-25"
   },
   "points": [
    {
     "concs": [
      16
     ],
     "item": 1,
     "kv": "none"
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
         "--trust-remote-code"
        ],
        [
         "--tensor-parallel-size",
         "4"
        ],
        [
         "--data-parallel-size",
         "4"
        ],
        [
         "--enable-dp-attention"
        ],
        [
         "--expert-parallel-size",
         "4"
        ],
        [
         "--attention-backend",
         "trtllm_mha"
        ],
        [
         "--mem-fraction-static",
         "0.85"
        ],
        [
         "--context-length",
         "262144"
        ],
        [
         "--cuda-graph-max-bs",
         "16"
        ],
        [
         "--scheduler-recv-interval",
         "30"
        ],
        [
         "--speculative-algorithm",
         "EAGLE"
        ],
        [
         "--speculative-num-steps",
         "3"
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
         "--reasoning-parser",
         "qwen3"
        ],
        [
         "--tool-call-parser",
         "qwen3_coder"
        ]
       ]
      }
     ]
    }
   }
  },
  {
   "id": "qwen3.5-fp8-b200-sglang-agentic-mtp#2",
   "hw": "b200",
   "ckpt": "Qwen/Qwen3.5-397B-A17B-FP8",
   "label": "Agg TP4",
   "detail": "MTP 3-1-4 · measured with HiCache",
   "gpus": 4,
   "configKey": "qwen3.5-fp8-b200-sglang-agentic-mtp",
   "image": "lmsysorg/sglang:v0.5.16-cu130",
   "imageStatus": "ok",
   "imageCommit": null,
   "submitted": "sglang",
   "setup": [],
   "disclosures": [
    "synthetic-acceptance"
   ],
   "kv": {
    "available": [
     "none",
     "hicache"
    ],
    "unavailable": {},
    "hicache": {
     "args": [
      [
       "--enable-hierarchical-cache"
      ],
      [
       "--hicache-ratio",
       "2"
      ],
      [
       "--hicache-write-policy",
       "write_through"
      ]
     ],
     "donor": "qwen3.5-fp8-b200-sglang-agentic-mtp",
     "donorHardware": "b200"
    }
   },
   "prov": {
    "sha": "2222222222222222222222222222222222222222",
    "recipe": "benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh",
    "run": "200000001",
    "pr": "9100",
    "status": "verified",
    "date": "2026-11-25"
   },
   "points": [
    {
     "concs": [
      32
     ],
     "item": 2,
     "kv": "hicache"
    },
    {
     "concs": [
      32
     ],
     "item": 0,
     "kv": "hicache"
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
         "--trust-remote-code"
        ],
        [
         "--tensor-parallel-size",
         "4"
        ],
        [
         "--attention-backend",
         "trtllm_mha"
        ],
        [
         "--mem-fraction-static",
         "0.85"
        ],
        [
         "--context-length",
         "262144"
        ],
        [
         "--cuda-graph-max-bs",
         "32"
        ],
        [
         "--scheduler-recv-interval",
         "30"
        ],
        [
         "--speculative-algorithm",
         "EAGLE"
        ],
        [
         "--speculative-num-steps",
         "3"
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
         "--reasoning-parser",
         "qwen3"
        ],
        [
         "--tool-call-parser",
         "qwen3_coder"
        ],
        [
         "--enable-hierarchical-cache"
        ],
        [
         "--hicache-ratio",
         "2"
        ],
        [
         "--hicache-write-policy",
         "write_through"
        ]
       ]
      }
     ]
    }
   }
  },
  {
   "id": "qwen3.5-fp8-b200-sglang-agentic-mtp#3",
   "hw": "b200",
   "ckpt": "Qwen/Qwen3.5-397B-A17B-FP8",
   "label": "Agg TP8",
   "detail": "MTP 3-1-4 · conc 128",
   "gpus": 8,
   "configKey": "qwen3.5-fp8-b200-sglang-agentic-mtp",
   "image": "lmsysorg/sglang:v0.5.16-cu130",
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
    "sha": "2222222222222222222222222222222222222222",
    "recipe": "benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh",
    "run": "200000001",
    "pr": "9100",
    "status": "verified",
    "date": "2026-11-25"
   },
   "points": [
    {
     "concs": [
      128
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
       "kind": "worker",
       "role": "agg",
       "workers": 1,
       "cmd": "python3 -m sglang.launch_server",
       "env": {
        "NCCL_NVLS_ENABLE": "1",
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
         "--trust-remote-code"
        ],
        [
         "--tensor-parallel-size",
         "8"
        ],
        [
         "--attention-backend",
         "trtllm_mha"
        ],
        [
         "--mem-fraction-static",
         "0.85"
        ],
        [
         "--context-length",
         "262144"
        ],
        [
         "--cuda-graph-max-bs",
         "128"
        ],
        [
         "--scheduler-recv-interval",
         "30"
        ],
        [
         "--speculative-algorithm",
         "EAGLE"
        ],
        [
         "--speculative-num-steps",
         "3"
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
         "--reasoning-parser",
         "qwen3"
        ],
        [
         "--tool-call-parser",
         "qwen3_coder"
        ]
       ]
      }
     ]
    }
   }
  },
  {
   "id": "qwen3.5-fp4-b200-sglang-agentic-mtp#0",
   "hw": "b200",
   "ckpt": "Qwen/Qwen3.5-397B-A17B-FP8",
   "label": "Agg TP4",
   "detail": "MTP 3-1-4",
   "gpus": 4,
   "configKey": "qwen3.5-fp4-b200-sglang-agentic-mtp",
   "image": "lmsysorg/sglang:v0.5.16-cu130",
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
    "sha": "2222222222222222222222222222222222222222",
    "recipe": "benchmarks/single_node/agentic/qwen3.5_fp4_b200_sglang_mtp.sh",
    "run": "200000001",
    "pr": "9100",
    "status": "verified",
    "date": "2026-11-25"
   },
   "points": [
    {
     "concs": [
      4
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
       "kind": "worker",
       "role": "agg",
       "workers": 1,
       "cmd": "python3 -m sglang.launch_server",
       "env": {
        "NCCL_NVLS_ENABLE": "1",
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
         "--trust-remote-code"
        ],
        [
         "--tensor-parallel-size",
         "4"
        ],
        [
         "--attention-backend",
         "trtllm_mha"
        ],
        [
         "--mem-fraction-static",
         "0.85"
        ],
        [
         "--context-length",
         "262144"
        ],
        [
         "--cuda-graph-max-bs",
         "4"
        ],
        [
         "--scheduler-recv-interval",
         "10"
        ],
        [
         "--speculative-algorithm",
         "EAGLE"
        ],
        [
         "--speculative-num-steps",
         "3"
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
         "--reasoning-parser",
         "qwen3"
        ],
        [
         "--tool-call-parser",
         "qwen3_coder"
        ]
       ]
      }
     ]
    }
   }
  },
  {
   "id": "qwen3.5-fp8-b200-sglang-agentic-mtp-retired#0",
   "hw": "b200",
   "ckpt": "Qwen/Qwen3.5-397B-A17B-FP8",
   "label": "Agg TP8",
   "detail": "MTP 3-1-4",
   "gpus": 8,
   "configKey": "qwen3.5-fp8-b200-sglang-agentic-mtp-retired",
   "image": "lmsysorg/sglang:v0.5.16-cu130",
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
    "sha": "2222222222222222222222222222222222222222",
    "recipe": "benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh",
    "run": "200000001",
    "pr": "9100",
    "status": "verified",
    "date": "2026-11-25"
   },
   "points": [
    {
     "concs": [
      4
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
       "kind": "worker",
       "role": "agg",
       "workers": 1,
       "cmd": "python3 -m sglang.launch_server",
       "env": {
        "NCCL_NVLS_ENABLE": "1",
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
         "--trust-remote-code"
        ],
        [
         "--tensor-parallel-size",
         "8"
        ],
        [
         "--attention-backend",
         "trtllm_mha"
        ],
        [
         "--mem-fraction-static",
         "0.85"
        ],
        [
         "--context-length",
         "262144"
        ],
        [
         "--cuda-graph-max-bs",
         "4"
        ],
        [
         "--scheduler-recv-interval",
         "10"
        ],
        [
         "--speculative-algorithm",
         "EAGLE"
        ],
        [
         "--speculative-num-steps",
         "3"
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
         "--reasoning-parser",
         "qwen3"
        ],
        [
         "--tool-call-parser",
         "qwen3_coder"
        ]
       ]
      }
     ]
    }
   }
  }
 ]
};
