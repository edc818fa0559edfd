package helpers

import (
	"fmt"
	"strconv"
	"strings"
)

// This file is InferenceX benchmarks/multi_node/amd_utils/sync.py, the
// multi-node synchronization helper the AMD disaggregated launchers
// (server_sglang.sh, server_vllm.sh) run as `python3 $WS_PATH/sync.py
// barrier …` and `python3 $WS_PATH/sync.py wait …`: every version of its
// text in the InferenceX history since 2026-06-01 (all branches of the
// repository as fetched, mirror main at 843c6254f), plus the one in effect
// on main on 2026-06-01, each cited by its blob and the commits holding it.
//
// The program waits on the network, so it is modelled, not run: RunSync is
// its run in a job where every node's task runs and its servers come up —
// the run that published a result. A barrier that times out (or, from
// 458021988 on, sees a port or health endpoint go down after it came up)
// exits 1 and ends the job with no published result, so it is not a run
// the model gives; an input with which the barrier can never pass (a port
// outside 1-65535, an address no node has) is refused (*SyncNotReproduced),
// never answered.

// SyncPath is the helper's path in an InferenceX checkout
// (SemiAnalysisAI/InferenceX benchmarks/multi_node/amd_utils/sync.py).
const SyncPath = "benchmarks/multi_node/amd_utils/sync.py"

// syncVersions is every version of SyncPath the model covers: the same
// argparse interface (barrier: --local-ip, --local-port, --enable-port,
// --node-ips, --node-ports, --timeout, --wait-for-all-ports,
// --wait-for-all-health, --health-endpoint; wait: --remote-ip,
// --remote-port) and the same exit paths in the modelled run. They differ
// in what the modelled run does not see: how long the barrier keeps its
// port open after it passed (max(60, timeout//2) or 300 s; 15 s), whether
// it fails fast when a port or endpoint goes down after it came up
// (458021988, 3c1912782, aa04fe30c), and whether prints are flushed.
func syncVersions() []Program {
	p := func(blob, sha string, commits ...string) Program {
		return Program{ID: "sync.py@" + blob, SHA256: sha, Path: SyncPath, Commits: commits}
	}
	return []Program{
		// In effect on main on 2026-06-01 (bb0005581, 2026-05-28; the
		// 2026-04-21 text of c5ba7eaff), held by merges since.
		p("3678e761", syncV0, "bb0005581", "fd91e1a46", "2ba1c37cb"),
		// "serving: fail-fast on multi-node disagg worker death" (2026-06-29).
		p("e0daf048", "02156dd559300fa81f229e1a2ba918446f5aea840d5fca3cab28e655e764512a", "458021988", "ece8605e3"),
		// "serving: fix multi-node disagg teardown deadlock" (2026-07-03):
		// prints of cmd_wait flushed; main from bba56ea52 (2026-07-10)
		// through 843c6254f, the ../shared checkout.
		p("96e94c1b", SyncCorpusSHA256, "3c1912782", "bba56ea52", "ac62240ec", "843c6254f"),
		// "Add Kimi K2.7 LMCache NIXL AIPerf recipe" (2026-07-13): no fail
		// fast, a 15 s grace.
		p("9ff2f9be", "1ef738d4b4466fbd0b10bf2143234193782f6b81662faec23ed16e060609031b", "e617d61c3"),
		// A merge of main into pull/2171 (2026-07-14): fail fast, a 15 s
		// grace.
		p("049a484c", "7f6ef605242a28574b5f1c234412aaec484afbf92207e5969b093685549ba762", "aa04fe30c"),
	}
}

// syncV0 is the SHA-256 of the version in effect on 2026-06-01.
const syncV0 = "a542c96e22db5acb6c42e5c2d99668161c3b27f348a6358ae7af6d679fedf832"

// SyncCorpusSHA256 is the SHA-256 of sync.py on InferenceX main from
// 3c1912782 / bba56ea52 through 843c6254f (the tree of ../shared).
const SyncCorpusSHA256 = "275728161f292227e3b5778761fca46d74dad2e3f02446bef08ab0aa62e03e76"

// SyncTable lists the known versions of SemiAnalysisAI/InferenceX
// benchmarks/multi_node/amd_utils/sync.py (RunSync is the run of each).
func SyncTable() []Program { return syncVersions() }

