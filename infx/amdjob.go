package infx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"
	"github.com/cookbook-sync/cookbook-sync/infx/shellutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// This file is the cluster an AMD multi-node batch job runs on, as the
// sandbox answers for it: InferenceX runners/launch_mi355x-amds.sh submits
// benchmarks/multi_node/amd_utils/job.slurm with sbatch (submit.sh), the
// job srun's one task per node, each task `docker run`s the image with
// server.sh, which sources server_sglang.sh. The job is run once per node
// rank; the scheduler's variables and the node's host answers come from
// here.
//
// Cluster facts are faked the way srt-slurm's are (infx/srtslurm
// Rendering, ../shared/golden/srt-slurm/README.md): node K is named nodeK
// and has IP 10.0.0.K on interface eth0, the default gateway is
// 10.0.0.254. Every setting made from them is a placement the comparison
// excludes (exclusions/rules.yaml placement-*) or a value the deployment
// marks as not known.

// clusterRDMA are the RDMA devices of a cluster's nodes, as ibv_devinfo
// lists them, where the tree documents them: mi355x-amds —
// runners/launch_mi355x-amds.sh:39 (InferenceX 843c6254) exports
// IBDEVICES="rdma0,…,rdma7" for its multi-node jobs, the devices
// amd_utils/env.sh otherwise detects with ibv_devinfo. Never written after
// initialization.
var clusterRDMA = map[string][]string{
	"mi355x-amds": {"rdma0", "rdma1", "rdma2", "rdma3", "rdma4", "rdma5", "rdma6", "rdma7"},
}

// batchNode is the host a job step runs on, and its scheduler variables.
type batchNode struct {
	name string
	rank int
}

// batchCluster is the allocation of one AMD batch job: its nodes in
// order, and the rank of the node whose task is rendered.
type batchCluster struct {
	nodes []string
	rank  int
	// rdma are the RDMA devices `ibv_devinfo` lists (hca_id), in order.
	rdma []string
	// steps are the srun steps the run made, in order.
	steps []batchStep
}

// newBatchCluster is an allocation of n nodes (node0…node<n-1>) rendering
// the task of rank.
func newBatchCluster(n, rank int, rdma []string) *batchCluster {
	b := &batchCluster{rank: rank, rdma: rdma}
	for i := 0; i < n; i++ {
		b.nodes = append(b.nodes, "node"+strconv.Itoa(i))
	}
	return b
}

// nodeOf is the node a command runs on: SLURMD_NODENAME as srun sets it,
// else the batch host (the job's first node).
func (b *batchCluster) nodeOf(c *sandbox.Call) batchNode {
	if v, ok := c.Lookup("SLURMD_NODENAME"); ok {
		for i, n := range b.nodes {
			if n == v {
				return batchNode{name: n, rank: i}
			}
		}
	}
	return batchNode{name: b.nodes[0], rank: 0}
}

// commands are the handlers of the job's run, ahead of scriptCommands.
func (b *batchCluster) commands() map[string]sandbox.Handler {
	t := scriptCommands()
	t["srun"] = b.srun
	t["scontrol"] = b.scontrol
	t["ip"] = b.ip
	t["hostname"] = b.hostname
	t["whoami"] = func(_ context.Context, c *sandbox.Call) error {
		u, ok := c.Lookup("USER")
		if !ok || u == "" {
			u = "runner"
		}
		_, _ = io.WriteString(c.Stdout(), u+"\n")
		return nil
	}
	t["ibv_devinfo"] = b.ibvDevinfo
	t["docker"] = dockerClient
	t["xargs"] = xargsEmpty
	t["curl"] = b.curl
	t["bash"] = benchClient
	return t
}

// benchClients are the benchmark clients of the AMD multi-node job
// (InferenceX benchmarks/multi_node/amd_utils/bench.sh, the fixed-length
// client, and trace_replay.sh, the agentic one), run by node 0's
// server_sglang.sh (`eval "$BENCH_CMD"`, or in the client image's
// container) once its servers and router are up.
var benchClients = map[string]bool{"bench.sh": true, "trace_replay.sh": true}

// benchClient ends the node's run where its script starts the benchmark
// client (`bash …/amd_utils/bench.sh …`): the measurement starts there,
// against the servers already running, so a server the script would
// start later serves no published result, and what the client does
// changes no server. Any other `bash` is the sandbox's.
func benchClient(_ context.Context, c *sandbox.Call) error {
	for _, a := range c.Args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		full := a
		if !path.IsAbs(full) {
			full = path.Join(c.Dir(), full)
		}
		if benchClients[path.Base(full)] && path.Base(path.Dir(full)) == "amd_utils" && c.IsFile(a) {
			return c.End()
		}
		break
	}
	return sandbox.ErrUnhandled
}

