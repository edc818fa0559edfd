package infx

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"go.yaml.in/yaml/v3"
)

// KindLLMD is a point of an llm-d config (master framework llmd-vllm): an
// EndpointPickerConfig plus per-role vLLM settings in
// benchmarks/multi_node/llm-d-recipes/<CONFIG_FILE>, run by
// benchmarks/multi_node/llm-d/{submit.sh,job.slurm,server.sh}.
const KindLLMD Kind = "llm-d"

// LLMDRecipeDir is where the llm-d launcher reads CONFIG_FILE from
// (job.slurm mounts it at /etc/llmd-recipes; server.sh reads
// /etc/llmd-recipes/$CONFIG_FILE), repository relative.
const LLMDRecipeDir = "benchmarks/multi_node/llm-d-recipes"

// LLMDServerScript is the per-node entry point the llm-d renderer models,
// repository relative.
const LLMDServerScript = "benchmarks/multi_node/llm-d/server.sh"

// llmdModeledCommit and llmdModeledSHA256 identify the server.sh the
// renderer was written against (InferenceX 8b4dcfaeb, unchanged through
// 843c6254): a checkout with exactly this file renders without a note.
const (
	llmdModeledCommit = "8b4dcfaeb"
	llmdModeledSHA256 = "3596a901f1b1a25aa23b883854baf4c3dea4ab9fc9011dac90cd5f66df66aeba"
	// llmdWrapperGPUs is GPUS_PER_NODE's default in the modeled wrapper
	// (benchmarks/multi_node/dsv4_fp4_gb200_llmd-vllm-disagg.sh:35).
	llmdWrapperGPUs = 4
	// llmdSubmitGPUs is submit.sh's own default.
	llmdSubmitGPUs = 8
)