// SyncExcluded maps the SHA-256 of each version of SemiAnalysisAI/
// InferenceX benchmarks/multi_node/amd_utils/sync.py committed since
// 2026-06-01 that is left out of SyncTable to why: its interface or
// exit paths differ in a way RunSync does not model. A text here is
// refused like an unknown one, with the reason.
func SyncExcluded() map[string]string {
	return map[string]string{
		// blob 7f7f586d, 01d8457ad (2026-07-23, branch
		// yichaozhu/vllm-disagg-kimi2.5-fp4).
		"f5c23fa6b7978711bed42ea656bcd95f075b69406b038c16f6b8dfc3cdae8b56": "01d8457ad (\"amd: add Kimi MI355X vLLM MPND bring-up\") adds the barrier option --close-grace (type=int, default 10; the port is kept open int(close_grace) s after the barrier passed), outside the argparse interface RunSync models",
	}
}

// LookupSync returns the version of SemiAnalysisAI/InferenceX
// benchmarks/multi_node/amd_utils/sync.py (SyncTable) whose text is src; false when
// src is in no version of SyncTable (the caller refuses it, naming its
// hash and, when SyncExcluded has it, why).
func LookupSync(src []byte) (Program, bool) { return Lookup(syncVersions(), src) }

// SyncOutput is what a run of SemiAnalysisAI/InferenceX
// benchmarks/multi_node/amd_utils/sync.py prints and its exit status
// (RunSync).
type SyncOutput struct {
	Stdout, Stderr string
	Status         int
	// Printed is true when Stdout and Stderr are exactly what the program
	// prints. False: they are not reproduced (what the barrier prints
	// while it waits depends on timings — which ports were open at which
	// poll, the seconds remaining —, a Python traceback on the Python
	// version and the script's path) and are empty here; Status is still
	// the program's. A caller that uses the output refuses such a run.
	Printed bool
}

// SyncNotReproduced is a run of SemiAnalysisAI/InferenceX
// benchmarks/multi_node/amd_utils/sync.py the model (RunSync) does not
// give exactly: an argparse error or help (exit 2 or 0 with argparse's
// usage text, which is not reproduced), or an input with which the
// program cannot pass in the run that published a result. The caller
// reports it, never guesses.
type SyncNotReproduced struct{ Msg string }

// Error says what is not reproduced.
func (e *SyncNotReproduced) Error() string { return "sync.py: " + e.Msg }

func syncRefuse(format string, args ...any) error {
	return &SyncNotReproduced{Msg: fmt.Sprintf(format, args...)}
}

// syncOpt is one option of a subcommand's argparse parser.
type syncOpt struct {
	flag     bool // action="store_true"
	integer  bool // type=int
	required bool
}

var syncParsers = map[string]map[string]syncOpt{
	"barrier": {
		"--local-ip":            {},
		"--local-port":          {integer: true},
		"--enable-port":         {flag: true},
		"--node-ips":            {required: true},
		"--node-ports":          {required: true},
		"--timeout":             {integer: true},
		"--wait-for-all-ports":  {flag: true},
		"--wait-for-all-health": {flag: true},
		"--health-endpoint":     {},
	},
	"wait": {
		"--remote-ip":   {required: true},
		"--remote-port": {integer: true, required: true},
	},
}