// curl answers an HTTP request to a server of the node's own run: to
// 127.0.0.1, localhost, 0.0.0.0 or the node's address, on a port a running
// server job of the run listens on (sandbox.Call.Listening: the model's
// servers come up and serve, as in the run whose result was published).
// The server answers 200: a GET (a health or readiness probe) with an
// empty body, a POST to an OpenAI completion route (/v1/chat/completions,
// /v1/completions) with a completion of no text whose finish reason is
// "length" — the text a model generates is not known, and a script that
// reads it reads "". -o FILE writes the body to FILE, -w prints
// %{http_code}; -s, -S, -f, -L, -k, -m/--max-time, --connect-timeout,
// -X, -H and -d/--data* are read. Anything else (another host or port, a
// route or option not listed) is the caller's rule (ErrUnhandled).
func (b *batchCluster) curl(ctx context.Context, c *sandbox.Call) error {
	if err := curlCmd(ctx, c); !errors.Is(err, sandbox.ErrUnhandled) {
		return err
	}
	var url, out, write, method string
	post := false
	args := c.Args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		var ok bool
		switch {
		case a == "-s" || a == "--silent" || a == "-S" || a == "--show-error" || a == "-f" || a == "--fail" || a == "-sf" || a == "-fs" || a == "-sS" || a == "-fsS" || a == "-sSf" || a == "-L" || a == "--location" || a == "-k" || a == "--insecure":
			continue
		case a == "-o" || a == "--output":
			out, ok = next()
		case a == "-w" || a == "--write-out":
			write, ok = next()
		case a == "-X" || a == "--request":
			method, ok = next()
		case a == "-m" || a == "--max-time" || a == "--connect-timeout" || a == "-H" || a == "--header":
			_, ok = next()
		case a == "-d" || a == "--data" || a == "--data-raw" || a == "--data-binary":
			post = true
			_, ok = next()
		case strings.HasPrefix(a, "-"):
			return sandbox.ErrUnhandled
		default:
			if url != "" {
				return sandbox.ErrUnhandled
			}
			url, ok = a, true
		}
		if !ok {
			return sandbox.ErrUnhandled
		}
	}
	if method != "" {
		post = method == "POST"
		if method != "POST" && method != "GET" {
			return sandbox.ErrUnhandled
		}
	}
	rest, ok := strings.CutPrefix(url, "http://")
	if !ok {
		return sandbox.ErrUnhandled
	}
	hostport, route, _ := strings.Cut(rest, "/")
	route = "/" + route
	host, portText, ok := strings.Cut(hostport, ":")
	port, err := strconv.Atoi(portText)
	if !ok || err != nil {
		return sandbox.ErrUnhandled
	}
	switch host {
	case "127.0.0.1", "localhost", "0.0.0.0", "10.0.0." + strconv.Itoa(b.nodeOf(c).rank):
	default:
		return sandbox.ErrUnhandled
	}
	if !c.Listening(port) {
		return sandbox.ErrUnhandled
	}
	body := ""
	if post {
		switch route {
		case "/v1/chat/completions":
			body = `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"length"}]}`
		case "/v1/completions":
			body = `{"object":"text_completion","choices":[{"index":0,"text":"","finish_reason":"length"}]}`
		default:
			return sandbox.ErrUnhandled
		}
	}
	switch out {
	case "":
		_, _ = io.WriteString(c.Stdout(), body)
	case "/dev/null":
	default:
		if !path.IsAbs(out) {
			out = path.Join(c.Dir(), out)
		}
		c.WriteFile(out, body)
	}
	if write != "" {
		if write != "%{http_code}" {
			return sandbox.ErrUnhandled
		}
		_, _ = io.WriteString(c.Stdout(), "200")
	}
	return nil
}

// srun runs its command as the task of one node of the step: the step's
// nodes are those --nodelist (-w) names (each must be a node of the
// allocation, else Unsupported), else the first --nodes (-N) of the
// allocation, else all; the task is the rendered node's when it is one of
// them, else the step's first node's. SLURM_PROCID, SLURM_NODEID,
// SLURM_LOCALID and SLURMD_NODENAME are set as Slurm sets them for it.
func (b *batchCluster) srun(ctx context.Context, c *sandbox.Call) error {
	list, count := "", ""
	args := c.Args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			break
		}
		switch {
		case strings.HasPrefix(a, "--nodes="):
			count = strings.TrimPrefix(a, "--nodes=")
		case (a == "--nodes" || a == "-N") && i+1 < len(args):
			count = args[i+1]
		case strings.HasPrefix(a, "--nodelist="):
			list = strings.TrimPrefix(a, "--nodelist=")
		case (a == "--nodelist" || a == "-w") && i+1 < len(args):
			list = args[i+1]
		case strings.HasPrefix(a, "-w") && len(a) > 2:
			list = a[2:]
		}
	}
	nodes := b.nodes
	if n, err := strconv.Atoi(count); err == nil && list == "" && n >= 1 && n < len(nodes) {
		// a step on fewer nodes than the job has: Slurm's first nodes
		nodes = nodes[:n]
	}
	if list != "" {
		nodes = expandHostlist(list)
		if len(nodes) == 0 {
			return c.Unsupported("srun", fmt.Sprintf("srun --nodelist=%q names no node", list))
		}
		for _, n := range nodes {
			if !slices.Contains(b.nodes, n) {
				// srun refuses a node outside the job's allocation
				return c.Unsupported("srun", fmt.Sprintf("srun --nodelist=%q names %q, which is not a node of the allocation (%s)", list, n, strings.Join(b.nodes, ",")))
			}
		}
	}
	// The step's task on the node rendered (its rank in the step), else a
	// step on other nodes only: the task of its first node, run for what
	// the batch script reads of it, its servers another node's.
	node, rank, own := nodes[0], 0, false
	for i, n := range nodes {
		if n == b.nodes[b.rank] {
			node, rank, own = n, i, true
		}
	}
	r := strconv.Itoa(rank)
	start := c.Seq()
	err := c.Builtin(ctx, []string{"SLURMD_NODENAME=" + node, "SLURM_PROCID=" + r, "SLURM_NODEID=" + r, "SLURM_LOCALID=0"})
	b.steps = append(b.steps, batchStep{start, c.LastSeq(), own})
	return err
}

// stepOf says where the command of Seq seq ran: in a step of the
// rendered node (own), in a step on other nodes only (in, not own), or in
// the batch script itself (neither), which runs on the job's first node.
func (b *batchCluster) stepOf(seq int) (in, own bool) {
	for _, s := range b.steps {
		if seq > s.after && seq <= s.through {
			return true, s.own
		}
	}
	return false, false
}