// llmdAnchors are the server.sh lines the rendering stands on: each is the
// trimmed text of a whole line, with its line number in the modeled
// version. A server.sh that lacks one of them is not rendered.
var llmdAnchors = []struct {
	id, text string
	line     int
}{
	{"port", `VLLM_PORT=8200`, 28},
	{"model", `MODEL="${MODEL_DIR}"`, 37},
	{"tpDefault", `TP_SIZE=1`, 121},
	{"epDefault", `ROLE_ENABLE_EP=true`, 122},
	{"section", `section = recipe.get('${ROLE}', {}) or {}`, 141},
	{"extra", `print(f'ROLE_EXTRA_ARGS={extra!r}')`, 143},
	{"envExport", `print(f'export {k}={v!r}')`, 151},
	{"GLOO_SOCKET_IFNAME", `export GLOO_SOCKET_IFNAME=${GLOO_SOCKET_IFNAME:-$DEFAULT_IFACE}`, 163},
	{"NCCL_SOCKET_IFNAME", `export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-$DEFAULT_IFACE}`, 164},
	{"VLLM_SKIP_P2P_CHECK", `export VLLM_SKIP_P2P_CHECK=1`, 165},
	{"VLLM_RANDOMIZE_DP_DUMMY_INPUTS", `export VLLM_RANDOMIZE_DP_DUMMY_INPUTS=${VLLM_RANDOMIZE_DP_DUMMY_INPUTS:-1}`, 169},
	{"VLLM_USE_DEEP_GEMM", `export VLLM_USE_DEEP_GEMM=1`, 170},
	{"VLLM_ENGINE_READY_TIMEOUT_S", `export VLLM_ENGINE_READY_TIMEOUT_S=${VLLM_ENGINE_READY_TIMEOUT_S:-1800}`, 174},
	{"LIBRARY_PATH", `export LIBRARY_PATH=/usr/local/cuda/compat:${_NCT_LIB}:${LIBRARY_PATH:-}`, 182},
	{"VLLM_NIXL_SIDE_CHANNEL_HOST", `export VLLM_NIXL_SIDE_CHANNEL_HOST="$HOST_IP"`, 183},
	{"VLLM_LOGGING_LEVEL", `export VLLM_LOGGING_LEVEL=${VLLM_LOGGING_LEVEL:-INFO}`, 184},
	{"UCX_TLS", `export UCX_TLS=${UCX_TLS:-cuda_copy,cuda_ipc,rc}`, 188},
	{"NVIDIA_GDRCOPY", `export NVIDIA_GDRCOPY=enabled`, 196},
	{"NVSHMEM_REMOTE_TRANSPORT", `export NVSHMEM_REMOTE_TRANSPORT=${NVSHMEM_REMOTE_TRANSPORT:-ibgda}`, 199},
	{"NVSHMEM_IB_ENABLE_IBGDA", `export NVSHMEM_IB_ENABLE_IBGDA=${NVSHMEM_IB_ENABLE_IBGDA:-true}`, 200},
	{"NVSHMEM_SYMMETRIC_SIZE", `export NVSHMEM_SYMMETRIC_SIZE=${NVSHMEM_SYMMETRIC_SIZE:-16G}`, 201},
	{"NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME", `export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=${NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME:-$DEFAULT_IFACE}`, 202},
	{"unsetHCA", `unset NVSHMEM_HCA_LIST 2>/dev/null || true`, 206},
	{"kvConfig", `KV_TRANSFER_CONFIG="{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"$KV_ROLE\",\"kv_load_failure_policy\":\"fail\"}"`, 221},
	{"--port", `--port "$VLLM_PORT"`, 224},
	{"--served-model-name", `--served-model-name "$MODEL_NAME"`, 225},
	{"--trust-remote-code", `--trust-remote-code`, 226},
	{"--disable-access-log-for-endpoints", `--disable-access-log-for-endpoints=/health,/metrics`, 227},
	{"--tensor-parallel-size", `--tensor-parallel-size "$TP_SIZE"`, 228},
	{"--kv_transfer_config", `--kv_transfer_config "$KV_TRANSFER_CONFIG"`, 229},
	{"apiServerCount", `API_SERVER_COUNT="${LLMD_API_SERVER_COUNT:-4}"`, 238},
	{"--api-server-count", `COMMON_ARGS+=(--api-server-count "$API_SERVER_COUNT")`, 245},
	{"--enable-expert-parallel", `--enable-expert-parallel`, 257},
	{"--data-parallel-size", `--data-parallel-size "$DP_SIZE"`, 258},
	{"--data-parallel-hybrid-lb", `--data-parallel-hybrid-lb`, 262},
	{"--data-parallel-size-local", `--data-parallel-size-local "$DP_SIZE_LOCAL"`, 263},
	{"--data-parallel-address", `--data-parallel-address "$DP_ADDR"`, 264},
	{"--data-parallel-rpc-port", `--data-parallel-rpc-port 5555`, 265},
	{"--data-parallel-start-rank", `--data-parallel-start-rank "$START_RANK"`, 266},
	{"--master-addr", `--master-addr "$DP_ADDR"`, 274},
	{"--nnodes", `--nnodes "$LWS_GROUP_SIZE"`, 275},
	{"--node-rank", `--node-rank "$LWS_WORKER_INDEX"`, 276},
	{"serve", `vllm serve "$MODEL" "${COMMON_ARGS[@]}" $ROLE_EXTRA_ARGS \`, 286},
}

// llmdSettings are the additional-settings the llm-d path reads
// (dsv4_*_llmd-vllm-disagg.sh, llm-d/submit.sh, server.sh). Any other
// setting is exported into the runner environment, which the pyxis srun
// of job.slurm hands to server.sh, so its effect is not known.
var llmdSettings = map[string]bool{
	"CONFIG_FILE": true, "PREFILL_NODES": true, "DECODE_NODES": true, "GPUS_PER_NODE": true,
	"PREFILL_WORKERS": true, "DECODE_WORKERS": true, "TIME_LIMIT": true,
}

// llmdPoint fills a point of an llmd-vllm multi-node row: the launcher
// (runners/launch_gb200-nv.sh, FRAMEWORK == llmd-vllm) runs the wrapper
// benchmarks/multi_node/<prefix>_<precision>_<sku>_llmd-vllm-disagg.sh,
// whose submit.sh/job.slurm start server.sh on every node; server.sh reads
// /etc/llmd-recipes/$CONFIG_FILE. A missing recipe makes the point
// StatusMissing (server.sh would warn and fall back to its defaults).
func (ws *Workspace) llmdPoint(p *Point, r *Row) {
	p.Kind, p.RefPos = KindLLMD, r.Pos
	cf, ok := lastSetting(r, "CONFIG_FILE")
	if !ok {
		p.Status = StatusOK
		return
	}
	p.RefPos = cf.Pos
	file := path.Clean(cf.Value)
	p.RecipeRef = LLMDRecipeDir + "/" + file
	if path.IsAbs(file) || file == ".." || strings.HasPrefix(file, "../") {
		p.Status, p.Note = StatusUnsupported, "CONFIG_FILE "+cf.Value+" leaves "+LLMDRecipeDir+" (llm-d server.sh reads /etc/llmd-recipes/$CONFIG_FILE)"
		return
	}
	f := filepath.Join(ws.Base, filepath.FromSlash(p.RecipeRef))
	if !isFile(f) {
		p.Status, p.Note = StatusMissing, "llm-d recipe "+p.RecipeRef+" is not in the checkout (server.sh would warn and run its defaults)"
		return
	}
	p.Recipe, p.Status = f, StatusOK
}

// lastSetting returns the last additional-setting named name of the row's
// prefill, decode and worker blocks: the workflow exports them in that
// order (benchmark-multinode-tmpl.yml `export …`), so the last one wins.
func lastSetting(r *Row, name string) (Setting, bool) {
	var out Setting
	found := false
	for _, wb := range []*WorkerBlock{r.Prefill, r.Decode, r.Worker} {
		if wb == nil {
			continue
		}
		for _, s := range wb.AdditionalSettings {
			if s.Name == name {
				out, found = s, true
			}
		}
	}
	return out, found
}

// llmdServer is what the renderer knows of the checkout's server.sh: the
// line of every anchor, and the file as cited in origins.
type llmdServer struct {
	file  string
	lines map[string]int
}

func (s *llmdServer) origin(id string) launch.Origin {
	return launch.Origin{Kind: launch.OriginInjected, Path: fmt.Sprintf("%s:%d", s.file, s.lines[id]), Detail: "llm-d server.sh"}
}

// llmdLoadServer reads the checkout's server.sh. Absent (a tree without
// shell scripts): the modeled version's lines, with a note. Present but
// lacking an anchor: a PointError (unsupported) naming it.
func (ws *Workspace) llmdLoadServer(p Point) (*llmdServer, []string, error) {
	s := &llmdServer{file: LLMDServerScript, lines: map[string]int{}}
	f := filepath.Join(ws.Base, filepath.FromSlash(LLMDServerScript))
	data, err := os.ReadFile(f)
	if err != nil {
		if !os.IsNotExist(err) {
			return nil, nil, err
		}
		for _, a := range llmdAnchors {
			s.lines[a.id] = a.line
		}
		return s, []string{fmt.Sprintf("%s is not in the checkout: rendered as the server.sh of InferenceX %s does it (line numbers of that version)", LLMDServerScript, llmdModeledCommit)}, nil
	}
	sum := sha256.Sum256(data)
	lines := strings.Split(string(data), "\n")
	for _, a := range llmdAnchors {
		for i, l := range lines {
			if strings.TrimSpace(l) == a.text {
				s.lines[a.id] = i + 1
				break
			}
		}
		if s.lines[a.id] == 0 {
			return nil, nil, &PointError{Status: StatusUnsupported, Pos: p.RefPos,
				Note: fmt.Sprintf("%s differs from the version the llm-d renderer models (InferenceX %s): no line %q", LLMDServerScript, llmdModeledCommit, a.text)}
		}
	}
	var notes []string
	if hex.EncodeToString(sum[:]) != llmdModeledSHA256 {
		notes = append(notes, fmt.Sprintf("%s is not byte-identical to the version the llm-d renderer models (InferenceX %s); every line the rendering relies on is present", LLMDServerScript, llmdModeledCommit))
	}
	return s, notes, nil
}

// llmdRole is one role section of an llm-d recipe as server.sh reads it.
type llmdRole struct {
	name   string // prefill | decode
	tp     int
	ep     bool
	tpO    launch.Origin // origin of tp (recipe or server.sh default)
	epO    launch.Origin
	extra  []llmdToken
	env    []launch.EnvVar
	origin launch.Origin
	notes  []string
}

// llmdToken is one word of extra-args with its origin.
type llmdToken struct {
	word   string
	origin launch.Origin
}

// llmdTopKeys are the top-level keys of an llm-d recipe the launcher reads:
// the EPP keys server.sh projects into the EPP config, the roles, slurm.
var llmdTopKeys = map[string]bool{
	"apiVersion": true, "kind": true, "plugins": true, "schedulingProfiles": true, "dataLayer": true,
	"prefill": true, "decode": true, "slurm": true,
}

// llmdUnsupported builds the PointError of a recipe key the renderer does not
// understand, at file:line:col of node n.
func llmdUnsupported(p Point, rel string, n *yaml.Node, format string, args ...any) error {
	where := rel + ": "
	if n != nil {
		where = fmt.Sprintf("%s:%d:%d: ", rel, n.Line, n.Column)
	}
	return &PointError{Status: StatusUnsupported, Pos: p.RefPos, Note: where + fmt.Sprintf(format, args...)}
}

// llmdParseRecipe reads the recipe's prefill and decode sections (absent
// sections keep server.sh's defaults) and checks every other key.
func (ws *Workspace) llmdParseRecipe(p Point, srv *llmdServer) (map[string]*llmdRole, []string, error) {
	rel := ws.rel(p.Recipe)
	data, err := launch.ReadInput(p.Recipe)
	if err != nil {
		return nil, nil, err
	}
	root, err := parseYAML(rel, data)
	if err != nil {
		return nil, nil, err
	}
	if root.Kind != yaml.MappingNode {
		return nil, nil, llmdUnsupported(p, rel, root, "llm-d recipe: want a mapping, got a %s", kindName(root))
	}
	var notes []string
	roles := map[string]*llmdRole{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], resolveAlias(root.Content[i+1])
		if !llmdTopKeys[k.Value] {
			return nil, nil, llmdUnsupported(p, rel, k, "key %s: not one the llm-d launcher reads (apiVersion, kind, plugins, schedulingProfiles, dataLayer, prefill, decode, slurm)", k.Value)
		}
		if k.Value == "slurm" {
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				continue
			}
			if v.Kind != yaml.MappingNode {
				return nil, nil, llmdUnsupported(p, rel, v, "slurm: want a mapping, got a %s", kindName(v))
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				if v.Content[j].Value != "time_limit" {
					return nil, nil, llmdUnsupported(p, rel, v.Content[j], "key slurm.%s: not one the llm-d launcher reads (submit.sh reads slurm.time_limit only)", v.Content[j].Value)
				}
			}
		}
	}
	for _, name := range []string{"prefill", "decode"} {
		r := &llmdRole{name: name, tp: 1, ep: true, tpO: srv.origin("tpDefault"), epO: srv.origin("epDefault"),
			origin: launch.Origin{Kind: launch.OriginRecipe, Path: rel + " " + name}}
		roles[name] = r
		kn := mapKey(root, name)
		sec := resolveAlias(mapGet(root, name))
		if sec == nil || (sec.Kind == yaml.ScalarNode && sec.Tag == "!!null") {
			notes = append(notes, fmt.Sprintf("%s has no %s section: server.sh's defaults (TP 1, expert parallel, no extra args)", rel, name))
			continue
		}
		r.origin.Path = fmt.Sprintf("%s:%d %s", rel, kn.Line, name)
		if sec.Kind != yaml.MappingNode {
			return nil, nil, llmdUnsupported(p, rel, sec, "%s: want a mapping, got a %s (server.sh's section.get fails)", name, kindName(sec))
		}
		for j := 0; j+1 < len(sec.Content); j += 2 {
			kk, vv := sec.Content[j], resolveAlias(sec.Content[j+1])
			yp := name + "." + kk.Value
			o := launch.Origin{Kind: launch.OriginRecipe, Path: fmt.Sprintf("%s:%d %s", rel, kk.Line, yp)}
			switch kk.Value {
			case "tp":
				v, kind := pyScalar(vv)
				if kind == "null" {
					continue // `tp is not None` is false: the default stays
				}
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if (kind != "int" && kind != "str") || err != nil || n < 1 {
					return nil, nil, llmdUnsupported(p, rel, vv, "%s: %q is not a positive integer (server.sh: int(tp))", yp, vv.Value)
				}
				r.tp, r.tpO = n, o
			case "enable-expert-parallel":
				v, kind := pyScalar(vv)
				switch kind {
				case "null":
					continue
				case "bool":
					r.ep = v == "True"
				case "str":
					r.ep = v != "" // Python truthiness: "false" is true
					if v != "" {
						r.notes = append(r.notes, fmt.Sprintf("%s:%d %s is the string %q, which server.sh's Python truthiness reads as true", rel, vv.Line, yp, v))
					}
				case "int":
					r.ep = v != "0"
				default:
					return nil, nil, llmdUnsupported(p, rel, vv, "%s: %q is not a boolean", yp, vv.Value)
				}
				r.epO = o
			case "extra-args":
				toks, err := llmdExtraArgs(p, rel, data, vv, yp)
				if err != nil {
					return nil, nil, err
				}
				r.extra = toks
			case "env":
				env, err := llmdEnv(p, rel, vv, yp)
				if err != nil {
					return nil, nil, err
				}
				r.env = env
			default:
				return nil, nil, llmdUnsupported(p, rel, kk, "key %s: not one server.sh reads from a role section (tp, enable-expert-parallel, extra-args, env)", yp)
			}
		}
	}
	return roles, notes, nil
}

// pyScalar resolves a scalar as PyYAML's safe_load (YAML 1.1) would and
// returns the Python repr-independent value with its type: "str", "int"
// (plain decimal), "bool" ("True"/"False"), "null", or "other" (floats,
// octal/hex/sexagesimal ints, timestamps, collections: anything whose
// Python value the renderer does not reproduce).
func pyScalar(n *yaml.Node) (string, string) {
	if n == nil {
		return "", "null"
	}
	if n.Kind != yaml.ScalarNode {
		return "", "other"
	}
	if n.Style&yaml.TaggedStyle != 0 {
		if n.Tag == "!!str" {
			return n.Value, "str"
		}
		return "", "other" // an explicit tag
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Value, "str"
	}
	// a plain scalar: PyYAML's YAML 1.1 resolvers
	v := n.Value
	switch v {
	case "", "~", "null", "Null", "NULL":
		return "", "null"
	case "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return "True", "bool"
	case "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return "False", "bool"
	}
	if pyDecimal.MatchString(v) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", "other"
		}
		return strconv.FormatInt(n, 10), "int"
	}
	if pyNumberish.MatchString(v) || strings.HasPrefix(v, "<<") || v == "=" {
		// floats, 0x/0o/0b/sexagesimal ints, timestamps, merge/value keys
		return "", "other"
	}
	return v, "str"
}

// llmdSafeText reports why s would not survive server.sh's
// `print(f'NAME={s!r}')` + eval unchanged ("" when it would): repr quotes
// with "…" (shell expands $, `, \) when s holds a single quote, escapes a
// backslash and non-printable characters (which single quotes keep
// literally).
func llmdSafeText(s string) string {
	switch {
	case strings.ContainsRune(s, '\''):
		return "a single quote (Python's repr switches to double quotes, which the shell's eval expands; server.sh's unquoted $ROLE_EXTRA_ARGS keeps quotes in the words vLLM receives)"
	case strings.ContainsRune(s, '\\'):
		return "a backslash (Python's repr doubles it; the shell's single quotes keep both)"
	}
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return fmt.Sprintf("the control character %q (Python's repr escapes it; the shell keeps the escape literally)", c)
		}
	}
	return ""
}