// syncArgs parses argv (sys.argv[1:]) as main's argparse parser does, for
// the forms whose parse is certain: the subcommand first, then each option
// by its full name (`--opt VALUE`, `--opt=VALUE`; a flag alone), the last
// occurrence winning, each int value converted as int() does. Anything
// else — help, an abbreviation, an unknown option or a stray argument, a
// missing value or required option, a value that starts with '-', an
// invalid int — is an argparse error or output that is not reproduced.
func syncArgs(argv []string) (cmd string, vals map[string]string, err error) {
	if len(argv) == 0 {
		return "", nil, syncRefuse("no subcommand: argparse's usage error (exit 2) is not reproduced")
	}
	cmd = argv[0]
	opts, ok := syncParsers[cmd]
	if !ok {
		return "", nil, syncRefuse("%q is not a subcommand (barrier, wait): argparse's usage error (exit 2) is not reproduced", cmd)
	}
	vals = map[string]string{}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		name, val, hasVal := strings.Cut(a, "=")
		o, known := opts[name]
		if !strings.HasPrefix(a, "--") || !known {
			return "", nil, syncRefuse("%s: argument %q is not an option of the subcommand by its full name: argparse's answer (help, an abbreviation, an error with its usage) is not reproduced", cmd, a)
		}
		switch {
		case o.flag && hasVal:
			return "", nil, syncRefuse("%s: %q gives a value to a flag: argparse's usage error (exit 2) is not reproduced", cmd, a)
		case o.flag:
			vals[name] = "true"
			continue
		case hasVal && val == "":
			return "", nil, syncRefuse("%s: %q: an empty explicit value is not reproduced", cmd, a)
		case !hasVal:
			if i+1 >= len(argv) || strings.HasPrefix(argv[i+1], "-") {
				return "", nil, syncRefuse("%s: %s is not followed by a value that cannot be an option: argparse's answer is not reproduced", cmd, name)
			}
			i++
			val = argv[i]
		}
		if o.integer {
			n, err := syncInt(val)
			if err != nil {
				return "", nil, syncRefuse("%s: %s %q: %v", cmd, name, val, err)
			}
			val = n
		}
		vals[name] = val
	}
	for name, o := range opts {
		if _, ok := vals[name]; o.required && !ok {
			return "", nil, syncRefuse("%s: %s is required: argparse's usage error (exit 2) is not reproduced", cmd, name)
		}
	}
	return cmd, vals, nil
}

// syncInt is Python's int(s) as str(int(s)); an error when int() raises
// ValueError (argparse's "invalid int value" is not reproduced), or s
// holds non-ASCII text (Unicode digits and spaces are not reproduced).
func syncInt(s string) (string, error) {
	n, ok, err := amdPyInt(s)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("int() raises ValueError: argparse's usage error (exit 2) is not reproduced")
	}
	return n.String(), nil
}

// pyStripped is Python's s.strip() of ASCII text; ok false for
// non-ASCII text (Unicode whitespace is not reproduced).
func pyStripped(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return "", false
		}
	}
	return strings.Trim(s, " \t\n\r\v\f\x1c\x1d\x1e\x1f"), true
}

// RunSync is SemiAnalysisAI/InferenceX benchmarks/multi_node/amd_utils/
// sync.py run with argv (sys.argv[1:]), every version of SyncTable, in the
// run of the job that published a result: every node's task runs and its
// servers come up (a barrier that times out ends the job with no
// published result).
//
// barrier (cmd_barrier): the checks made before it waits are the
// program's — `[int(p.strip()) for p in node_ports.split(",") if
// p.strip()]` (a ValueError: status 1, its traceback not reproduced), then
// "Error: NODE_IPS argument is empty or not set." and "Error: Number of
// ports must match number of node IPs or only one port should be given for
// all." on stdout, status 1. Otherwise every port opens
// (--wait-for-all-ports) and every http://IP:PORT<--health-endpoint>
// answers 200 (--wait-for-all-health): status 0. What it prints while it
// waits, and the "Port … is now open/has been closed" lines of
// --enable-port, are not reproduced (Printed false); a barrier that does
// neither prints nothing. Refused: --enable-port without --local-ip and
// --local-port, or a port outside 1-65535 (its thread's bind fails, the
// peers never pass); an address or endpoint the URL or socket cannot take.
//
// wait (cmd_wait): the remote port closes when the job ends: status 0,
// its two lines not reproduced (Printed false: the job's end may kill it
// before the second). Refused: --remote-port outside 0-65535 (connect_ex
// raises OverflowError) or an address no node can have.
//
// Errors: *SyncNotReproduced (argparse errors and help, whose text is not
// reproduced, and the refusals above).
func RunSync(argv []string) (SyncOutput, error) {
	cmd, v, err := syncArgs(argv)
	if err != nil {
		return SyncOutput{}, err
	}
	if cmd == "wait" {
		return syncWait(v)
	}
	return syncBarrier(v)
}