// batchStep is the Seq range (after, through] of the commands one srun
// step ran, and whether the rendered node is one of the step's.
type batchStep struct {
	after, through int
	own            bool
}

// expandHostlist expands a Slurm host list: "a,b", "node[0-2]",
// "node[0,3-4]".
func expandHostlist(s string) []string {
	var out []string
	for len(s) > 0 {
		// split at the first comma outside brackets
		depth, cut := 0, len(s)
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '[':
				depth++
			case ']':
				depth--
			case ',':
				if depth == 0 && cut == len(s) {
					cut = i
				}
			}
		}
		item := s[:cut]
		if cut < len(s) {
			s = s[cut+1:]
		} else {
			s = ""
		}
		open := strings.IndexByte(item, '[')
		if open < 0 && strings.ContainsAny(item, "[]") || open >= 0 && !strings.HasSuffix(item, "]") {
			return nil // unbalanced brackets
		}
		if open < 0 {
			if item != "" {
				out = append(out, item)
			}
			continue
		}
		prefix, ranges := item[:open], item[open+1:len(item)-1]
		for _, r := range strings.Split(ranges, ",") {
			lo, hi, isRange := strings.Cut(r, "-")
			a, err1 := strconv.Atoi(lo)
			z := a
			var err2 error
			if isRange {
				z, err2 = strconv.Atoi(hi)
			}
			if err1 != nil || err2 != nil || z < a || z-a > 4096 {
				return nil // not a host list srun takes
			}
			for k := a; k <= z; k++ {
				num := strconv.Itoa(k)
				for len(num) < len(lo) {
					num = "0" + num
				}
				out = append(out, prefix+num)
			}
		}
	}
	return out
}

// scontrol answers `scontrol show hostnames [LIST]` (one host per line;
// LIST defaults to SLURM_JOB_NODELIST); other forms are the sandbox's.
func (b *batchCluster) scontrol(_ context.Context, c *sandbox.Call) error {
	a := c.Args
	if len(a) >= 3 && a[1] == "show" && a[2] == "hostnames" {
		list := ""
		if len(a) >= 4 {
			list = strings.Join(a[3:], ",")
		} else if v, ok := c.Lookup("SLURM_JOB_NODELIST"); ok {
			list = v
		}
		var sb strings.Builder
		for _, h := range expandHostlist(list) {
			sb.WriteString(h + "\n")
		}
		_, _ = io.WriteString(c.Stdout(), sb.String())
		return nil
	}
	return sandbox.ErrUnhandled
}

// ip answers `ip route get ADDR` and `ip route [show]` of the node the
// command runs on (iproute2's output format).
func (b *batchCluster) ip(_ context.Context, c *sandbox.Call) error {
	a := c.Args[1:]
	n := b.nodeOf(c)
	src := "10.0.0." + strconv.Itoa(n.rank)
	switch {
	case len(a) >= 3 && (a[0] == "route" || a[0] == "r") && a[1] == "get":
		_, _ = fmt.Fprintf(c.Stdout(), "%s via 10.0.0.254 dev eth0 src %s uid 0 \n    cache \n", a[2], src)
		return nil
	case len(a) == 1 && (a[0] == "route" || a[0] == "r"), len(a) == 2 && (a[0] == "route" || a[0] == "r") && a[1] == "show":
		_, _ = fmt.Fprintf(c.Stdout(), "default via 10.0.0.254 dev eth0 proto static \n10.0.0.0/24 dev eth0 proto kernel scope link src %s \n", src)
		return nil
	}
	return sandbox.ErrUnhandled
}

// hostname prints the node's name (-s: the same, it has no domain).
func (b *batchCluster) hostname(_ context.Context, c *sandbox.Call) error {
	if len(c.Args) > 1 && c.Args[1] != "-s" && c.Args[1] != "--short" {
		return sandbox.ErrUnhandled
	}
	_, _ = io.WriteString(c.Stdout(), b.nodeOf(c).name+"\n")
	return nil
}

// ibvDevinfo lists the node's RDMA devices as `ibv_devinfo` starts each
// one ("hca_id:\t<name>"); with no documented devices it is unknown.
func (b *batchCluster) ibvDevinfo(_ context.Context, c *sandbox.Call) error {
	if len(b.rdma) == 0 || len(c.Args) > 1 {
		return sandbox.ErrUnhandled
	}
	var sb strings.Builder
	for _, d := range b.rdma {
		sb.WriteString("hca_id:\t" + d + "\n\ttransport:\t\t\tInfiniBand (0)\n\n")
	}
	_, _ = io.WriteString(c.Stdout(), sb.String())
	return nil
}

// dockerClient answers the docker client of a job step on a node the job
// has to itself: `docker ps` succeeds (the daemon answers; -q lists no
// container, the pre-clean finds none), rm / stop / pull / kill succeed;
// `docker run` is the sandbox's (it runs the container's command).
func dockerClient(_ context.Context, c *sandbox.Call) error {
	if len(c.Args) < 2 {
		return sandbox.ErrUnhandled
	}
	switch c.Args[1] {
	case "ps", "rm", "stop", "pull", "kill":
		return nil
	}
	return sandbox.ErrUnhandled
}

// xargsEmpty answers `xargs -r CMD…` given no input: it runs nothing
// (GNU --no-run-if-empty). Anything else is unknown.
func xargsEmpty(_ context.Context, c *sandbox.Call) error {
	noRun := false
	for _, a := range c.Args[1:] {
		if a == "-r" || a == "--no-run-if-empty" {
			noRun = true
		}
	}
	if !noRun || c.Stdin() == nil {
		return sandbox.ErrUnhandled
	}
	b, _ := io.ReadAll(io.LimitReader(c.Stdin(), 1<<16))
	if strings.TrimSpace(string(b)) != "" {
		return sandbox.ErrUnhandled
	}
	return nil
}