// llmdExtraArgs splits a role's extra-args like server.sh does: Python
// strips the string and hands it to the shell through repr + eval, and
// `vllm serve … $ROLE_EXTRA_ARGS` splits the unquoted expansion on IFS
// (space, tab, newline) without removing quotes. Each word's origin is the
// source line it is on (block scalars) or the scalar's line.
func llmdExtraArgs(p Point, rel string, data []byte, n *yaml.Node, yp string) ([]llmdToken, error) {
	v, kind := pyScalar(n)
	switch kind {
	case "null":
		return nil, nil
	case "str":
	default:
		return nil, llmdUnsupported(p, rel, n, "%s: want a string (server.sh calls .strip() on it), got %s", yp, llmdKindOf(n))
	}
	v = strings.TrimSpace(v)
	if why := llmdSafeText(v); why != "" {
		return nil, llmdUnsupported(p, rel, n, "%s holds %s", yp, why)
	}
	words := strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' })
	lines := blockWordLines(data, n, words)
	out := make([]llmdToken, len(words))
	for i, w := range words {
		out[i] = llmdToken{word: w, origin: launch.Origin{Kind: launch.OriginRecipe, Path: fmt.Sprintf("%s:%d %s[%d]", rel, lines[i], yp, i)}}
	}
	return out, nil
}