func syncBarrier(v map[string]string) (SyncOutput, error) {
	var ips []string
	for _, s := range strings.Split(v["--node-ips"], ",") {
		t, ok := pyStripped(s)
		if !ok {
			return SyncOutput{}, syncRefuse("barrier: --node-ips %q: non-ASCII text (str.strip of it is not reproduced)", v["--node-ips"])
		}
		if t != "" {
			ips = append(ips, t)
		}
	}
	var ports []int
	for _, s := range strings.Split(v["--node-ports"], ",") {
		t, ok := pyStripped(s)
		if !ok {
			return SyncOutput{}, syncRefuse("barrier: --node-ports %q: non-ASCII text (int() of it is not reproduced)", v["--node-ports"])
		}
		if t == "" {
			continue
		}
		n, valid, err := amdPyInt(t)
		if err != nil {
			return SyncOutput{}, syncRefuse("barrier: --node-ports %q: %v", v["--node-ports"], err)
		}
		if !valid {
			// ValueError: invalid literal for int() with base 10: … — an
			// uncaught traceback on stderr, nothing on stdout.
			return SyncOutput{Status: 1}, nil
		}
		p := -1
		if n.IsInt64() && n.Int64() >= 0 && n.Int64() <= 1<<20 {
			p = int(n.Int64())
		}
		ports = append(ports, p)
	}
	if len(ips) == 0 {
		return SyncOutput{Stdout: "Error: NODE_IPS argument is empty or not set.\n", Status: 1, Printed: true}, nil
	}
	if len(ports) != 1 && len(ports) != len(ips) {
		return SyncOutput{Stdout: "Error: Number of ports must match number of node IPs or only one port should be given for all.\n", Status: 1, Printed: true}, nil
	}
	enable := v["--enable-port"] == "true"
	waitPorts, waitHealth := v["--wait-for-all-ports"] == "true", v["--wait-for-all-health"] == "true"
	if enable {
		lip, hasIP := v["--local-ip"]
		lport, hasPort := v["--local-port"]
		if !hasIP || !hasPort {
			return SyncOutput{}, syncRefuse("barrier: --enable-port without --local-ip and --local-port: its thread's bind((None, …)) raises, the port never opens")
		}
		if n, err := strconv.Atoi(lport); err != nil || n < 1 || n > 65535 {
			return SyncOutput{}, syncRefuse("barrier: --local-port %s is outside 1-65535: the port it opens is not one peers can wait for", lport)
		}
		if lip != "" && !syncHost(lip) {
			return SyncOutput{}, syncRefuse("barrier: --local-ip %q is not a host name or IPv4 address the bind is modelled for", lip)
		}
	}
	if waitPorts || waitHealth {
		for _, ip := range ips {
			if !syncHost(ip) {
				return SyncOutput{}, syncRefuse("barrier: node address %q is not a host name or IPv4 address a node of the job can have", ip)
			}
		}
		for _, p := range ports {
			if p < 1 || p > 65535 {
				return SyncOutput{}, syncRefuse("barrier: a node port outside 1-65535 never opens (or raises OverflowError): the barrier cannot pass")
			}
		}
	}
	if waitHealth {
		if h, set := v["--health-endpoint"]; set && !syncPath(h) {
			return SyncOutput{}, syncRefuse("barrier: --health-endpoint %q does not start with / or holds a space, a control or non-ASCII character: the URL urllib fetches is not modelled", h)
		}
	}
	if !enable && !waitPorts && !waitHealth {
		return SyncOutput{Printed: true}, nil
	}
	return SyncOutput{}, nil
}

func syncWait(v map[string]string) (SyncOutput, error) {
	if n, err := strconv.Atoi(v["--remote-port"]); err != nil || n < 0 || n > 65535 {
		return SyncOutput{}, syncRefuse("wait: --remote-port %s is outside 0-65535 (connect_ex raises OverflowError)", v["--remote-port"])
	}
	if !syncHost(v["--remote-ip"]) {
		return SyncOutput{}, syncRefuse("wait: --remote-ip %q is not a host name or IPv4 address a node of the job can have", v["--remote-ip"])
	}
	return SyncOutput{}, nil
}

// syncHost reports whether s is made of the characters of a host name or
// an IPv4 address (letters, digits, '.', '-', '_'), not starting with '.'
// or '-': an address the socket and the URL take as written.
func syncHost(s string) bool {
	if s == "" || s[0] == '.' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// syncPath reports whether s is a URL path urllib fetches as written:
// starting with '/', printable ASCII without a space (http.client refuses
// control characters and spaces with InvalidURL, which check_health does
// not catch).
func syncPath(s string) bool {
	if !strings.HasPrefix(s, "/") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