// sbatchCmd ends the run at `sbatch [options] SCRIPT [args]` when SCRIPT
// is a file the run can read (a batch job submitted from the checkout: the
// job is followed from the Trace's End, batchSubmission). Other forms are
// the sandbox's (it prints "Submitted batch job 1").
func sbatchCmd(_ context.Context, c *sandbox.Call) error {
	if s := sbatchScript(c.Args); s != "" && c.IsFile(s) {
		return c.End()
	}
	return sandbox.ErrUnhandled
}

// sbatchValueOpts are sbatch's short options that take a separate value.
const sbatchValueOpts = "ACDJLMNQSWabcdeikmnopqrstvwxFGH"

// sbatchScript is the batch script sbatch argv submits ("" with --wrap or
// none): the first operand after the options.
func sbatchScript(argv []string) string {
	for _, a := range argv[1:] {
		if strings.HasPrefix(a, "--wrap") {
			return ""
		}
	}
	return sbatchParse(argv).script
}

// sbatchLongTakesValue: sbatch long options written with a separate value
// (the flags without a value are the rest).
func sbatchLongTakesValue(k string) bool {
	switch k {
	case "--parsable", "--exclusive", "--spread-job", "--requeue", "--no-requeue", "--wait", "--hold", "--test-only",
		"--overcommit", "--contiguous", "--quiet", "--verbose", "--use-min-nodes", "--ignore-pbs", "--no-kill", "--oversubscribe":
		return false
	}
	return true
}

// importProbe recognises `python3 -c "import M[, N…]"` (a check whether
// modules are installed): the module names.
func importProbe(c *sandbox.Call) ([]string, bool) {
	a := c.Args
	if len(a) != 3 || a[1] != "-c" {
		return nil, false
	}
	body, ok := strings.CutPrefix(strings.TrimSpace(a[2]), "import ")
	if !ok {
		return nil, false
	}
	var mods []string
	for _, m := range strings.Split(body, ",") {
		m = strings.TrimSpace(m)
		if m == "" || !pyDotted(m) {
			return nil, false
		}
		mods = append(mods, m)
	}
	return mods, true
}

// pyDotted reports whether s is a dotted Python identifier (ASCII).
func pyDotted(s string) bool {
	for _, part := range strings.Split(s, ".") {
		if part == "" || part[0] >= '0' && part[0] <= '9' {
			return false
		}
		for i := 0; i < len(part); i++ {
			ch := part[i]
			if !(ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9') {
				return false
			}
		}
	}
	return true
}

// importChoice answers an import probe: whether the modules are installed
// on the host is not known, so it is a choice (sandbox.Call.Choose): they
// import (status 0), or the first does not (ModuleNotFoundError, status
// 1). With choices off it is unknown.
func importChoice(c *sandbox.Call, mods []string) error {
	k, ok := c.Choose(fmt.Sprintf("whether Python can import %s on this host", strings.Join(mods, ", ")),
		[]string{"import " + strings.Join(mods, ", ") + " succeeds", "No module named '" + mods[0] + "'"})
	if !ok {
		return sandbox.ErrUnhandled
	}
	if k == 0 {
		return nil
	}
	_, _ = fmt.Fprintf(c.Stderr(), "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nModuleNotFoundError: No module named '%s'\n", mods[0])
	return sandbox.ExitStatus(1)
}

// maxBatchNodes bounds the nodes of a batch job the renderer runs (one
// run per node).
const maxBatchNodes = 64

// stopText is a run's stop with its position relative to the checkout.
func (ws *Workspace) stopText(u *sandbox.Unsupported) string {
	v := *u
	v.Pos.File = ws.rel(v.Pos.File)
	return v.String()
}

// batchSubmission is a batch job a launcher run submitted (its End at
// sbatch): the script, the sbatch argv, the submit directory and the
// exported environment (sbatch's default --export=ALL).
type batchSubmission struct {
	end    *sandbox.End
	script string   // absolute
	args   []string // the script's arguments
	env    []string // what --export gives the script (batchEnv)
	nodes  int
	who    string
	// holes names the variables of env whose values differ between the
	// point's submissions (submissionHoles): its node tasks run with
	// holes in their place (batchTask), kept in tasks, which the point's
	// submissions share.
	holes []string
	tasks *holeTasks
}

// sbatchJob is what an sbatch argv submits: the script, its arguments,
// the node count (-N / --nodes, the last one given; a range min-max takes
// max; 0 when none or not a number) and --export ("" when not given).
type sbatchJob struct {
	script string
	args   []string
	nodes  int
	export string
}

// sbatchParse reads the options of an sbatch argv up to the script.
func sbatchParse(argv []string) sbatchJob {
	var j sbatchJob
	a := argv[1:]
	for i := 0; i < len(a); i++ {
		o, v := a[i], ""
		switch {
		case o == "--":
			if i+1 < len(a) {
				j.script, j.args = a[i+1], a[i+2:]
			}
			return j
		case (o == "-N" || o == "--nodes") && i+1 < len(a):
			v, i = a[i+1], i+1
		case strings.HasPrefix(o, "--nodes="):
			v = strings.TrimPrefix(o, "--nodes=")
		case strings.HasPrefix(o, "-N") && len(o) > 2:
			v = o[2:]
		case strings.HasPrefix(o, "--export="):
			j.export = strings.TrimPrefix(o, "--export=")
			continue
		case o == "--export" && i+1 < len(a):
			j.export, i = a[i+1], i+1
			continue
		case strings.HasPrefix(o, "--"):
			if !strings.Contains(o, "=") && sbatchLongTakesValue(o) {
				i++
			}
			continue
		case strings.HasPrefix(o, "-") && len(o) == 2:
			if strings.IndexByte(sbatchValueOpts, o[1]) >= 0 {
				i++
			}
			continue
		case strings.HasPrefix(o, "-"):
			continue
		default:
			j.script, j.args = o, a[i+1:]
			return j
		}
		if _, hi, ok := strings.Cut(v, "-"); ok {
			v = hi
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			n = 0
		}
		j.nodes = n
	}
	return j
}