func llmdKindOf(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%q (%s)", n.Value, strings.TrimPrefix(n.ShortTag(), "!!"))
	}
	return "a " + kindName(n)
}

// blockWordLines gives the source line of every word of a block scalar
// (the words of its content lines, in order); for other scalars, or when
// the source lines do not give the same words, every word gets the
// scalar's line.
func blockWordLines(data []byte, n *yaml.Node, words []string) []int {
	out := make([]int, len(words))
	for i := range out {
		out[i] = n.Line
	}
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		return out
	}
	src := strings.Split(string(data), "\n")
	var got []string
	var at []int
	indent := -1
	for l := n.Line; l < len(src); l++ { // n.Line is the indicator's line (1-based): content starts at src[n.Line]
		line := strings.TrimRight(src[l], "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		ind := len(line) - len(strings.TrimLeft(line, " "))
		if indent < 0 {
			indent = ind
		}
		if ind < indent {
			break
		}
		for _, w := range strings.Fields(line) {
			got = append(got, w)
			at = append(at, l+1)
		}
		if len(got) >= len(words) {
			break
		}
	}
	if len(got) != len(words) {
		return out
	}
	for i := range words {
		if got[i] != words[i] {
			return out
		}
	}
	return at
}

// Patterns (read-only): a shell variable name; a plain scalar PyYAML reads
// as a decimal int; one it may read as another number or a timestamp; the
// wrapper's GPUS_PER_NODE default.
var (
	shellName   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	pyDecimal   = regexp.MustCompile(`^[-+]?(0|[1-9][0-9]*)$`)
	pyNumberish = regexp.MustCompile(`^[-+]?(\.?[0-9][-+0-9a-zA-Z_.: ]*|\.(inf|Inf|INF))$|^\.(nan|NaN|NAN)$`)
	wrapperGPUs = regexp.MustCompile(`(?m)^export GPUS_PER_NODE="\$\{GPUS_PER_NODE:-([0-9]+)\}"`)
)

