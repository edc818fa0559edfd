package shellutil

import (
	"errors"
	"fmt"
	"github.com/cookbook-sync/cookbook-sync/internal/fuzzbound"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"time"
)

// scriptCases are command lines taken from the InferenceX scripts
// (checkout 843c6254 unless a commit is named: "commit:path:line"), each
// with an input shaped like what the real tool or pipeline stage receives
// there. Every expected stdout and status was captured once from gawk
// 5.2.1, GNU coreutils 9.1, GNU sed 4.9, GNU grep 3.8 and GNU bc 1.07 run
// with LC_ALL=C TZ=UTC; no test runs those tools.
var scriptCases = []struct {
	where  string
	argv   []string
	stdin  string
	stdout string
	status int
}{
	{"benchmarks/benchmark_lib.sh:151", []string{"awk", "/^timestamp,/{if(!h){print;h=1};next} h{print;fflush()}"}, "AMDSMI preamble\ntimestamp,gpu,power\n1,0,750\ntimestamp,gpu,power\n2,0,751\n", "timestamp,gpu,power\n1,0,750\n2,0,751\n", 0},
	{"benchmarks/benchmark_lib.sh:242", []string{"seq", "1", "90"}, "", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n26\n27\n28\n29\n30\n31\n32\n33\n34\n35\n36\n37\n38\n39\n40\n41\n42\n43\n44\n45\n46\n47\n48\n49\n50\n51\n52\n53\n54\n55\n56\n57\n58\n59\n60\n61\n62\n63\n64\n65\n66\n67\n68\n69\n70\n71\n72\n73\n74\n75\n76\n77\n78\n79\n80\n81\n82\n83\n84\n85\n86\n87\n88\n89\n90\n", 0},
	{"benchmarks/benchmark_lib.sh:244", []string{"grep", "-oE", "GPU Memory Allocated \\(VRAM%\\): [0-9]+"}, "GPU[0]\t\t: GPU Memory Allocated (VRAM%): 3\nGPU[0]\t\t: GPU Memory Read/Write Activity (%): 0\nGPU[1]\t\t: GPU Memory Allocated (VRAM%): 45\nGPU[2]\t\t: GPU Memory Allocated (VRAM%): 7\n", "GPU Memory Allocated (VRAM%): 3\nGPU Memory Allocated (VRAM%): 45\nGPU Memory Allocated (VRAM%): 7\n", 0},
	{"benchmarks/benchmark_lib.sh:245", []string{"awk", "{if ($NF > m) m = $NF} END {print m+0}"}, "GPU Memory Allocated (VRAM%): 3\nGPU Memory Allocated (VRAM%): 45\nGPU Memory Allocated (VRAM%): 7\n", "45\n", 0},
	{"benchmarks/benchmark_lib.sh:245 (no GPU lines)", []string{"awk", "{if ($NF > m) m = $NF} END {print m+0}"}, "", "0\n", 0},
	{"benchmarks/benchmark_lib.sh:212 (complete row)", []string{"grep", "-q", "^$"}, "\n", "", 0},
	{"benchmarks/benchmark_lib.sh:212 (truncated row)", []string{"grep", "-q", "^$"}, "7", "", 1},
	{"benchmarks/benchmark_lib.sh:1205", []string{"sed", "-n", "s/.*_\\([^_][^_]*\\)_\\([^_][^_]*\\)_tp.*/\\1 \\2/p"}, "dsr1_1k1k_fp8_sglang_tp8-ep8-dpa_conc64\n", "fp8 sglang\n", 0},
	{"benchmarks/benchmark_lib.sh:1359", []string{"tr", "-d", "[:space:]\"'"}, "\"ak-123 \n'\t", "ak-123", 0},
	{"benchmarks/benchmark_lib.sh:1801", []string{"grep", "-q", "--", "--break-system-packages"}, "  --break-system-packages  Allow pip to modify an EXTERNALLY-MANAGED Python installation\n", "", 0},
	{"benchmarks/single_node/fixed_seq_len/dsr1_fp8_mi300x.sh:28 (grep)", []string{"grep", "MEC"}, "GPU[0]\t\t: ME firmware version: \t\t54\nGPU[0]\t\t: MEC firmware version: \t177\nGPU[0]\t\t: MEC2 firmware version: \t177\n", "GPU[0]\t\t: MEC firmware version: \t177\nGPU[0]\t\t: MEC2 firmware version: \t177\n", 0},
	{"benchmarks/single_node/fixed_seq_len/dsr1_fp8_mi300x.sh:28 (head)", []string{"head", "-n", "1"}, "GPU[0]\t\t: MEC firmware version: \t177\nGPU[0]\t\t: MEC2 firmware version: \t177\n", "GPU[0]\t\t: MEC firmware version: \t177\n", 0},
	{"benchmarks/single_node/fixed_seq_len/dsr1_fp8_mi300x.sh:28 (awk)", []string{"awk", "{print $NF}"}, "GPU[0]\t\t: MEC firmware version: \t177\n", "177\n", 0},
	{"benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_trt.sh:88", []string{"seq", "256", "256", "1024"}, "", "256\n512\n768\n1024\n", 0},
	{"benchmarks/single_node/agentic/glm5.2_fp4_b200_sglang_mtp.sh:144 (over cap)", []string{"awk", "-v", "s=1200", "-v", "cap=1000", "BEGIN { exit !(s > cap) }"}, "", "", 0},
	{"benchmarks/single_node/agentic/glm5.2_fp4_b200_sglang_mtp.sh:144 (numeric, not string, compare)", []string{"awk", "-v", "s=900", "-v", "cap=1000", "BEGIN { exit !(s > cap) }"}, "", "", 1},
	{"benchmarks/single_node/agentic/glm5.2_fp4_b200_sglang_mtp.sh:158", []string{"awk", "-v", "s=0", "BEGIN { exit !(s > 0) }"}, "", "", 1},
	{"benchmarks/single_node/agentic/glm5.2_fp4_b200_sglang_mtp.sh:158 (unset)", []string{"awk", "-v", "s=", "BEGIN { exit !(s > 0) }"}, "", "", 1},
	{"benchmarks/single_node/agentic/glm5.2_fp4_b200_sglang_mtp.sh:162", []string{"awk", "-v", "r=0.95", "-v", "cap=0.5", "BEGIN { exit !(r > cap) }"}, "", "", 0},
	{"benchmarks/single_node/agentic/glm5.2_fp4_b300_sglang_mtp.sh:80", []string{"awk", "-v", "s=-1", "-v", "cap=1000", "BEGIN { exit !(s <= 0 || s > cap) }"}, "", "", 0},
	{"benchmarks/single_node/agentic/glm5.2_fp4_b300_sglang_mtp.sh:80 (in range)", []string{"awk", "-v", "s=512", "-v", "cap=1000", "BEGIN { exit !(s <= 0 || s > cap) }"}, "", "", 1},
	{"benchmarks/single_node/agentic/glm5.2_fp4_mi355x_atom_mtp.sh:140", []string{"awk", "BEGIN{print (3.2-1)/3}"}, "", "0.733333\n", 0},
	{"benchmarks/single_node/agentic/glm5.2_fp4_mi355x_atom_mtp.sh:140 (integral)", []string{"awk", "BEGIN{print (4-1)/3}"}, "", "1\n", 0},
	{"benchmarks/single_node/agentic/glm5.2_fp4_mi355x_atom_mtp.sh:140 (variables unset)", []string{"awk", "BEGIN{print (-1)/}"}, "", "", 1},
	{"benchmarks/single_node/agentic/kimik3_fp4_mi355x_mtp.sh:177", []string{"seq", "-s,", "1", "8"}, "", "1,2,3,4,5,6,7,8\n", 0},
	{"benchmarks/single_node/agentic/minimaxm3_fp4_b200_trt_mtp.sh:75", []string{"seq", "14", "2", "24"}, "", "14\n16\n18\n20\n22\n24\n", 0},
	{"benchmarks/single_node/agentic/minimaxm3_fp4_b200_trt_mtp.sh:85", []string{"seq", "2", "3", "14"}, "", "2\n5\n8\n11\n14\n", 0},
	{"benchmarks/single_node/agentic/dsv4_fp4_b200_vllm_mtp.sh:272 (sort)", []string{"sort", "-n", "-u"}, "8\n16\n1\n8\n2\n16\n", "1\n2\n8\n16\n", 0},
	{"benchmarks/single_node/agentic/dsv4_fp4_b200_vllm_mtp.sh:272 (paste)", []string{"paste", "-sd,", "-"}, "1\n2\n8\n16\n", "1,2,8,16\n", 0},
	{"benchmarks/single_node/agentic/dsv4_fp4_b200_sglang_mtp.sh:216", []string{"grep", "-E", "^SGLANG_"}, "PATH=/usr/bin\nSGLANG_USE_CUTE_DSL=1\nMY_SGLANG_X=2\nSGLANG_A=3\n", "SGLANG_USE_CUTE_DSL=1\nSGLANG_A=3\n", 0},
	{"benchmarks/single_node/agentic/dsv4_fp4_b200_sglang_mtp.sh:216 (sort)", []string{"sort"}, "SGLANG_b=1\nSGLANG_A=3\nSGLANG_B=2\n", "SGLANG_A=3\nSGLANG_B=2\nSGLANG_b=1\n", 0},
	{"benchmarks/single_node/agentic/dsv4_fp4_b200_sglang_mtp.sh:229", []string{"grep", "-E", "^(sglang:(cache_hit_rate|cached_tokens_total|prompt_tokens_total|hicache_host_used_tokens|hicache_host_total_tokens|token_usage|num_requests_running|num_requests_waiting))"}, "# HELP sglang:token_usage x\nsglang:token_usage{model=\"m\"} 0.25\nsglang:gen_throughput 10\nsglang:num_requests_running 3\n", "sglang:token_usage{model=\"m\"} 0.25\nsglang:num_requests_running 3\n", 0},
	{"benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_mtp.sh:104 (tail)", []string{"tail", "-1"}, " Avail\n  900G\n", "  900G\n", 0},
	{"benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_mtp.sh:104 (tr)", []string{"tr", "-dc", "0-9"}, "  900G\n", "900", 0},
	{"benchmarks/multi_node/amd_utils/env.sh:39 (grep)", []string{"grep", "hca_id:"}, "hca_id:\tionic_0\n\ttransport: InfiniBand (0)\nhca_id:\tionic_1\n", "hca_id:\tionic_0\nhca_id:\tionic_1\n", 0},
	{"benchmarks/multi_node/amd_utils/env.sh:39 (awk)", []string{"awk", "{print $2}"}, "hca_id:\tionic_0\nhca_id:\tionic_1\n", "ionic_0\nionic_1\n", 0},
	{"benchmarks/multi_node/amd_utils/env.sh:39 (paste)", []string{"paste", "-sd,"}, "ionic_0\nionic_1\n", "ionic_0,ionic_1\n", 0},
	{"benchmarks/multi_node/amd_utils/env.sh:55 (grep)", []string{"grep", "^default"}, "default via 10.1.0.1 dev enp1s0 proto dhcp\n10.1.0.0/16 dev enp1s0\n", "default via 10.1.0.1 dev enp1s0 proto dhcp\n", 0},
	{"benchmarks/multi_node/amd_utils/env.sh:55 (awk)", []string{"awk", "{print $5}"}, "default via 10.1.0.1 dev enp1s0 proto dhcp\n", "enp1s0\n", 0},
	{"benchmarks/multi_node/amd_utils/env.sh:81", []string{"awk", "/PFC no-drop priorities/ {print $NF; exit}"}, "QoS\nPFC no-drop priorities : 3\nPFC no-drop priorities : 4\n", "3\n", 0},
	{"benchmarks/multi_node/amd_utils/env.sh:82", []string{"awk", "-v", "p=3", "\n$1 == \"DSCP\" && $2 == \":\" && $NF == p {\n    print $3; exit\n}"}, "DSCP : 10 ==> priority : 0\nDSCP : 24 ==> priority : 3\nDSCP : 26 ==> priority : 3\n", "24\n", 0},
	{"benchmarks/multi_node/amd_utils/env.sh:147", []string{"awk", "-F: ", "/tw-eth/{print $2}"}, "1: lo: <LOOPBACK,UP>\n2: tw-eth0: <BROADCAST,UP>\n3: tw-eth1: <BROADCAST>\n", "tw-eth0\ntw-eth1\n", 0},
	{"benchmarks/multi_node/amd_utils/env.sh:151", []string{"cut", "-d,", "-f1"}, "ionic_0,ionic_1\n", "ionic_0\n", 0},
	{"benchmarks/multi_node/amd_utils/server_atom.sh:72", []string{"awk", "/src/ {print $7}"}, "1.1.1.1 via 10.1.0.1 dev enp1s0 src 10.1.2.3 uid 0\n    cache\n", "10.1.2.3\n", 0},
	{"benchmarks/multi_node/amd_utils/server_sglang.sh:37 (tr)", []string{"tr", "x", "\\n"}, "4x64x16\n", "4\n64\n16\n", 0},
	{"benchmarks/multi_node/amd_utils/server_sglang.sh:37 (sort)", []string{"sort", "-n"}, "4\n64\n16\n\n", "\n4\n16\n64\n", 0},
	{"benchmarks/multi_node/amd_utils/server_sglang.sh:37 (tail)", []string{"tail", "-1"}, "\n4\n16\n64\n", "64\n", 0},
	{"benchmarks/multi_node/amd_utils/server_sglang.sh:201", []string{"seq", "1", "8"}, "", "1\n2\n3\n4\n5\n6\n7\n8\n", 0},
	{"benchmarks/multi_node/amd_utils/server_sglang.sh:355", []string{"sed", "-E", "s/--disaggregation-transfer-backend[[:space:]]+[^[:space:]]+//g"}, "--tp 8 --disaggregation-transfer-backend  mori --page-size 1\n", "--tp 8  --page-size 1\n", 0},
	{"benchmarks/multi_node/amd_utils/server_sglang.sh:593", []string{"sed", "s/--ep-dispatch-algorithm fake//g"}, "--moe-a2a-backend mori --ep-dispatch-algorithm fake --x\n", "--moe-a2a-backend mori  --x\n", 0},
	{"benchmarks/multi_node/amd_utils/server_sglang.sh:765", []string{"tr", "-d", " "}, "  12345\n", "12345\n", 0},
	{"benchmarks/multi_node/amd_utils/server_sglang.sh:851", []string{"sed", "-u", "-r", "s/\\x1b\\[[0-9;]*[a-zA-Z]//g"}, "\x1b[32mINFO\x1b[0m router ready\n", "INFO router ready\n", 0},
	{"benchmarks/multi_node/amd_utils/server_vllm.sh:59 (tr)", []string{"tr", " ", "\\n"}, "10.1.2.3 192.168.7.8 \n", "10.1.2.3\n192.168.7.8\n\n", 0},
	{"benchmarks/multi_node/amd_utils/server_vllm.sh:59 (grep)", []string{"grep", "^192\\.168\\."}, "10.1.2.3\n192.168.7.8\n192x168.1.1\n", "192.168.7.8\n", 0},
	{"benchmarks/multi_node/amd_utils/server_vllm.sh:79", []string{"awk", "-v", "ip=192.168.7.8", "$4 ~ ip {print $2}"}, "2: eth0    inet 10.1.2.3/16 brd\n5: rdma0    inet 192.168.7.8/24 brd\n", "rdma0\n", 0},
	{"benchmarks/multi_node/amd_utils/server_vllm.sh:160", []string{"grep", "-q", "--", "--tensor-parallel-size"}, "--tensor-parallel-size 8 --enable-expert-parallel\n", "", 0},
	{"benchmarks/multi_node/amd_utils/server_vllm.sh:161", []string{"sed", "-E", "s/--tensor-parallel-size[[:space:]]+[0-9]+/--tensor-parallel-size 4/g"}, "--tensor-parallel-size 8 --enable-expert-parallel\n", "--tensor-parallel-size 4 --enable-expert-parallel\n", 0},
	{"benchmarks/multi_node/amd_utils/server_vllm.sh:173", []string{"grep", "-q", "--", "--enable-expert-parallel"}, "--tensor-parallel-size 8\n", "", 1},
	{"benchmarks/multi_node/amd_utils/trace_replay.sh:75", []string{"grep", "-qi", "Cache flushed"}, "{\"message\":\"cache FLUSHED\"}\n", "", 0},
	{"benchmarks/multi_node/amd_utils/submit.sh:279", []string{"wc", "-l"}, "node1\nnode2\nnode3\n", "3\n", 0},
	{"runners/launch_b200-cw.sh:19", []string{"sed", "s/[\\/:@#]/_/g"}, "lmsysorg/sglang:v0.5.9-cu130@sha256:abc\n", "lmsysorg_sglang_v0.5.9-cu130_sha256_abc\n", 0},
	{"runners/launch_b200-cw.sh:37", []string{"grep", "-oP", "Granted job allocation \\K[0-9]+"}, "salloc: Pending job allocation 4242\nsalloc: Granted job allocation 4242\n", "4242\n", 0},
	{"runners/launch_b200-dgxc-slurm.sh:382", []string{"grep", "-oP", "✅ Job \\K[0-9]+"}, "Submitting...\n✅ Job 31337 submitted\n", "31337\n", 0},
	{"runners/launch_b200-dgxc-slurm.sh:382 (fallback)", []string{"grep", "-oP", "Job \\K[0-9]+"}, "Job 7 queued; Job 8 queued\n", "7\n8\n", 0},
	{"runners/launch_b200-dgxc-slurm.sh:461", []string{"sed", "-n", "s/results_concurrency_\\([0-9]*\\)_gpus_.*/\\1/p"}, "results_concurrency_64_gpus_8_ctx_1_gen_4.json\n", "64\n", 0},
	{"runners/launch_b200-dgxc-slurm.sh:462", []string{"sed", "-n", "s/results_concurrency_[0-9]*_gpus_\\([0-9][0-9]*\\).*/\\1/p"}, "results_concurrency_64_gpus_8_ctx_1_gen_4.json\n", "8\n", 0},
	{"runners/launch_b200-dgxc-slurm.sh:463", []string{"sed", "-n", "s/.*_ctx_\\([0-9]*\\)_gen_.*/\\1/p"}, "results_concurrency_64_gpus_8_ctx_1_gen_4.json\n", "1\n", 0},
	{"runners/launch_b200-dgxc-slurm.sh:464", []string{"sed", "-n", "s/.*_gen_\\([0-9]*\\)\\.json/\\1/p"}, "results_concurrency_64_gpus_8_ctx_1_gen_4.json\n", "4\n", 0},
	{"runners/launch_b200-dgxc-slurm.sh:547", []string{"head", "-n1"}, "1234\n1235\n", "1234\n", 0},
	{"runners/launch_h100-dgxc-slurm.sh:89", []string{"sed", "s|nvcr.io/|nvcr.io#|"}, "nvcr.io/nvidia/sglang:25.01\n", "nvcr.io#nvidia/sglang:25.01\n", 0},
	{"runners/launch_h100-dgxc-slurm.sh:90 (first sed)", []string{"sed", "s|nvcr.io/||"}, "nvcr.io/nvidia/sglang:25.01\n", "nvidia/sglang:25.01\n", 0},
	{"runners/launch_h100-dgxc-slurm.sh:90 (second sed)", []string{"sed", "s/[\\/:@#]/+/g"}, "nvidia/sglang:25.01\n", "nvidia+sglang+25.01\n", 0},
	{"runners/launch_h200-dgxc-slurm.sh:146", []string{"sed", "s/#/\\//g"}, "nvcr.io#nvidia/sglang:25.01\n", "nvcr.io/nvidia/sglang:25.01\n", 0},
	{"runners/launch_gb300-nv.sh:204 (sha1sum)", []string{"sha1sum"}, "gb300-nv", "9ce4c7eaaa3523cd173f49529867c1caf4713a9f  -\n", 0},
	{"runners/launch_gb300-nv.sh:204 (cut)", []string{"cut", "-c1-12"}, "9ce4c7eaaa3523cd173f49529867c1caf4713a9f  -\n", "9ce4c7eaaa35\n", 0},
	{"runners/launch_h100-cr.sh:14", []string{"seq", "-s,", "0", "7"}, "", "0,1,2,3,4,5,6,7\n", 0},
	{"runners/launch_mi355x-amds.sh:68", []string{"tail", "-100"}, "line 0\nline 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\nline 11\nline 12\nline 13\nline 14\nline 15\nline 16\nline 17\nline 18\nline 19\nline 20\nline 21\nline 22\nline 23\nline 24\nline 25\nline 26\nline 27\nline 28\nline 29\nline 30\nline 31\nline 32\nline 33\nline 34\nline 35\nline 36\nline 37\nline 38\nline 39\nline 40\nline 41\nline 42\nline 43\nline 44\nline 45\nline 46\nline 47\nline 48\nline 49\nline 50\nline 51\nline 52\nline 53\nline 54\nline 55\nline 56\nline 57\nline 58\nline 59\nline 60\nline 61\nline 62\nline 63\nline 64\nline 65\nline 66\nline 67\nline 68\nline 69\nline 70\nline 71\nline 72\nline 73\nline 74\nline 75\nline 76\nline 77\nline 78\nline 79\nline 80\nline 81\nline 82\nline 83\nline 84\nline 85\nline 86\nline 87\nline 88\nline 89\nline 90\nline 91\nline 92\nline 93\nline 94\nline 95\nline 96\nline 97\nline 98\nline 99\nline 100\nline 101\nline 102\nline 103\nline 104\n", "line 5\nline 6\nline 7\nline 8\nline 9\nline 10\nline 11\nline 12\nline 13\nline 14\nline 15\nline 16\nline 17\nline 18\nline 19\nline 20\nline 21\nline 22\nline 23\nline 24\nline 25\nline 26\nline 27\nline 28\nline 29\nline 30\nline 31\nline 32\nline 33\nline 34\nline 35\nline 36\nline 37\nline 38\nline 39\nline 40\nline 41\nline 42\nline 43\nline 44\nline 45\nline 46\nline 47\nline 48\nline 49\nline 50\nline 51\nline 52\nline 53\nline 54\nline 55\nline 56\nline 57\nline 58\nline 59\nline 60\nline 61\nline 62\nline 63\nline 64\nline 65\nline 66\nline 67\nline 68\nline 69\nline 70\nline 71\nline 72\nline 73\nline 74\nline 75\nline 76\nline 77\nline 78\nline 79\nline 80\nline 81\nline 82\nline 83\nline 84\nline 85\nline 86\nline 87\nline 88\nline 89\nline 90\nline 91\nline 92\nline 93\nline 94\nline 95\nline 96\nline 97\nline 98\nline 99\nline 100\nline 101\nline 102\nline 103\nline 104\n", 0},
	{"d04b625bb:benchmarks/benchmark_lib.sh:128", []string{"awk", "/MemTotal/{printf \"%.0f\", $2/1048576}"}, "MemTotal:       3170079744 kB\nMemFree:        3000000000 kB\n", "3023", 0},
	{"9e97721bf:together_runner/run_sglang_0_preflight.sh:41", []string{"awk", "$1>2000{c++} END{print c+0}"}, "0\n0\n81000\n3\n", "1\n", 0},
	{"2fd0af61d:benchmarks/benchmark_lib.sh:41", []string{"bc"}, "scale=4; (1767225900 - 1767225600) / 60\n", "5.0000\n", 0},
	{"c0ccf8fe9:benchmarks/dsr1_fp4_b200_trt_mtp_slurm.sh:71 (bc)", []string{"bc"}, "1024 * (1 + 0.8)\n", "1843.2\n", 0},
	{"c0ccf8fe9:benchmarks/dsr1_fp4_b200_trt_mtp_slurm.sh:71 (cut)", []string{"cut", "-d.", "-f1"}, "1843.2\n", "1843\n", 0},
	{"9e97721bf:together_runner/run_sglang_0_preflight.sh:36", []string{"grep", "-c", "^GPU"}, "GPU 0: NVIDIA B200 (UUID: GPU-1)\nGPU 1: NVIDIA B200 (UUID: GPU-2)\n", "2\n", 0},
	{"awk printf C semantics", []string{"awk", "BEGIN{printf \"%5.3x|%-#8o|%08.3f|%+.2e|%#g|%g|%g|%.0e|% 05d|%-05d|%c%c|%s|%5s|%.2s|%%\\n\", 10, 8, -3.14159, 12345, 1.5, 1e-5, 123456789, 15000, 42, 42, 65, \"hi\", 3.5, \"a\", \"xyz\"}"}, "", "  00a|010     |-003.142|+1.23e+04|1.50000|1e-05|1.23457e+08|2e+04| 0042|42   |Ah|3.5|    a|xy|%\n", 0},
	{"awk number output", []string{"awk", "BEGIN{print 1e30, 100000*100000, 0.1+0.2, 1/3, 2^53+1, 1e-7, 010, 0x1A}"}, "", "1000000000000000019884624838656 10000000000 0.3 0.333333 9007199254740992 1e-07 8 26\n", 0},
	{"awk fields and NF", []string{"awk", "{$5=\"e\"; print; print NF; NF=2; print}"}, "a b c\n", "a b c  e\n5\na b\n", 0},
	{"awk strnum comparison", []string{"awk", "{print ($1<$2)}"}, "2 10\nabc abd\n10 9.5\n1e2 99\n", "1\n1\n0\n0\n", 0},
	{"awk substr (gawk 5.2)", []string{"awk", "BEGIN{print substr(\"hello\",0,2), substr(\"hello\",-1,3), substr(\"hello\",1.9,2.9), substr(\"hello\", 2)}"}, "", "he hel he ello\n", 0},
	{"awk sub/gsub/match", []string{"awk", "BEGIN{s=\"foo.bar.baz\"; n=gsub(/\\./, \"/\", s); print n, s; t=\"aaa\"; print gsub(/x*/, \"-\", t), t; u=\"hello\"; sub(/l+/, \"[&]\", u); print u; print match(\"foobar\", /o+/), RSTART, RLENGTH}"}, "", "2 foo/bar/baz\n4 -a-a-a-\nhe[ll]o\n2 2 2\n", 0},
	{"awk exit status modulo 256", []string{"awk", "BEGIN { exit 300 }"}, "", "", 44},
	{"awk exit runs END", []string{"awk", "BEGIN { exit 3 } END { print \"end\" }"}, "", "end\n", 3},
	{"awk division by zero", []string{"awk", "BEGIN { print 1/0 }"}, "", "", 1},
	{"awk missing printf argument", []string{"awk", "BEGIN { printf \"%d %d\\n\", 1 }"}, "", "", 2},
	{"seq empty", []string{"seq", "5", "1"}, "", "", 0},
	{"seq equal width", []string{"seq", "-w", "8", "10"}, "", "08\n09\n10\n", 0},
	{"seq zero increment", []string{"seq", "1", "0", "3"}, "", "", 1},
	{"seq bad operand", []string{"seq", ""}, "", "", 1},
	{"tr classes", []string{"tr", "[:upper:]", "[:lower:]"}, "HeLLo\n", "hello\n", 0},
	{"tr squeeze", []string{"tr", "-s", " "}, "a   b  c\n", "a b c\n", 0},
	{"sort keys", []string{"sort", "-t,", "-k2n"}, "x,10\ny,9\nz,100\n", "y,9\nx,10\nz,100\n", 0},
	{"uniq -c", []string{"uniq", "-c"}, "a\na\nb\na\n", "      2 a\n      1 b\n      1 a\n", 0},
	{"head all but last", []string{"head", "-n", "-1"}, "a\nb\nc\n", "a\nb\n", 0},
	{"tail from line", []string{"tail", "-n", "+2"}, "a\nb\nc\n", "b\nc\n", 0},
	{"wc default", []string{"wc"}, "a b\nc\n", "      2       3       6\n", 0},
	{"cut complement", []string{"cut", "-d,", "--complement", "-f2"}, "a,b,c\n", "a,c\n", 0},
	{"sed range", []string{"sed", "-n", "/elif/,/input/p"}, "x\nelif a\ny\ninput b\nz\n", "elif a\ny\ninput b\n", 0},
	{"sed last line without newline", []string{"sed", "$d"}, "a\nb\nc", "a\nb\n", 0},
	{"sed nth occurrence", []string{"sed", "s/a/b/2g"}, "aaaa\n", "abbb\n", 0},
	{"sed q", []string{"sed", "2q"}, "1\n2\n3\n", "1\n2\n", 0},
	{"sed syntax error", []string{"sed", "s/a/b"}, "a\n", "", 1},
	{"grep -c with -m", []string{"grep", "-m", "1", "-c", "."}, "a\nb\n", "1\n", 0},
	{"grep no match", []string{"grep", "-c", "x"}, "a\nb\n", "0\n", 1},
	{"grep -x", []string{"grep", "-x", "ab"}, "ab\nabc\n", "ab\n", 0},
	{"expr arithmetic", []string{"expr", "(", "1", "+", "2", ")", "*", "3"}, "", "9\n", 0},
	{"expr match group", []string{"expr", "abc", ":", "a\\(.\\)"}, "", "b\n", 0},
	{"expr null result", []string{"expr", "3", "&", "0"}, "", "0\n", 1},
	{"expr division by zero", []string{"expr", "1", "/", "0"}, "", "", 2},
	{"basename suffix", []string{"basename", "/a/b/c.sh", ".sh"}, "", "c\n", 0},
	{"dirname trailing slashes", []string{"dirname", "a//b//"}, "", "a\n", 0},
	{"bc scale rules", []string{"bc"}, "scale=2; 1/3; -1/3; 0.5*3; 2^-1; scale=3; 10%3; 7.5%2\n", ".33\n-.33\n1.5\n.50\n.001\n0\n", 0},
	{"bc long output", []string{"bc"}, "2^300\n", "20370359763344860862684456884093781610514683936659362506361404493543\\\n81299763336706183397376\n", 0},
}

func TestRunScriptCommands(t *testing.T) {
	f, ok := FactsFor("b200")
	if !ok {
		t.Fatal("FactsFor(b200) not ok")
	}
	for _, tc := range scriptCases {
		res, handled, reason := Run(tc.argv, []byte(tc.stdin), f)
		if !handled {
			t.Errorf("%s: %q unhandled: %s", tc.where, tc.argv, reason)
			continue
		}
		if string(res.Stdout) != tc.stdout || res.Status != tc.status {
			t.Errorf("%s: %q\n got %q status %d\nwant %q status %d", tc.where, tc.argv, res.Stdout, res.Status, tc.stdout, tc.status)
		}
	}
}

// TestUnhandled lists forms found in the scripts (and a few nearby ones)
// that are refused: answering them would need a process, a file, the
// network, live hardware readings or a feature not implemented.
func TestUnhandled(t *testing.T) {
	f, _ := FactsFor("b200")
	amd, _ := FactsFor("mi355x")
	for _, tc := range []struct {
		where  string
		argv   []string
		facts  Facts
		reason string
	}{
		{"benchmark_lib.sh:139", []string{"nvidia-smi", "--query-gpu=timestamp,index,power.draw,temperature.gpu,clocks.current.sm,clocks.current.memory,utilization.gpu,utilization.memory", "--format=csv", "-l", "1"}, f, "nvidia-smi -l"},
		{"benchmark_lib.sh:187", []string{"nvidia-smi", "--query-gpu=timestamp,index,power.draw,temperature.gpu,clocks.current.sm,clocks.current.memory,utilization.gpu,utilization.memory", "--format=csv,noheader"}, f, `field "timestamp"`},
		{"fixed_seq_len/dsr1_fp4_b200.sh:29", []string{"nvidia-smi"}, f, "live readings"},
		{"benchmark_lib.sh:150", []string{"amd-smi", "metric", "-p", "-c", "-t", "-u", "-w", "1", "--csv"}, amd, "amd-smi metric"},
		{"agentic/dsv4_fp4_mi355x_sglang_mtp.sh:29", []string{"rocm-smi"}, amd, "rocm-smi"},
		{"agentic/dsv4_fp4_mi355x_sglang_mtp.sh:30", []string{"amd-smi"}, amd, "amd-smi"},
		{"fixed_seq_len/dsr1_fp8_mi300x.sh:28", []string{"rocm-smi", "--showfw"}, amd, "MEC firmware"},
		{"benchmark_lib.sh:423", []string{"tail", "-f", "-n", "+1", "server.log"}, f, "following"},
		{"launch_b200-dgxc-slurm.sh:420", []string{"tail", "-F", "-s", "2", "-n+1", "job.log", "--pid=42"}, f, "following"},
		{"apply_k3_container_patches.sh:1232", []string{"awk", "-v", "A=a.diff", "-v", "B=b.diff", "/^diff --git /{p=$0}\n{ if (a) print > A; else if (b) print > B }", "pr.diff"}, f, "output redirection"},
		{"launch_b200-dgxc-slurm.sh:366", []string{"sed", "-i", `s/^name:.*/name: "r"/`, "config.yaml"}, f, "option -i"},
		{"sed y", []string{"sed", "y/ab/xy/"}, f, `sed command "y"`},
		{"server_vllm.sh:59", []string{"hostname", "-I"}, f, "hostname -I"},
		{"benchmark_lib.sh:1399", []string{"python3", "-c", "import minisweagent"}, f, "not a command"},
		{"benchmark_lib.sh:895", []string{"mktemp", "-d"}, f, "not a command"},
		{"apply_k3_container_patches.sh:1224", []string{"stat", "-c", "%s", "x.new"}, f, "not a command"},
		{"agentic/minimaxm3_fp4_mi355x_mtp.sh:104", []string{"df", "-BG", "--output=avail", "/dev/shm"}, f, "/dev/shm on b200 is not documented"},
		{"benchmark_lib.sh:1554 without a reader", []string{"awk", "/^dataset_path:[[:space:]]/{print $2; exit}", "cfg.yaml"}, f, "no file reader"},
		{"date -d", []string{"date", "-d", "tomorrow", "+%s"}, f, "only the current instant"},
		{"nproc (undocumented)", []string{"nproc"}, f, "CPU count"},
		{"free on a SKU whose clusters differ", []string{"free", "-g"}, f, "host memory"},
		{"grep back-reference", []string{"grep", `\(ab\)\1`}, f, "back-reference"},
		{"grep -P lookahead", []string{"grep", "-P", "(?=a)"}, f, "PCRE"},
		{"grep -w", []string{"grep", "-w", "ab"}, f, "option -w"},
		{"sed case conversion", []string{"sed", `s/.*/\U&/`}, f, "case conversion"},
		{"awk getline", []string{"awk", `BEGIN { getline line < "/etc/hostname" }`}, f, "getline"},
		{"awk ENVIRON", []string{"awk", `BEGIN { print ENVIRON["HOME"] }`}, f, "ENVIRON"},
		{"awk user function", []string{"awk", "function f(x) { return x } BEGIN { print f(1) }"}, f, "user-defined"},
		{"awk for-in order", []string{"awk", "BEGIN { a[1]; a[2]; for (k in a) print k }"}, f, "hash order"},
		{"seq non-integer", []string{"seq", "0", "0.5", "2"}, f, "non-integer"},
		{"seq output over 1 MiB", []string{"seq", "1", "1000000"}, f, "output exceeds"},
		{"awk endless loop", []string{"awk", "BEGIN { while (1) x++ }"}, f, "step budget"},
		{"tr repeat construct", []string{"tr", "a", "[x*3]"}, f, "repeat"},
		{"bc -l", []string{"bc", "-l"}, f, "math library"},
		{"empty argv", nil, f, "empty command"},
	} {
		res, handled, reason := Run(tc.argv, []byte("a\n"), tc.facts)
		if handled {
			t.Errorf("%s: %q handled (stdout %q, status %d); want refused", tc.where, tc.argv, res.Stdout, res.Status)
			continue
		}
		if !strings.Contains(reason, tc.reason) {
			t.Errorf("%s: reason %q does not mention %q", tc.where, reason, tc.reason)
		}
	}
}

func TestFactsFor(t *testing.T) {
	for _, tc := range []struct {
		runner               string
		sku, cluster, vendor string
		name                 string
		gpus, memMiB, memGB  int
		hostKiB              int64
	}{
		{"h100", "h100", "", "nvidia", "NVIDIA H100 80GB HBM3", 8, 81559, 80, 0},
		{"cluster:h100-dgxc", "h100", "h100-dgxc", "nvidia", "NVIDIA H100 80GB HBM3", 8, 81559, 80, 2_063_837 * 1024},
		{"h200", "h200", "", "nvidia", "NVIDIA H200", 8, 0, 141, 0},
		{"b200", "b200", "", "nvidia", "NVIDIA B200", 8, 0, 180, 0},
		{"b200-nscale", "b200", "b200-nscale", "nvidia", "NVIDIA B200", 8, 0, 180, 2_063_920 * 1024},
		{"b300", "b300", "b300-nv", "nvidia", "", 8, 0, 268, 2_964_436 * 1024},
		{"gb200", "gb200", "gb200-nv", "nvidia", "NVIDIA GB200", 4, 189471, 192, 860_160 * 1024},
		{"gb300", "gb300", "gb300-nv", "nvidia", "", 4, 0, 288, 860_160 * 1024},
		{"rtx6000pro", "rtx6000pro", "rtx6000pro-lat", "nvidia", "", 8, 0, 96, 1_500_000 * 1024},
		{"mi300x", "mi300x", "", "amd", "", 8, 0, 192, 0},
		{"cluster:mi300x-tw", "mi300x", "mi300x-tw", "amd", "", 8, 0, 192, 2_322_328 * 1024},
		{"mi325x", "mi325x", "mi325x-amds", "amd", "", 8, 0, 256, 3_091_589 * 1024},
		{"MI355X", "mi355x", "mi355x-amds", "amd", "", 8, 0, 288, 3_095_781 * 1024},
	} {
		f, ok := FactsFor(tc.runner)
		if !ok {
			t.Errorf("FactsFor(%q) not ok", tc.runner)
			continue
		}
		if f.SKU != tc.sku || f.Cluster != tc.cluster || f.Vendor != tc.vendor || f.GPUName != tc.name ||
			f.GPUCount != tc.gpus || f.GPUMemMiB != tc.memMiB || f.GPUMemGB != tc.memGB || f.HostMemKiB != tc.hostKiB ||
			f.Hostname != DefaultHostname || f.CPUs != 0 || f.MECFirmware != 0 || !f.Now.IsZero() {
			t.Errorf("FactsFor(%q) = %+v", tc.runner, f)
		}
	}
	for _, bad := range []string{"", "a100", "cluster:b200-cw", "b200-unknown"} {
		if f, ok := FactsFor(bad); ok {
			t.Errorf("FactsFor(%q) = %+v, true; want false", bad, f)
		}
	}
}

func TestInstalled(t *testing.T) {
	nv, _ := FactsFor("gb300")
	amd, _ := FactsFor("mi325x")
	for _, tc := range []struct {
		name             string
		f                Facts
		installed, known bool
	}{
		{"nvidia-smi", nv, true, true},
		{"nvidia-smi", amd, false, true},
		{"rocm-smi", amd, true, true},
		{"amd-smi", nv, false, true},
		{"nvidia-smi", Facts{}, false, false},
		{"awk", nv, false, false},
	} {
		in, kn := Installed(tc.name, tc.f)
		if in != tc.installed || kn != tc.known {
			t.Errorf("Installed(%q, %s) = %v, %v; want %v, %v", tc.name, tc.f.SKU, in, kn, tc.installed, tc.known)
		}
	}
}

func run1(t *testing.T, f Facts, stdin string, argv ...string) Result {
	t.Helper()
	res, handled, reason := Run(argv, []byte(stdin), f)
	if !handled {
		t.Fatalf("%q unhandled: %s", argv, reason)
	}
	return res
}

func TestNvidiaSmi(t *testing.T) {
	gb200, _ := FactsFor("gb200")
	h100, _ := FactsFor("h100")
	amd, _ := FactsFor("mi300x")
	for _, tc := range []struct {
		where  string
		f      Facts
		argv   []string
		stdout string
		status int
	}{
		// f0be27940:production_designs/README.md:224 (| wc -l counts the GPUs)
		{"query name", gb200, []string{"nvidia-smi", "--query-gpu=name", "--format=csv,noheader"}, strings.Repeat("NVIDIA GB200\n", 4), 0},
		// 9e97721bf:together_runner/run_sglang_0_preflight.sh:41
		{"query memory.used", gb200, []string{"nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"}, "0\n0\n0\n0\n", 0},
		{"query with header and units", h100, []string{"nvidia-smi", "--query-gpu=index,name,memory.total,utilization.gpu", "--format=csv", "-i", "0,7"},
			"index, name, memory.total [MiB], utilization.gpu [%]\n0, NVIDIA H100 80GB HBM3, 81559 MiB, 0 %\n7, NVIDIA H100 80GB HBM3, 81559 MiB, 0 %\n", 0},
		{"query count", h100, []string{"nvidia-smi", "--query-gpu", "count", "--format=csv,noheader", "--id=3"}, "8\n", 0},
		{"bad id", h100, []string{"nvidia-smi", "--query-gpu=index", "--format=csv", "-i", "8"}, "", 6},
		// 9e97721bf:together_runner/run_sglang_0_preflight.sh:36 (| grep -c '^GPU')
		{"list", gb200, []string{"nvidia-smi", "-L"},
			"GPU 0: NVIDIA GB200 (UUID: GPU-00000000-0000-0000-0000-000000000000)\nGPU 1: NVIDIA GB200 (UUID: GPU-00000000-0000-0000-0000-000000000001)\n" +
				"GPU 2: NVIDIA GB200 (UUID: GPU-00000000-0000-0000-0000-000000000002)\nGPU 3: NVIDIA GB200 (UUID: GPU-00000000-0000-0000-0000-000000000003)\n", 0},
		{"compute apps on the idle node", h100, []string{"nvidia-smi", "--query-compute-apps=pid", "--format=csv,noheader"}, "", 0},
		// benchmark_lib.sh:137 "command -v nvidia-smi" fails on AMD; a direct call is the shell's 127.
		{"not installed on AMD", amd, []string{"nvidia-smi", "--query-gpu=name", "--format=csv,noheader"}, "", 127},
	} {
		res := run1(t, tc.f, "", tc.argv...)
		if string(res.Stdout) != tc.stdout || res.Status != tc.status {
			t.Errorf("%s: %q\n got %q status %d\nwant %q status %d", tc.where, tc.argv, res.Stdout, res.Status, tc.stdout, tc.status)
		}
	}
	b300, _ := FactsFor("b300")
	if _, handled, reason := Run([]string{"nvidia-smi", "--query-gpu=name", "--format=csv,noheader"}, nil, b300); handled || !strings.Contains(reason, "GPU name of b300") {
		t.Errorf("b300 name query: handled=%v reason=%q; want refused (name not documented)", handled, reason)
	}
	if _, handled, _ := Run([]string{"nvidia-smi", "-L"}, nil, Facts{}); handled {
		t.Error("nvidia-smi with unknown vendor handled")
	}
}

// rocmMemUse8 is `rocm-smi --showmemuse` on an idle 8-GPU node, in
// rocm_smi.py's layout (appWidth 90).
const rocmMemUse8 = "\n\n============================ ROCm System Management Interface ============================\n" +
	"=================================== Current Memory Use ===================================\n" +
	"GPU[0]\t\t: GPU Memory Allocated (VRAM%): 0\nGPU[0]\t\t: GPU Memory Read/Write Activity (%): 0\nGPU[0]\t\t: Memory Activity: N/A\nGPU[0]\t\t: Avg. Memory Bandwidth: 0\n" +
	"GPU[1]\t\t: GPU Memory Allocated (VRAM%): 0\nGPU[1]\t\t: GPU Memory Read/Write Activity (%): 0\nGPU[1]\t\t: Memory Activity: N/A\nGPU[1]\t\t: Avg. Memory Bandwidth: 0\n" +
	"GPU[2]\t\t: GPU Memory Allocated (VRAM%): 0\nGPU[2]\t\t: GPU Memory Read/Write Activity (%): 0\nGPU[2]\t\t: Memory Activity: N/A\nGPU[2]\t\t: Avg. Memory Bandwidth: 0\n" +
	"GPU[3]\t\t: GPU Memory Allocated (VRAM%): 0\nGPU[3]\t\t: GPU Memory Read/Write Activity (%): 0\nGPU[3]\t\t: Memory Activity: N/A\nGPU[3]\t\t: Avg. Memory Bandwidth: 0\n" +
	"GPU[4]\t\t: GPU Memory Allocated (VRAM%): 0\nGPU[4]\t\t: GPU Memory Read/Write Activity (%): 0\nGPU[4]\t\t: Memory Activity: N/A\nGPU[4]\t\t: Avg. Memory Bandwidth: 0\n" +
	"GPU[5]\t\t: GPU Memory Allocated (VRAM%): 0\nGPU[5]\t\t: GPU Memory Read/Write Activity (%): 0\nGPU[5]\t\t: Memory Activity: N/A\nGPU[5]\t\t: Avg. Memory Bandwidth: 0\n" +
	"GPU[6]\t\t: GPU Memory Allocated (VRAM%): 0\nGPU[6]\t\t: GPU Memory Read/Write Activity (%): 0\nGPU[6]\t\t: Memory Activity: N/A\nGPU[6]\t\t: Avg. Memory Bandwidth: 0\n" +
	"GPU[7]\t\t: GPU Memory Allocated (VRAM%): 0\nGPU[7]\t\t: GPU Memory Read/Write Activity (%): 0\nGPU[7]\t\t: Memory Activity: N/A\nGPU[7]\t\t: Avg. Memory Bandwidth: 0\n" +
	"==========================================================================================\n" +
	"================================== End of ROCm SMI Log ===================================\n"

func TestRocmSmi(t *testing.T) {
	mi355x, _ := FactsFor("mi355x")
	res := run1(t, mi355x, "", "rocm-smi", "--showmemuse")
	if string(res.Stdout) != rocmMemUse8 || res.Status != 0 {
		t.Errorf("rocm-smi --showmemuse:\n got %q status %d\nwant %q", res.Stdout, res.Status, rocmMemUse8)
	}
	b200, _ := FactsFor("b200")
	for _, argv := range [][]string{{"rocm-smi", "--showmemuse"}, {"amd-smi", "metric", "-E", "--csv"}} {
		res := run1(t, b200, "", argv...)
		if len(res.Stdout) != 0 || res.Status != 127 {
			t.Errorf("%q on b200: stdout %q status %d; want empty, 127", argv, res.Stdout, res.Status)
		}
	}
	// A fleet whose firmware is known (the caller sets it): the MEC lines.
	mi355x.MECFirmware = 177
	mi355x.GPUCount = 1
	res = run1(t, mi355x, "", "rocm-smi", "--showfw")
	want := "\n\n============================ ROCm System Management Interface ============================\n" +
		"================================== Firmware Information ==================================\n" +
		"GPU[0]\t\t: MEC firmware version: \t177\nGPU[0]\t\t: MEC2 firmware version: \t177\n" +
		"==========================================================================================\n" +
		"================================== End of ROCm SMI Log ===================================\n"
	if string(res.Stdout) != want {
		t.Errorf("rocm-smi --showfw:\n got %q\nwant %q", res.Stdout, want)
	}
}

// pipe runs a pipeline of commands, each stage's stdout the next one's
// stdin, and returns the last stage's result.
func pipe(t *testing.T, f Facts, stages ...[]string) Result {
	t.Helper()
	var in []byte
	var res Result
	for _, argv := range stages {
		var handled bool
		var reason string
		res, handled, reason = Run(argv, in, f)
		if !handled {
			t.Fatalf("%q unhandled: %s", argv, reason)
		}
		in = res.Stdout
	}
	return res
}

// TestWaitForCleanGPUs is benchmark_lib.sh:243-245 (and
// agentic/dsv4_fp4_mi355x_sglang_mtp.sh:42): on an idle AMD node the
// busiest GPU is at 0 % VRAM, so the wait loop ends on its first pass; on
// an NVIDIA node rocm-smi is missing and the pipeline still prints 0.
func TestWaitForCleanGPUs(t *testing.T) {
	for _, sku := range []string{"mi355x", "b200"} {
		f, _ := FactsFor(sku)
		res := pipe(t, f,
			[]string{"rocm-smi", "--showmemuse"},
			[]string{"grep", "-oE", `GPU Memory Allocated \(VRAM%\): [0-9]+`},
			[]string{"awk", "{if ($NF > m) m = $NF} END {print m+0}"})
		if string(res.Stdout) != "0\n" || res.Status != 0 {
			t.Errorf("%s: vram_max = %q status %d; want \"0\\n\" 0", sku, res.Stdout, res.Status)
		}
	}
	// launch_gb300-nv.sh:204: RUN_KEY from sha1sum | cut -c1-12.
	gb300, _ := FactsFor("gb300")
	r1 := run1(t, gb300, "gb300-nv", "sha1sum")
	if r := run1(t, gb300, string(r1.Stdout), "cut", "-c1-12"); string(r.Stdout) != "9ce4c7eaaa35\n" {
		t.Errorf("RUN_KEY = %q; want 9ce4c7eaaa35", r.Stdout)
	}
}

func TestDateHostnameFreeNproc(t *testing.T) {
	f, _ := FactsFor("b300")
	for _, tc := range []struct {
		where  string
		argv   []string
		stdout string
	}{
		{"benchmark_lib.sh:1478", []string{"date", "+%s"}, "1767225600\n"},
		{"benchmark_lib.sh:2214", []string{"date", "+%z"}, "+0000\n"},
		{"agentic/dsv4_fp4_b200_sglang_mtp.sh:227", []string{"date", "--iso-8601=seconds"}, "2026-01-01T00:00:00+00:00\n"},
		{"server_sglang.sh:674", []string{"date", "-u", "+%Y-%m-%d %H:%M:%S UTC"}, "2026-01-01 00:00:00 UTC\n"},
		{"launch_b200-dgxc-slurm.sh:378", []string{"date", "+%Y%m%d"}, "20260101\n"},
		{"default format", []string{"date"}, "Thu Jan  1 00:00:00 UTC 2026\n"},
		{"more conversions", []string{"date", "+%a %A %b %B %d %e %j %H:%M:%S %I%p %u %w %y %C %F %T %N %%"}, "Thu Thursday Jan January 01  1 001 00:00:00 12AM 4 4 26 20 2026-01-01 00:00:00 000000000 %\n"},
		{"server_sglang.sh:53", []string{"hostname"}, "infx-sandbox\n"},
		{"env.sh:101", []string{"hostname", "-s"}, "infx-sandbox\n"},
		{"free -g (b300-nv: 2,964,436 MiB)", []string{"free", "-g"},
			"               total        used        free      shared  buff/cache   available\n" +
				"Mem:            2894           0        2894           0           0        2894\n" +
				"Swap:              0           0           0\n"},
		{"free -m -t", []string{"free", "-m", "-t"},
			"               total        used        free      shared  buff/cache   available\n" +
				"Mem:         2964436           0     2964436           0           0     2964436\n" +
				"Swap:              0           0           0\n" +
				"Total:       2964436           0     2964436\n"},
	} {
		res := run1(t, f, "", tc.argv...)
		if string(res.Stdout) != tc.stdout || res.Status != 0 {
			t.Errorf("%s: %q\n got %q status %d\nwant %q", tc.where, tc.argv, res.Stdout, res.Status, tc.stdout)
		}
	}
	// The clock is the caller's: a later instant (e.g. after a modelled
	// sleep) moves date +%s.
	f.Now = DefaultNow().Add(90 * time.Second)
	if res := run1(t, f, "", "date", "+%s"); string(res.Stdout) != "1767225690\n" {
		t.Errorf("date +%%s after 90 s = %q", res.Stdout)
	}
	f.CPUs = 224
	if res := run1(t, f, "", "nproc"); string(res.Stdout) != "224\n" {
		t.Errorf("nproc = %q", res.Stdout)
	}
	if res := run1(t, f, "", "nproc", "--ignore=4"); string(res.Stdout) != "220\n" {
		t.Errorf("nproc --ignore=4 = %q", res.Stdout)
	}
}

func TestMeminfo(t *testing.T) {
	f, _ := FactsFor("gb200")
	m, ok := f.Meminfo()
	want := "MemTotal:       880803840 kB\nMemFree:        880803840 kB\nMemAvailable:   880803840 kB\nSwapTotal:             0 kB\nSwapFree:              0 kB\n"
	if !ok || string(m) != want {
		t.Errorf("Meminfo = %q, %v; want %q", m, ok, want)
	}
	// d04b625bb:datasets/isb1/scripts/gmi_portable_benchmark.sh:200
	res := run1(t, f, "", "awk", `/MemTotal:/ {printf "%.0f", $2/1048576}`, "/proc/meminfo")
	if string(res.Stdout) != "840" {
		t.Errorf("TOTAL_CPU_DRAM_GB = %q; want 840", res.Stdout)
	}
	if _, ok := (Facts{}).Meminfo(); ok {
		t.Error("Meminfo of zero Facts ok")
	}
}

// mapFS is a ReadFileFunc over in-memory files.
func mapFS(files map[string]string) ReadFileFunc {
	return func(name string) ([]byte, error) {
		s, ok := files[name]
		if !ok {
			return nil, fs.ErrNotExist
		}
		return []byte(s), nil
	}
}

func TestRunFiles(t *testing.T) {
	f, _ := FactsFor("gb200")
	recipe := "name: r\ntelemetry:\n  provider: dcgm-power\n  enabled: true\nbackend: x\n"
	stray := "name: r\ntelemetry:\n  provider: dcgm-power\nother:\n  enabled: true\n"
	read := mapFS(map[string]string{
		"recipe.yaml":       recipe,
		"stray.yaml":        stray,
		"cfg.yaml":          "model: m\ndataset_path: /data/swe.jsonl\n",
		"metrics.json":      `{"sglang:cache_hit_rate": 0.5}` + "\n",
		"gpu_metrics.csv":   "timestamp,index\n1,0\n2,",
		"mla_gluon.py":      "if 1 <= batch_size <= 256:\n    pass\nassert 1 <= batch_size <= 256\n",
		"mc_master.log":     "INFO start\nERROR bind: Address already in use\n",
		"node_excludes.yml": "rules:\n  - framework: sglang\n    models:\n      - \"DeepSeek-R1\"\n    exclude_nodes: \"node[1-3]\"\n",
	})
	telemetry := "\n    /^telemetry:/ { t = 1; next }\n    t && /^[^ ]/  { t = 0 }\n    t && /^  provider: dcgm-power$/ { p = 1 }\n    t && /^  enabled: true$/        { e = 1 }\n    END { exit !(p && e) }\n"
	excludes := `
            /^  - framework:/ {
                line = $0
                sub(/^  - framework: */, "", line)
                fw_match = (line == fw)
                model_match = 0
                next
            }
            fw_match && /^      - / {
                m = $0
                sub(/^      - */, "", m)
                gsub(/^"|"$/, "", m)
                if (m == model) model_match = 1
                next
            }
            fw_match && model_match && /^    exclude_nodes:/ {
                val = $0
                sub(/^ *exclude_nodes: */, "", val)
                gsub(/^"|"$/, "", val)
                print val
                exit
            }
        `
	for _, tc := range []struct {
		where  string
		argv   []string
		stdout string
		status int
	}{
		{"launch_gb200-nv.sh:295 (dcgm-power lane)", []string{"awk", telemetry, "recipe.yaml"}, "", 0},
		{"launch_gb200-nv.sh:295 (stray enabled: true)", []string{"awk", telemetry, "stray.yaml"}, "", 1},
		{"benchmark_lib.sh:1554", []string{"awk", "/^dataset_path:[[:space:]]/{print $2; exit}", "cfg.yaml"}, "/data/swe.jsonl\n", 0},
		{"submit.sh:225", []string{"awk", "-v", "fw=sglang", "-v", "model=DeepSeek-R1", excludes, "node_excludes.yml"}, "node[1-3]\n", 0},
		{"benchmark_lib.sh:2179", []string{"grep", "-F", "-m", "1", "-q", `"sglang:`, "metrics.json"}, "", 0},
		{"benchmark_lib.sh:212", []string{"tail", "-c", "1", "gpu_metrics.csv"}, ",", 0},
		{"benchmark_lib.sh:213", []string{"sed", "$d", "gpu_metrics.csv"}, "timestamp,index\n1,0\n", 0},
		{"apply_k3_container_patches.sh:1260", []string{"grep", "-c", "1 <= batch_size <= 256", "mla_gluon.py"}, "2\n", 0},
		{"server_sglang.sh:712", []string{"grep", "-qiE", "Address already in use|bind .*error", "mc_master.log"}, "", 0},
		{"server_sglang.sh:715", []string{"grep", "-iE", "Address already in use|bind .*error", "mc_master.log"}, "ERROR bind: Address already in use\n", 0},
		{"missing file: grep", []string{"grep", "-q", "x", "absent.log"}, "", 2},
		{"missing file: awk", []string{"awk", "{print}", "absent.log"}, "", 2},
		{"missing file: sed", []string{"sed", "p", "absent.log"}, "", 2},
		{"missing file: wc", []string{"wc", "-l", "absent.log"}, "", 1},
		{"wc with a name", []string{"wc", "-l", "mla_gluon.py"}, "3 mla_gluon.py\n", 0},
		{"head with headers", []string{"head", "-n", "1", "cfg.yaml", "mla_gluon.py"}, "==> cfg.yaml <==\nmodel: m\n\n==> mla_gluon.py <==\nif 1 <= batch_size <= 256:\n", 0},
	} {
		res, handled, reason := RunFiles(tc.argv, nil, f, read)
		if !handled {
			t.Errorf("%s: unhandled: %s", tc.where, reason)
			continue
		}
		if string(res.Stdout) != tc.stdout || res.Status != tc.status {
			t.Errorf("%s: %q\n got %q status %d\nwant %q status %d", tc.where, tc.argv, res.Stdout, res.Status, tc.stdout, tc.status)
		}
	}
	broken := func(string) ([]byte, error) { return nil, errors.New("permission denied") }
	if _, handled, reason := RunFiles([]string{"cat", "x"}, nil, f, broken); handled || !strings.Contains(reason, "not a command") {
		t.Errorf("cat: handled=%v reason=%q", handled, reason)
	}
	if _, handled, reason := RunFiles([]string{"grep", "x", "x"}, nil, f, broken); handled || !strings.Contains(reason, "permission denied") {
		t.Errorf("read error: handled=%v reason=%q", handled, reason)
	}
}

func TestCommands(t *testing.T) {
	got := strings.Join(Commands(), " ")
	want := "amd-smi awk basename bc cut date df dirname egrep expr fgrep free gawk grep head hostname nicctl nproc nvidia-smi paste rocm-smi sed seq sha1sum sha256sum sort tail tr uniq wc"
	if got != want {
		t.Errorf("Commands() = %q\nwant %q", got, want)
	}
	// argv[0] as written: a path selects the same command.
	f, _ := FactsFor("b200")
	if res := run1(t, f, "", "/usr/bin/seq", "3"); string(res.Stdout) != "1\n2\n3\n" {
		t.Errorf("/usr/bin/seq 3 = %q", res.Stdout)
	}
}

func FuzzRun(f *testing.F) {
	for _, tc := range scriptCases {
		f.Add(strings.Join(tc.argv, "\x00"), tc.stdin)
	}
	f.Add("awk\x00BEGIN { while (1) x++ }", "")
	f.Add("sed\x00s/[/]/x/g;/a/,/b/{p;=}", "a/b\nb\n")
	f.Add("grep\x00-oP\x00a\\Kb|c", "abc\n")
	f.Add("bc", "scale=20; 2^1000/3\n")
	f.Add("nvidia-smi\x00--query-gpu=index,name\x00--format=csv", "")
	facts, _ := FactsFor("gb200")
	var rs Regexps // shared by every input: a kept expression answers as a new one
	f.Fuzz(func(t *testing.T, argv, stdin string) {
		args := strings.Split(argv, "\x00")
		err := fuzzbound.Within(fuzzbound.Bound, func() error {
			res, handled, reason := run(args, []byte(stdin), facts, nil, nil)
			cres, chandled, creason := run(args, []byte(stdin), facts, nil, &rs)
			if chandled != handled || creason != reason || !reflect.DeepEqual(cres, res) {
				return fmt.Errorf("%q: with kept expressions %v %q %+v, without %v %q %+v", args, chandled, creason, cres, handled, reason, res)
			}
			if !handled && reason == "" {
				return fmt.Errorf("%q: refused without a reason", args)
			}
			if len(res.Stdout) > MaxOutput || len(res.Stderr) > MaxOutput {
				return fmt.Errorf("%q: output %d/%d bytes over the cap", args, len(res.Stdout), len(res.Stderr))
			}
			if res.Status < 0 || res.Status > 255 {
				return fmt.Errorf("%q: status %d", args, res.Status)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%v\nargv: %q\nstdin: %q", err, args, stdin)
		}
	})
}

// TestRegexpsKeepsAnswers: grep, sed, awk and grep -P answer the same
// with a Regexps as without, each expression is compiled once (the
// second run adds nothing), and past maxRegexps nothing more is kept
// while the answers stay right.
func TestRegexpsKeepsAnswers(t *testing.T) {
	f, _ := FactsFor("b200")
	cmds := []struct {
		argv  []string
		stdin string
	}{
		{[]string{"grep", "-E", "^ab+c$"}, "abbc\nac\n"},
		{[]string{"grep", "-oP", "x\\K[0-9]+"}, "x12 y3 x4\n"},
		{[]string{"grep", "-ic", "AB"}, "ab\nAb\ncd\n"},
		{[]string{"sed", "-E", "s/(a+)b/<\\1>/g"}, "aab ab b\n"},
		{[]string{"awk", "/^a+$/ { n++ } END { print n }"}, "a\naa\nb\n"},
	}
	var rs Regexps
	kept := 0
	for round := 0; round < 2; round++ {
		for _, c := range cmds {
			want, wh, _ := RunFiles(c.argv, []byte(c.stdin), f, nil)
			got, gh, _ := RunCached(c.argv, []byte(c.stdin), f, nil, &rs)
			if !wh || !gh || !reflect.DeepEqual(got, want) {
				t.Errorf("round %d %q: cached %v %+v, uncached %v %+v", round, c.argv, gh, got, wh, want)
			}
		}
		if round == 0 {
			// one per command; grep -P's pattern is also checked alone
			if kept = len(rs.m); kept != len(cmds)+1 {
				t.Errorf("%d expressions kept after %d commands, want %d", kept, len(cmds), len(cmds)+1)
			}
		} else if n := len(rs.m); n != kept {
			t.Errorf("the second round kept %d more expressions: each was compiled again", n-kept)
		}
	}
	var full Regexps
	for i := 0; i < maxRegexps+10; i++ {
		res, ok, _ := RunCached([]string{"grep", "-c", fmt.Sprintf("x%d$", i)}, []byte(fmt.Sprintf("x%d\ny\n", i)), f, nil, &full)
		if !ok || string(res.Stdout) != "1\n" {
			t.Fatalf("pattern %d: %v %q", i, ok, res.Stdout)
		}
	}
	if len(full.m) != maxRegexps {
		t.Errorf("%d kept, want the bound %d", len(full.m), maxRegexps)
	}
	// past the text bound an expression is compiled and not kept
	var big Regexps
	half := strings.Repeat("a", maxRegexpBytes/2)
	for i, src := range []string{"x" + half, "y" + half, "z"} {
		re, err := big.compile(src, true)
		if err != nil || !re.MatchString(src) {
			t.Fatalf("expression %d: %v", i, err)
		}
	}
	if _, ok := big.m[regexpKey{"y" + half, true}]; ok || len(big.m) != 2 || big.bytes != len(half)+2 {
		t.Errorf("past %d bytes of text: %d kept (%d bytes), the second half-size one kept %v", maxRegexpBytes, len(big.m), big.bytes, ok)
	}
}