// batchEnv is the environment sbatch --export gives the batch script (the
// submitting shell's exported env, "NAME=value"): ALL (the default) all of
// it, NONE none of it, a list names what it keeps (NAME) or sets
// (NAME=value), with ALL in the list keeping the rest too (sbatch(1)
// --export; SLURM_* variables are the job's own, set after). Error: a form
// it does not read (NIL, a file).
func batchEnv(env []string, export string) ([]string, error) {
	if export == "" || export == "ALL" {
		return env, nil
	}
	if export == "NONE" {
		return nil, nil
	}
	all := false
	var names, set []string
	for _, e := range strings.Split(export, ",") {
		switch {
		case e == "ALL":
			all = true
		case e == "NONE" || e == "NIL" || e == "":
			return nil, fmt.Errorf("sbatch --export=%s: a form the sandbox does not read", export)
		case strings.Contains(e, "="):
			set = append(set, e)
		default:
			names = append(names, e)
		}
	}
	var out []string
	if all {
		out = append(out, env...)
	} else {
		for _, kv := range env {
			k, _, _ := strings.Cut(kv, "=")
			if slices.Contains(names, k) {
				out = append(out, kv)
			}
		}
	}
	return sandbox.ApplyEnvOps(out, set), nil
}

// isModelRootVar: MODEL_DIR holds an AMD cluster's staged checkpoints by
// name (InferenceX benchmarks/multi_node/amd_utils/job.slurm looks for
// $MODEL_DIR/<models.yaml hf_dir> and $MODEL_DIR/$MODEL_NAME on every node;
// runners/launch_mi355x-amds.sh sets it to the share the models are staged
// on). Model staging rule: the point's model is staged there.
func isModelRootVar(name string) bool { return name == "MODEL_DIR" }

// renderBatch renders a multi-node point whose launcher submits a Slurm
// batch job with sbatch (InferenceX runners/launch_mi355x-amds.sh →
// benchmarks/multi_node/<key script> → amd_utils/submit.sh →
// amd_utils/job.slurm): the launcher runs up to its sbatch under every
// answer to the facts it asks that are not known; the job script runs
// once per node rank on the cluster of batchCluster, its steps (srun,
// docker run, the container's server.sh) in the sandbox, under every
// answer again; each node's server launches become processes (role from
// --disaggregation-mode, the router a frontend), a worker spanning nodes
// is its head (--node-rank 0) with NodesPerWorker from --nnodes, and
// identical workers are counted (Workers). A node's run that stops
// anywhere makes the point unsupported, naming where.
func (ws *Workspace) renderBatch(p Point, opt Options) (_ []launch.Process, job string, _ []string, _ error) {
	facts, _ := shellutil.FactsFor(p.Runner)
	ws.snInit()
	if ws.sn.runnersErr != nil {
		return nil, "", nil, ws.sn.runnersErr
	}
	var subs []batchSubmission
	var notes []string
	for _, l := range ws.existingLaunchers(p.Runner) {
		// the two runner names' runs from one with holes when it never
		// looks at them (launcherHoleRuns), else each name's own
		holed, _, useHoles := ws.launcherHoleRuns(p, l, endsOf(l.runners), facts, opt, holeUseSbatch, true, false)
		for i, rn := range endsOf(l.runners) {
			who := fmt.Sprintf("%s (runner %s)", l.rel, rn)
			runs := holed[i]
			if !useHoles {
				var err error
				runs, err = enumerateChoices(func(choices []int) (*ScriptRun, error) {
					run, _, err := ws.runLauncherWith(p, l, rn, facts, opt, true, choices, false)
					return run, err
				})
				var budget *choiceBudgetError
				if errors.As(err, &budget) {
					return nil, "", nil, &PointError{Status: StatusUnsupported, Note: who + ": " + budget.Error(), Pos: p.RefPos}
				}
				if err != nil {
					return nil, "", nil, limitStatus(p, err)
				}
			}
			for _, run := range runs {
				where := who
				if len(run.Choices) > 0 {
					where += " where " + answersText(run.Choices)
				}
				if run.End == nil || sbatchScript(run.End.Argv) == "" {
					if run.Stop != nil {
						return nil, "", nil, &PointError{Status: StatusUnsupported, Note: fmt.Sprintf("%s could not be followed to its batch job: %s", where, ws.stopText(run.Stop)), Pos: p.RefPos}
					}
					if len(run.Choices) > 0 && run.Exit != 0 {
						notes = append(notes, fmt.Sprintf("%s ends with status %d before it submits a job: no published result comes from it", where, run.Exit))
						continue
					}
					return nil, "", nil, &PointError{Status: StatusUnsupported, Note: fmt.Sprintf("%s submits no batch job: %s", where, endReason(run)), Pos: p.RefPos}
				}
				job := sbatchParse(run.End.Argv)
				script := job.script
				if !filepath.IsAbs(script) {
					script = filepath.Join(run.End.Dir, script)
				}
				env, err := batchEnv(run.End.Env, job.export)
				if err != nil {
					return nil, "", nil, &PointError{Status: StatusUnsupported, Note: fmt.Sprintf("%s: %v", where, err), Pos: p.RefPos}
				}
				subs = append(subs, batchSubmission{end: run.End, script: filepath.Clean(script), args: job.args, env: env, nodes: job.nodes, who: where})
			}
		}
	}
	if len(subs) == 0 {
		return nil, "", nil, &PointError{Status: StatusUnsupported, Note: "no launcher of runner label " + p.Runner + " submits a batch job: " + strings.Join(notes, "; "), Pos: p.RefPos}
	}
	// The variables the submissions differ in run as holes (batchholes.go).
	if names := submissionHoles(subs); names != nil {
		tasks := &holeTasks{} // the point's: dropped with its rendering
		for i := range subs {
			subs[i].holes, subs[i].tasks = names, tasks
		}
	}
	// Each distinct submission (runners differ in their names, answers in
	// what they found) is followed; they must start the same servers.
	var procs []launch.Process
	var from string
	seen := map[string]bool{}
	for _, sub := range subs {
		key := sub.script + "\x00" + strconv.Itoa(sub.nodes) + "\x00" + sub.end.Dir + "\x00" + strings.Join(sub.args, "\x01") + "\x00" + strings.Join(sub.env, "\x00")
		if seen[key] {
			continue
		}
		seen[key] = true
		got, subNotes, err := ws.followBatchOnce(p, opt, sub)
		if err != nil {
			return nil, "", nil, err
		}
		if procs == nil {
			procs, from = got, sub.who
			notes = append(notes, subNotes...)
			continue
		}
		if a, b := processKeys(procs), processKeys(got); a != b {
			return nil, "", nil, &PointError{Status: StatusUnsupported, Pos: p.RefPos, Note: fmt.Sprintf("the batch jobs %s and %s submit start different servers", from, sub.who)}
		}
	}
	return procs, ws.rel(subs[0].script), notes, nil
}