// llmdEnv reads a role's env mapping as server.sh exports it:
// `export NAME=repr(value)` through eval, so a string keeps its text, an
// int its decimal digits, a bool becomes True/False and null None.
func llmdEnv(p Point, rel string, n *yaml.Node, yp string) ([]launch.EnvVar, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, llmdUnsupported(p, rel, n, "%s: want a mapping, got %s", yp, llmdKindOf(n))
	}
	var out []launch.EnvVar
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolveAlias(n.Content[i+1])
		if !shellName.MatchString(k.Value) {
			return nil, llmdUnsupported(p, rel, k, "%s: %q is not a shell variable name (server.sh's eval of export fails)", yp, k.Value)
		}
		val, kind := pyScalar(v)
		switch kind {
		case "str", "int", "bool":
		case "null":
			val = "None"
		default:
			return nil, llmdUnsupported(p, rel, v, "%s.%s: %s is not a string, decimal integer, boolean or null (its Python repr is not reproduced)", yp, k.Value, llmdKindOf(v))
		}
		if why := llmdSafeText(val); why != "" {
			return nil, llmdUnsupported(p, rel, v, "%s.%s holds %s", yp, k.Value, why)
		}
		e := launch.EnvVar{Name: k.Value, Value: val, Origin: launch.Origin{Kind: launch.OriginRecipe, Path: fmt.Sprintf("%s:%d %s.%s", rel, k.Line, yp, k.Value)}}
		if j, dup := seen[k.Value]; dup {
			out[j] = e
			continue
		}
		seen[k.Value] = len(out)
		out = append(out, e)
	}
	return out, nil
}