// batchJob is one followBatch outcome shared by the points that submit
// the same batch job (Workspace.followBatchOnce): the points of a key's
// concurrency list, its launchers' runners and their answers often submit
// byte-identical jobs. done is closed once the outcome is in; kept says it
// may be reused (a time limit or a cancel never is).
type batchJob struct {
	done  chan struct{}
	kept  bool
	procs []launch.Process
	notes []string
	perr  *PointError // Pos is the asking point's (set on reuse)
}

// batchJobKey is every input followBatch reads besides the point's
// position: the job (script, arguments, environment, node count, the
// directory and place it was submitted from and by whom), the hardware
// whose facts its nodes answer and the run's bounds.
func batchJobKey(p Point, opt Options, sub batchSubmission) string {
	return partsKey(
		[]string{sub.script, strconv.Itoa(sub.nodes), sub.end.Dir, sub.who, sub.end.At.String(), Hardware(p.Runner),
			opt.ScriptTimeout.String(), strconv.Itoa(opt.ScriptSteps)},
		sub.end.Argv, sub.args, sub.env)
}

// partsKey is a memo key of lists of strings, each list and string
// length-prefixed so that no two different inputs give the same key.
func partsKey(parts ...[]string) string {
	var b strings.Builder
	n := 0
	for _, part := range parts {
		n += 4
		for _, s := range part {
			n += len(s) + 6
		}
	}
	b.Grow(n) // (one buffer: the strings and their lengths, rarely over 6 digits)
	for _, part := range parts {
		b.WriteString(strconv.Itoa(len(part)))
		for _, s := range part {
			b.WriteByte(0)
			b.WriteString(strconv.Itoa(len(s)))
			b.WriteByte(':')
			b.WriteString(s)
		}
		b.WriteByte(1)
	}
	return b.String()
}

// followBatchOnce is followBatch run once per distinct batch job for the
// Workspace's life (batchJobKey): a point whose job another point already
// followed, or is following, takes a deep copy of that outcome, its
// *PointError placed at its own reference. An outcome that is not a
// *PointError bounded by counted work (a time limit, a cancel, another
// error) is never reused: the next point runs the job again. The outcome
// is the one followBatch gives for the point: nothing it reads is left out
// of the key (TestFollowBatchShared).
func (ws *Workspace) followBatchOnce(p Point, opt Options, sub batchSubmission) ([]launch.Process, []string, error) {
	key := batchJobKey(p, opt, sub)
	for {
		ws.batchMu.Lock()
		job, found := ws.batchJobs[key]
		if !found {
			job = &batchJob{done: make(chan struct{})}
			if ws.batchJobs == nil {
				ws.batchJobs = map[string]*batchJob{}
				ws.batchOf = map[string][]string{}
			}
			ws.batchJobs[key] = job
			ws.batchOf[p.ConfigKey] = append(ws.batchOf[p.ConfigKey], key)
		}
		ws.batchMu.Unlock()
		if found {
			var done <-chan struct{}
			if opt.ctx != nil {
				done = opt.ctx.Done()
			}
			opt.cpus.release() // a CPU is not held idle while it waits
			select {
			case <-job.done:
			case <-done:
			}
			opt.cpus.acquire()
			if opt.ctx != nil && opt.ctx.Err() != nil {
				return nil, nil, opt.ctx.Err()
			}
			if !job.kept {
				continue // its run hit a limit that is not ours: run it again
			}
			return job.copyFor(p)
		}
		procs, notes, err := ws.followBatch(p, opt, sub)
		var perr *PointError
		kept := err == nil || errors.As(err, &perr) && err == error(perr) && !errors.Is(err, ErrScriptTimeLimit)
		if kept {
			job.procs = (&launch.Deployment{Processes: procs}).Clone().Processes
			job.notes = slices.Clone(notes)
			if perr != nil {
				c := *perr
				c.Pos = Pos{}
				job.perr = &c
			}
			job.kept = true
		} else {
			ws.batchMu.Lock()
			if ws.batchJobs[key] == job { // (Forget may have dropped it)
				delete(ws.batchJobs, key)
			}
			ws.batchMu.Unlock()
		}
		close(job.done)
		return procs, notes, err
	}
}

// copyFor is a kept batch job's outcome for point p: a deep copy, the
// error placed at p's reference.
func (j *batchJob) copyFor(p Point) ([]launch.Process, []string, error) {
	if j.perr != nil {
		c := *j.perr
		c.Pos = p.RefPos
		return nil, nil, &c
	}
	return (&launch.Deployment{Processes: j.procs}).Clone().Processes, slices.Clone(j.notes), nil
}

// followBatch runs one submitted batch job, once per node rank
// (renderBatch).
func (ws *Workspace) followBatch(p Point, opt Options, first batchSubmission) ([]launch.Process, []string, error) {
	var notes []string
	if first.nodes < 1 || first.nodes > maxBatchNodes {
		return nil, nil, &PointError{Status: StatusUnsupported, Pos: p.RefPos, Note: fmt.Sprintf("%s: sbatch %s does not name a node count from 1 to %d (-N)", first.who, strings.Join(sandbox.ShortArgv(first.end.Argv), " "), maxBatchNodes)}
	}
	notes = append(notes, fmt.Sprintf("batch job %s on %d nodes, submitted by %s at %s; each node's task run on the faked cluster node0…node%d (IP 10.0.0.K)", ws.rel(first.script), first.nodes, first.who, ws.relPos(first.end.At), first.nodes-1))
	jobFacts, _ := shellutil.FactsFor(Hardware(p.Runner))
	root, _ := filepath.Abs(ws.Root)
	var out []launch.Process
	for rank := 0; rank < first.nodes; rank++ {
		env := append(append([]string(nil), first.env...), newBatchCluster(first.nodes, rank, nil).jobEnv(first.end.Dir)...)
		clusters := map[*ScriptRun]*batchCluster{}
		runs, err := enumerateChoices(func(choices []int) (*ScriptRun, error) {
			so := ScriptOptions{Env: env, ReadRoots: []string{root}, Facts: jobFacts, Dir: first.end.Dir, Name: ws.rel(first.script), Params: first.args,
				Timeout: opt.ScriptTimeout, Steps: opt.ScriptSteps, Cache: &ws.sn.scripts, ctx: opt.ctx,
				modelRoot: isModelRootVar, choose: true, choices: choices}
			run, b, err := ws.batchTask(opt, first, so, rank, Hardware(p.Runner), clusterRDMA[jobFacts.Cluster])
			if run != nil {
				clusters[run] = b
			}
			return run, err
		})
		var budget *choiceBudgetError
		if errors.As(err, &budget) {
			return nil, nil, &PointError{Status: StatusUnsupported, Note: fmt.Sprintf("%s on node %d: %s", ws.rel(first.script), rank, budget), Pos: p.RefPos}
		}
		if err != nil {
			return nil, nil, limitStatus(p, err)
		}
		for _, run := range runs {
			// a step's script is named by its absolute path
			// (`bash "$(pwd)/helpers/rdma_check.sh"`); a run batchTask
			// made from one with holes shares its slices: a copy is set
			run.Choices = slices.Clone(run.Choices)
			for i := range run.Choices {
				run.Choices[i].Pos = ws.relPos(run.Choices[i].Pos)
				run.Choices[i].Cond = ws.relPos(run.Choices[i].Cond)
			}
		}
		var alts []altProcs
		for _, run := range runs {
			where := fmt.Sprintf("%s, the task of node %d of %d", ws.rel(first.script), rank, first.nodes)
			if len(run.Choices) > 0 {
				where += " where " + answersText(run.Choices)
			}
			if run.Stop != nil {
				// Strict: a node's task may start a server after the stop
				// (node 0's router comes after its prefill worker and
				// the barriers), so a stop anywhere leaves the node's
				// processes unknown.
				what := "to its server launch"
				if launched(run) {
					what = "past its first server launch (a later one would be missed)"
				}
				return nil, nil, &PointError{Status: StatusUnsupported, Note: fmt.Sprintf("%s could not be followed %s: %s", where, what, ws.stopText(run.Stop)), Pos: p.RefPos}
			}
			// A node's servers: those its steps start, and on node 0 those
			// the batch script starts itself (it runs there); a step on
			// other nodes only starts theirs.
			t := *run.Trace
			t.Commands = nil
			for _, c := range run.Commands {
				in, own := clusters[run].stepOf(c.Seq)
				if !isServerLaunch(c.Argv) || own || !in && rank == 0 {
					t.Commands = append(t.Commands, c)
				}
			}
			run = &ScriptRun{Trace: &t, Srtctl: run.Srtctl}
			procs, err := ScriptProcesses(run, ws.rel(first.script))
			if err != nil {
				if len(run.Choices) > 0 && run.Exit != 0 {
					notes = append(notes, fmt.Sprintf("%s ends with status %d before a server starts: no published result comes from it", where, run.Exit))
					continue
				}
				return nil, nil, &PointError{Status: StatusUnsupported, Note: fmt.Sprintf("%s starts no server: %s", where, endReason(run)), Pos: p.RefPos}
			}
			alts = append(alts, altProcs{run: run, procs: containerEnv(run, procs)})
		}
		if len(alts) == 0 {
			return nil, nil, &PointError{Status: StatusUnsupported, Note: strings.Join(notes, "; "), Pos: p.RefPos}
		}
		merged, _, err := mergeAlternatives(alts)
		if err != nil {
			return nil, nil, &PointError{Status: StatusUnsupported, Note: fmt.Sprintf("%s, the task of node %d: %v", ws.rel(first.script), rank, err), Pos: p.RefPos}
		}
		out = append(out, merged...)
	}
	procs, err := batchRoles(out)
	if err != nil {
		return nil, nil, &PointError{Status: StatusUnsupported, Note: fmt.Sprintf("%s: %v", ws.rel(first.script), err), Pos: p.RefPos}
	}
	return procs, notes, nil
}