// llmdTopology is one role's placement as the wrapper, submit.sh and
// server.sh compute it.
type llmdTopology struct {
	nodes, workers, gpusPerNode int
	leaderRank                  int // node rank of the role's first engine leader
}

func (t llmdTopology) nodesPerWorker() int { return t.nodes / t.workers }
func (t llmdTopology) dpSize() int         { return t.nodesPerWorker() * t.gpusPerNode }

// llmdIP is the placeholder address of node rank i (as package
// infx/srtslurm names nodes).
func llmdIP(i int) string { return "10.0.0." + strconv.Itoa(i) }

// llmdSettingInt reads an integer additional-setting.
func llmdSettingInt(p Point, r *Row, name string) (int, bool, error) {
	s, ok := lastSetting(r, name)
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.Atoi(s.Value)
	if err != nil || n < 1 {
		return 0, false, &PointError{Status: StatusUnsupported, Pos: s.Pos, Note: fmt.Sprintf("additional-setting %s=%s is not a positive integer (submit.sh does shell arithmetic with it)", name, s.Value)}
	}
	return n, true, nil
}

// renderLLMD renders an llm-d point: one `vllm serve` worker process per
// role (the first engine's leader node; Workers engines of NodesPerWorker
// nodes each), with server.sh's injected flags and env, then the recipe's
// env (server.sh exports it first; its later exports override or default
// around it) and extra-args. The EPP, Envoy and pd-sidecar are left out
// (launch has no kind for them) and named in the notes. Errors: PointError
// (unsupported) for recipe keys or settings the renderer does not
// understand, with file:line:col.
func (ws *Workspace) renderLLMD(p Point, d *launch.Deployment) error {
	e, err := ws.Entry(p.ConfigKey)
	if err != nil {
		return err
	}
	var row *Row
	for i := range e.Rows {
		if e.Rows[i].Index == p.Row {
			row = &e.Rows[i]
		}
	}
	if row == nil {
		return fmt.Errorf("%s: no row %d", p.ConfigKey, p.Row)
	}
	for _, wb := range []*WorkerBlock{row.Prefill, row.Decode, row.Worker} {
		if wb == nil {
			continue
		}
		for _, s := range wb.AdditionalSettings {
			if !llmdSettings[s.Name] {
				return &PointError{Status: StatusUnsupported, Pos: s.Pos, Note: fmt.Sprintf("additional-setting %s: not one the llm-d path reads (CONFIG_FILE, PREFILL_NODES, DECODE_NODES, GPUS_PER_NODE, PREFILL_WORKERS, DECODE_WORKERS, TIME_LIMIT); the runner exports it and job.slurm's pyxis srun hands it to server.sh", s.Name)}
			}
		}
	}
	srv, notes, err := ws.llmdLoadServer(p)
	if err != nil {
		return err
	}
	d.Notes = append(d.Notes, notes...)
	// topology: the wrapper requires PREFILL_NODES and DECODE_NODES
	// (check_env_vars), defaults GPUS_PER_NODE and the worker counts
	top := map[string]*llmdTopology{}
	gpus := llmdWrapperGPUs
	if g, ok, err := llmdSettingInt(p, row, "GPUS_PER_NODE"); err != nil {
		return err
	} else if ok {
		gpus = g
	} else {
		w := fmt.Sprintf("benchmarks/multi_node/%s_%s_%s_llmd-vllm-disagg.sh", e.ModelPrefix, e.Precision, p.Hardware)
		wd, rerr := os.ReadFile(filepath.Join(ws.Base, filepath.FromSlash(w)))
		m := wrapperGPUs.FindSubmatch(wd)
		switch {
		case rerr == nil && m != nil:
			gpus, _ = strconv.Atoi(string(m[1]))
		case rerr == nil:
			gpus = llmdSubmitGPUs
			d.Notes = append(d.Notes, fmt.Sprintf("GPUS_PER_NODE is not set: %s gives no default, submit.sh's %d applies", w, llmdSubmitGPUs))
		default:
			d.Notes = append(d.Notes, fmt.Sprintf("GPUS_PER_NODE is not set and %s is not in the checkout: the modeled wrapper's default %d applies", w, llmdWrapperGPUs))
		}
	}
	for _, role := range []string{"prefill", "decode"} {
		up := strings.ToUpper(role)
		n, ok, err := llmdSettingInt(p, row, up+"_NODES")
		if err != nil {
			return err
		}
		if !ok {
			return &PointError{Status: StatusUnsupported, Pos: row.Pos, Note: up + "_NODES is not set: the llm-d wrapper's check_env_vars stops the run"}
		}
		w, ok, err := llmdSettingInt(p, row, up+"_WORKERS")
		if err != nil {
			return err
		}
		if !ok {
			w = 1
			if wb := map[string]*WorkerBlock{"prefill": row.Prefill, "decode": row.Decode}[role]; wb != nil && wb.NumWorker > 0 {
				w = wb.NumWorker // PREFILL_NUM_WORKERS / DECODE_NUM_WORKERS from the workflow
			}
		}
		if n%w != 0 {
			return &PointError{Status: StatusUnsupported, Pos: row.Pos, Note: fmt.Sprintf("%s_NODES (%d) is not divisible by %s_WORKERS (%d): submit.sh stops", up, n, up, w)}
		}
		top[role] = &llmdTopology{nodes: n, workers: w, gpusPerNode: gpus}
	}
	top["decode"].leaderRank = top["prefill"].nodes
	roles := map[string]*llmdRole{}
	if p.Recipe != "" {
		var rnotes []string
		roles, rnotes, err = ws.llmdParseRecipe(p, srv)
		if err != nil {
			return err
		}
		d.Notes = append(d.Notes, rnotes...)
		d.Source.File, d.Source.Recipe = ws.rel(p.Recipe), p.RecipeRef
	} else {
		for _, name := range []string{"prefill", "decode"} {
			roles[name] = &llmdRole{name: name, tp: 1, ep: true, tpO: srv.origin("tpDefault"), epO: srv.origin("epDefault"), origin: srv.origin("section")}
		}
		d.Notes = append(d.Notes, "no CONFIG_FILE: server.sh's defaults for both roles (TP 1, expert parallel, no extra args, no recipe env) and the image's EPP config")
		d.Source.File = LLMDServerScript
	}
	for _, name := range []string{"prefill", "decode"} {
		r, t := roles[name], top[name]
		proc := llmdProcess(srv, r, t, e, p)
		d.Processes = append(d.Processes, proc)
		d.Notes = append(d.Notes, r.notes...)
		if t.nodesPerWorker() > 1 {
			if r.ep {
				d.Notes = append(d.Notes, fmt.Sprintf("%s: each engine spans %d nodes; the process shown is the leader node's, the others differ in --data-parallel-start-rank (k×%d)", name, t.nodesPerWorker(), t.gpusPerNode))
			} else {
				d.Notes = append(d.Notes, fmt.Sprintf("%s: each engine spans %d nodes (pure TP); the process shown is the leader's, the others run --node-rank k --headless", name, t.nodesPerWorker()))
				if r.tp != t.nodesPerWorker()*t.gpusPerNode {
					d.Notes = append(d.Notes, fmt.Sprintf("%s: TP %d differs from the engine's %d GPUs (%d nodes × %d)", name, r.tp, t.nodesPerWorker()*t.gpusPerNode, t.nodesPerWorker(), t.gpusPerNode))
				}
			}
		}
		for _, tk := range r.extra {
			if strings.ContainsAny(tk.word, "*?[") {
				d.Notes = append(d.Notes, fmt.Sprintf("%s: extra-args word %s (%s) is subject to the shell's pathname expansion in server.sh's unquoted $ROLE_EXTRA_ARGS; rendered literally (no file matches it in a fresh container)", name, tk.word, tk.origin.Path))
			}
		}
	}
	d.Notes = append(d.Notes, "llm-d deployment layer not rendered (launch has no process kind for it): the decode leader also runs the EPP (epp --config-file from the recipe's apiVersion/kind/plugins/schedulingProfiles/dataLayer keys), Envoy (benchmarks/llm-d/envoy.yaml) in front of it, and a pd-sidecar on every decode serving node")
	return nil
}