// jobEnv is what Slurm sets for the batch script of an allocation of b's
// nodes (job id 1), run on its first node from dir.
func (b *batchCluster) jobEnv(dir string) []string {
	n := strconv.Itoa(len(b.nodes))
	list := "node[0-" + strconv.Itoa(len(b.nodes)-1) + "]"
	if len(b.nodes) == 1 {
		list = b.nodes[0]
	}
	return []string{"SLURM_JOB_ID=1", "SLURM_JOBID=1", "SLURM_JOB_NODELIST=" + list, "SLURM_NODELIST=" + list,
		"SLURM_NNODES=" + n, "SLURM_JOB_NUM_NODES=" + n, "SLURM_NTASKS=" + n, "SLURM_NPROCS=" + n, "SLURM_PROCID=0",
		"SLURM_SUBMIT_DIR=" + dir, "SLURMD_NODENAME=" + b.nodes[0]}
}

// containerEnv keeps, of each process's env, what the container's own
// scripts set: a variable with the value `docker run` gave the container
// (-e NAME=value, -e NAME) is the job's plumbing into it, and PATH / HOME
// are the container's defaults (sandbox.dockerRun).
func containerEnv(run *ScriptRun, procs []launch.Process) []launch.Process {
	given := map[string]string{"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/root"}
	for _, c := range run.Commands {
		if len(c.Argv) < 2 || filepath.Base(c.Argv[0]) != "docker" || c.Argv[1] != "run" {
			continue
		}
		env := map[string]string{}
		for _, kv := range c.Env {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		for i := 2; i+1 < len(c.Argv); i++ {
			if a := c.Argv[i]; a == "-e" || a == "--env" {
				kv := c.Argv[i+1]
				if k, v, ok := strings.Cut(kv, "="); ok {
					given[k] = v
				} else {
					given[kv] = env[kv]
				}
				i++
			}
		}
	}
	for i := range procs {
		var kept []launch.EnvVar
		for _, e := range procs[i].Env {
			if v, ok := given[e.Name]; ok && v == e.Value {
				continue
			}
			kept = append(kept, e)
		}
		procs[i].Env = kept
	}
	return procs
}

// batchRoles gives each worker its role (--disaggregation-mode prefill /
// decode; agg otherwise), keeps a multi-node worker's head (--node-rank 0,
// NodesPerWorker from --nnodes) and counts identical workers: the same
// program, role, env and args but for the per-node placement
// (--dist-init-addr, --node-rank, --host values). Errors: a worker over
// several nodes without --node-rank (every node would claim rank 0), a
// node of a worker whose settings differ from its head's, a node without
// a head.
func batchRoles(procs []launch.Process) ([]launch.Process, error) {
	var out []launch.Process
	keys := map[string]int{}
	heads := map[string]int{} // dist-init-addr → head's key count
	var others []launch.Process
	for _, p := range procs {
		if p.Kind == launch.KindWorker {
			if v, ok := launch.Lookup(p.Args, "--disaggregation-mode"); ok && len(v) == 1 {
				switch v[0] {
				case "prefill":
					p.Role = launch.RolePrefill
				case "decode":
					p.Role = launch.RoleDecode
				}
			}
			nn := 0
			if v, ok := launch.Lookup(p.Args, "--nnodes"); ok && len(v) == 1 {
				if n, err := strconv.Atoi(v[0]); err == nil && n > 1 {
					nn = n
				}
			}
			if nn > 1 {
				rank, ok := launch.Lookup(p.Args, "--node-rank")
				if !ok || len(rank) != 1 {
					return nil, fmt.Errorf("a %s worker over %d nodes (--nnodes) without --node-rank: each node would start as rank 0", p.Role, nn)
				}
				p.NodesPerWorker = nn
				if rank[0] != "0" {
					others = append(others, p) // checked against its head below
					continue
				}
				addr, _ := launch.Lookup(p.Args, "--dist-init-addr")
				heads[strings.Join(addr, " ")+"\x00"+processKey(p)]++
			}
		}
		k := processKey(p)
		if i, ok := keys[k]; ok && p.Kind == launch.KindWorker {
			out[i].Workers = max(out[i].Workers, 1) + 1
			continue
		}
		keys[k] = len(out)
		out = append(out, p)
	}
	for _, p := range others {
		addr, _ := launch.Lookup(p.Args, "--dist-init-addr")
		if heads[strings.Join(addr, " ")+"\x00"+processKey(p)] == 0 {
			rank, _ := launch.Lookup(p.Args, "--node-rank")
			return nil, fmt.Errorf("a %s worker's node of --node-rank %s (--dist-init-addr %s) differs from its head's settings, or has no head", p.Role, strings.Join(rank, " "), strings.Join(addr, " "))
		}
	}
	return out, nil
}

// processKeys identifies a list of processes (processKey, in order).
func processKeys(ps []launch.Process) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s|%d\x01", processKey(p), p.Workers)
	}
	return b.String()
}

// processKey identifies a process for batchRoles' count.
func processKey(p launch.Process) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%s|%d\x00", p.Kind, p.Role, p.Program, p.NodesPerWorker)
	for _, a := range p.Args {
		switch a.Flag {
		case "--dist-init-addr", "--node-rank", "--host":
			b.WriteString(a.Flag + "\x00")
			continue
		}
		fmt.Fprintf(&b, "%s=%q%s\x00", a.Flag, a.Values, a.Unknown)
	}
	for _, e := range p.Env {
		fmt.Fprintf(&b, "%s=%q%s\x00", e.Name, e.Value, e.Unknown)
	}
	return b.String()
}