// llmdProcess builds one role's worker process: server.sh's COMMON_ARGS
// for the role's first engine leader, then the recipe's extra-args; env:
// the recipe's exports, then server.sh's.
func llmdProcess(srv *llmdServer, r *llmdRole, t *llmdTopology, e *Entry, p Point) launch.Process {
	var args []launch.Arg
	add := func(id, flag string, vals ...string) {
		args = append(args, launch.Arg{Flag: flag, Values: vals, Origin: srv.origin(id)})
	}
	add("model", "", "/models")
	args[0].Origin.Detail += "; /models is job.slurm's read-only bind mount of the runner's MODEL_PATH"
	add("--port", "--port", "8200")
	add("--served-model-name", "--served-model-name", e.Model)
	add("--trust-remote-code", "--trust-remote-code")
	add("--disable-access-log-for-endpoints", "--disable-access-log-for-endpoints", "/health,/metrics")
	args = append(args, launch.Arg{Flag: "--tensor-parallel-size", Values: []string{strconv.Itoa(r.tp)}, Origin: r.tpO})
	kvRole := "kv_consumer"
	if r.name == "prefill" {
		kvRole = "kv_producer"
	}
	add("kvConfig", "--kv_transfer_config", `{"kv_connector":"NixlConnector","kv_role":"`+kvRole+`","kv_load_failure_policy":"fail"}`)
	npw := t.nodesPerWorker()
	leader := llmdIP(t.leaderRank)
	if r.ep {
		add("--api-server-count", "--api-server-count", "4")
		args = append(args, launch.Arg{Flag: "--enable-expert-parallel", Origin: r.epO})
		add("--data-parallel-size", "--data-parallel-size", strconv.Itoa(t.dpSize()))
		if npw > 1 {
			add("--data-parallel-hybrid-lb", "--data-parallel-hybrid-lb")
			add("--data-parallel-size-local", "--data-parallel-size-local", strconv.Itoa(t.gpusPerNode))
			add("--data-parallel-address", "--data-parallel-address", leader)
			add("--data-parallel-rpc-port", "--data-parallel-rpc-port", "5555")
			add("--data-parallel-start-rank", "--data-parallel-start-rank", "0")
		}
	} else if npw > 1 {
		add("--master-addr", "--master-addr", leader)
		add("--nnodes", "--nnodes", strconv.Itoa(npw))
		add("--node-rank", "--node-rank", "0")
	}
	// extra-args: flags with the words up to the next flag
	inExtra := false
	for _, tk := range r.extra {
		switch {
		case isFlag(tk.word):
			inExtra = true
			a := launch.Arg{Flag: tk.word, Origin: tk.origin}
			if strings.HasPrefix(tk.word, "--") {
				if f, v, ok := strings.Cut(tk.word, "="); ok {
					a.Flag, a.Values = f, []string{v}
				}
			}
			args = append(args, a)
		case inExtra:
			args[len(args)-1].Values = append(args[len(args)-1].Values, tk.word)
		default:
			args = append(args, launch.Arg{Values: []string{tk.word}, Origin: tk.origin})
		}
	}
	// env: the recipe's exports, then server.sh's (overrides and defaults)
	env := append([]launch.EnvVar(nil), r.env...)
	idx := map[string]int{}
	for i, v := range env {
		idx[v.Name] = i
	}
	set := func(id, name, value string, override bool) {
		if i, ok := idx[name]; ok {
			if override {
				env[i] = launch.EnvVar{Name: name, Value: value, Origin: srv.origin(id)}
			}
			return
		}
		idx[name] = len(env)
		env = append(env, launch.EnvVar{Name: name, Value: value, Origin: srv.origin(id)})
	}
	arch := "/usr/lib/x86_64-linux-gnu"
	if strings.HasPrefix(p.Hardware, "gb") {
		arch = "/usr/lib/aarch64-linux-gnu" // Grace hosts: uname -m is aarch64
	}
	set("GLOO_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME", "<default-iface>", false)
	set("NCCL_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME", "<default-iface>", false)
	set("VLLM_SKIP_P2P_CHECK", "VLLM_SKIP_P2P_CHECK", "1", true)
	set("VLLM_RANDOMIZE_DP_DUMMY_INPUTS", "VLLM_RANDOMIZE_DP_DUMMY_INPUTS", "1", false)
	set("VLLM_USE_DEEP_GEMM", "VLLM_USE_DEEP_GEMM", "1", true)
	set("VLLM_ENGINE_READY_TIMEOUT_S", "VLLM_ENGINE_READY_TIMEOUT_S", "1800", false)
	lib := "/usr/local/cuda/compat:" + arch + ":"
	if i, ok := idx["LIBRARY_PATH"]; ok {
		lib += env[i].Value
	}
	set("LIBRARY_PATH", "LIBRARY_PATH", lib, true)
	set("VLLM_NIXL_SIDE_CHANNEL_HOST", "VLLM_NIXL_SIDE_CHANNEL_HOST", llmdIP(t.leaderRank), true)
	set("VLLM_LOGGING_LEVEL", "VLLM_LOGGING_LEVEL", "INFO", false)
	set("UCX_TLS", "UCX_TLS", "cuda_copy,cuda_ipc,rc", false)
	if npw > 1 {
		set("NVIDIA_GDRCOPY", "NVIDIA_GDRCOPY", "enabled", true)
		set("NVSHMEM_REMOTE_TRANSPORT", "NVSHMEM_REMOTE_TRANSPORT", "ibgda", false)
		set("NVSHMEM_IB_ENABLE_IBGDA", "NVSHMEM_IB_ENABLE_IBGDA", "true", false)
		set("NVSHMEM_SYMMETRIC_SIZE", "NVSHMEM_SYMMETRIC_SIZE", "16G", false)
		set("NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME", "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME", "<default-iface>", false)
		if _, ok := idx["NVSHMEM_HCA_PE_MAPPING"]; ok {
			if i, ok := idx["NVSHMEM_HCA_LIST"]; ok {
				env = append(env[:i], env[i+1:]...) // server.sh unsets it
			}
		}
	}
	role := launch.RoleDecode
	if r.name == "prefill" {
		role = launch.RolePrefill
	}
	return launch.Process{Kind: launch.KindWorker, Role: role, Program: "vllm serve", Image: p.Image, Args: args, Env: env,
		Workers: t.workers, NodesPerWorker: npw, GPUsPerNode: t.gpusPerNode, Origin: r.origin}
}
