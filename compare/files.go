package compare

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Config files a process reads are compared by content (cookbook-sync issue
// "compare by content"): when a flag's value names a file the process
// carries (launch.Process.FileContents), the file's content stands in for
// the path. nginx.conf and nats.conf are read into one setting per
// directive ("nginx.http.keepalive_timeout", "nats.max_payload"), so a
// difference names the directive; JSON and YAML files become their
// canonical JSON; any other file its text. A side that has only the path
// is compared by the file's name (compare.go, filePass).

// fileSetting is one setting read from a config file: a dotted name and its
// value as written (tokens joined by one space).
type fileSetting struct {
	name, value string
	// literal: compare exactly ("$http_x_session_id" is an nginx variable,
	// not a placeholder).
	literal bool
}

// serviceProgram splits a service's command into its program and the
// arguments written inside it: "nats-server -c nats.conf" is program
// "nats-server" with "-c nats.conf"; "/configs/etcd" is "etcd" (the
// directory is where the launcher mounts the binary: srt-slurm's
// setup_head.py runs /configs/etcd and /configs/nats-server); "python -m
// mooncake.mooncake_store_service" keeps its module. Sources: the AgentX
// blocks' cmd (sgl-project/sglang docs/src/snippets/agentx/*.jsx, e.g.
// "nginx -c nginx.conf -g daemon off;") and NVIDIA/srt-slurm
// src/srtctl/cli/setup_head.py.
func serviceProgram(program string) (string, []launch.Arg) {
	words := strings.Fields(program)
	if len(words) == 0 {
		return "", nil
	}
	exe := path.Base(words[0])
	rest := words[1:]
	prog := exe
	if (exe == "python" || exe == "python3") && len(rest) >= 2 && rest[0] == "-m" {
		prog, rest = "python3 -m "+rest[1], rest[2:]
	}
	return prog, splitArgv(rest)
}

// splitArgv groups words into flags and their values: a word starting with
// "-" (not a number) opens a flag, the words after it are its values.
func splitArgv(words []string) []launch.Arg {
	var out []launch.Arg
	for _, w := range words {
		if strings.HasPrefix(w, "-") && len(w) > 1 && !isNumber(w) {
			out = append(out, launch.Arg{Flag: w})
			continue
		}
		if len(out) == 0 {
			out = append(out, launch.Arg{})
		}
		out[len(out)-1].Values = append(out[len(out)-1].Values, w)
	}
	return out
}

// natsFlag maps nats-server command-line flags to the config-file keys they
// set, so "-js -sd /tmp/nats" and a nats.conf with `jetstream { store_dir:
// "/tmp/nats" }` are the same settings. Source: nats-io/nats-server
// main.go usage (-js/--jetstream, -sd/--store_dir, -p/--port,
// -a/--addr/--net, -m/--http_port, --max_payload is config-only).
var natsFlag = map[string]string{
	"-js": "jetstream", "--jetstream": "jetstream",
	"-sd": "jetstream.store_dir", "--store_dir": "jetstream.store_dir",
	"-p": "port", "--port": "port",
	"-a": "host", "--addr": "host", "--net": "host",
	"-m": "http_port", "--http_port": "http_port",
}

// natsConfig reads a NATS server config file (nats-io/nats-server
// conf/parse.go syntax: `key: value`, `key = value` or `key value`, blocks
// `name { … }`, comments # and //) into settings named "nats.<path>". A
// block sets "<path>" = "enabled" (a jetstream block enables JetStream, as
// "jetstream: enabled" does); sizes with a K/KB/M/MB/G/GB suffix become
// bytes (max_payload: 8MB = 8388608). Errors: unbalanced braces.
func natsConfig(content string) ([]fileSetting, error) {
	var out []fileSetting
	var ctx []string
	toks := natsTokens(content)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t {
		case "}":
			if len(ctx) == 0 {
				return nil, fmt.Errorf("unbalanced '}'")
			}
			ctx = ctx[:len(ctx)-1]
			continue
		case "{", ":", "=", ";", ",":
			continue
		}
		key := strings.TrimSuffix(strings.TrimSuffix(t, ":"), "=")
		j := i + 1
		for j < len(toks) && (toks[j] == ":" || toks[j] == "=") {
			j++
		}
		name := strings.Join(append(append([]string(nil), ctx...), key), ".")
		if j < len(toks) && toks[j] == "{" {
			out = append(out, fileSetting{name: "nats." + name, value: "enabled"})
			ctx = append(ctx, key)
			i = j
			continue
		}
		if j >= len(toks) {
			out = append(out, fileSetting{name: "nats." + name, value: ""})
			break
		}
		v := unquote(toks[j])
		switch strings.ToLower(v) {
		case "true", "enabled", "enable", "on", "yes":
			if key == "jetstream" {
				v = "enabled"
			}
		}
		out = append(out, fileSetting{name: "nats." + name, value: natsSize(v)})
		i = j
	}
	if len(ctx) != 0 {
		return nil, fmt.Errorf("unbalanced '{'")
	}
	return out, nil
}

// natsTokens splits a NATS config into tokens: words, quoted strings, and
// the separators { } : = ; , standing alone; comments dropped.
func natsTokens(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		for i := 0; i < len(line); {
			c := line[i]
			switch {
			case c == '#' || (c == '/' && i+1 < len(line) && line[i+1] == '/'):
				i = len(line)
			case c == ' ' || c == '\t' || c == '\r':
				i++
			case strings.IndexByte("{}:=;,", c) >= 0:
				out = append(out, string(c))
				i++
			case c == '"' || c == '\'':
				j := i + 1
				for j < len(line) && line[j] != c {
					j++
				}
				out = append(out, line[i:min(j+1, len(line))])
				i = j + 1
			default:
				j := i
				for j < len(line) && strings.IndexByte(" \t\r{}:=;,#", line[j]) < 0 {
					j++
				}
				out = append(out, line[i:j])
				i = j
			}
		}
	}
	return out
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// natsSize turns a NATS size with a unit suffix into bytes (nats-server
// conf/lex.go: K/KB = 1024, M/MB = 1024², G/GB = 1024³, case-insensitive).
func natsSize(v string) string {
	u := strings.ToUpper(v)
	for _, s := range []struct {
		suf string
		mul int64
	}{{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		if n, ok := strings.CutSuffix(u, s.suf); ok {
			if x, err := strconv.ParseInt(n, 10, 64); err == nil {
				return strconv.FormatInt(x*s.mul, 10)
			}
		}
	}
	return v
}

// nginxConfig reads an nginx configuration (nginx.org core syntax:
// directives end with ';', blocks are `name args { … }`, '#' starts a
// comment) into settings named "nginx.<context>.<directive>" with the
// directive's arguments as the value ("nginx.http.keepalive_timeout" =
// "600s"; a location block's path is part of its context:
// "nginx.http.server.location /.proxy_pass"). The load-balancing method of
// each upstream is one setting, "nginx.balance": "round robin" (nginx's
// default) or the method directive (hash, ip_hash, least_conn, random) with
// a key variable defined by a `map` block resolved to the variable it maps
// ("hash $http_x_correlation_id consistent" with the map's other entries
// after it); the map blocks are read only for that. An upstream's server
// lines are "nginx.http.upstream.server" (their addresses, joined with
// " ; ") and "nginx.http.upstream.servers" (how many); a proxy_pass to an
// upstream names it "<upstream>" (the block's name is the file's own
// identifier). Source of the files
// compared: NVIDIA/srt-slurm src/srtctl/templates/nginx.conf.j2
// (frontend.nginx_session_affinity, nginx_session_affinity_header,
// nginx_keepalive_timeout) and the AgentX `files` nginx.conf entries.
// Errors: unbalanced braces, a directive without ';'.
func nginxConfig(content string) ([]fileSetting, error) {
	toks, err := nginxTokens(content)
	if err != nil {
		return nil, err
	}
	type block struct {
		name string
		args []string
		// upstream state
		method  string
		servers []string
		// map state
		entries [][2]string
	}
	var out []fileSetting
	maps := map[string]*block{} // map target variable -> block
	var upstreams []*block
	var stack []*block
	ctxName := func() string {
		var parts []string
		for _, b := range stack {
			n := b.name
			if b.name == "location" && len(b.args) > 0 {
				n += " " + strings.Join(b.args, " ")
			}
			parts = append(parts, n)
		}
		return strings.Join(parts, ".")
	}
	var words []string
	for _, t := range toks {
		switch t {
		case "{":
			if len(words) == 0 {
				return nil, fmt.Errorf("a block without a name")
			}
			b := &block{name: words[0], args: words[1:]}
			switch b.name {
			case "map":
				if len(b.args) == 2 {
					maps[b.args[1]] = b
				}
			case "upstream":
				upstreams = append(upstreams, b)
			}
			stack = append(stack, b)
			words = nil
		case "}":
			if len(words) > 0 {
				return nil, fmt.Errorf("directive %q without ';'", strings.Join(words, " "))
			}
			if len(stack) == 0 {
				return nil, fmt.Errorf("unbalanced '}'")
			}
			stack = stack[:len(stack)-1]
		case ";":
			if len(words) == 0 {
				continue
			}
			name, args := words[0], words[1:]
			words = nil
			var cur *block
			if len(stack) > 0 {
				cur = stack[len(stack)-1]
			}
			switch {
			case cur != nil && cur.name == "map":
				if len(args) > 0 {
					cur.entries = append(cur.entries, [2]string{name, strings.Join(args, " ")})
				}
				continue
			case cur != nil && cur.name == "upstream" && name == "server":
				cur.servers = append(cur.servers, strings.Join(args, " "))
				continue
			case cur != nil && cur.name == "upstream" && (name == "hash" || name == "ip_hash" || name == "least_conn" || name == "random" || name == "least_time"):
				cur.method = strings.TrimSpace(name + " " + strings.Join(args, " "))
				continue
			}
			out = append(out, fileSetting{name: "nginx." + join(ctxName(), name), value: strings.Join(args, " "), literal: true})
		default:
			words = append(words, t)
		}
	}
	if len(stack) != 0 {
		return nil, fmt.Errorf("unbalanced '{'")
	}
	if len(words) > 0 {
		return nil, fmt.Errorf("directive %q without ';'", strings.Join(words, " "))
	}
	// proxy_pass http://<upstream>: the upstream's name is an identifier of
	// this file ("backend_servers", "frontends"), not a setting
	for i := range out {
		for _, u := range upstreams {
			if len(u.args) == 1 {
				for _, sch := range []string{"http://", "https://", "grpc://"} {
					if out[i].value == sch+u.args[0] || strings.HasPrefix(out[i].value, sch+u.args[0]+"/") {
						out[i].value = sch + "<upstream>" + strings.TrimPrefix(out[i].value, sch+u.args[0])
					}
				}
			}
		}
	}
	for _, u := range upstreams {
		m := "round robin"
		if u.method != "" {
			m = u.method
			f := strings.Fields(m)
			if len(f) > 1 {
				if mb, ok := maps[f[1]]; ok {
					src, extra := mapText(mb.args[0], mb.entries)
					f[1] = src
					m = strings.Join(f, " ") + extra
				}
			}
		}
		out = append(out,
			fileSetting{name: "nginx.balance", value: m, literal: true},
			fileSetting{name: "nginx.http.upstream.server", value: strings.Join(u.servers, " ; "), literal: false},
			fileSetting{name: "nginx.http.upstream.servers", value: strconv.Itoa(len(u.servers)), literal: true})
	}
	return out, nil
}

// mapText shows the key of a `map $src $key { default $src; "" $request_id; }`
// as "$src" with the map's other entries as a suffix
// ` (map: "" → $request_id)`; a map whose default is not its source
// variable as `map($src) default → X`.
func mapText(src string, entries [][2]string) (string, string) {
	var extra []string
	def := ""
	for _, e := range entries {
		if e[0] == "default" {
			def = e[1]
			continue
		}
		extra = append(extra, e[0]+" → "+e[1])
	}
	s := src
	switch {
	case def == "":
		s = "map(" + src + ")"
	case def != src:
		s = "map(" + src + ") default → " + def
	}
	if len(extra) == 0 {
		return s, ""
	}
	return s, " (map: " + strings.Join(extra, ", ") + ")"
}

func join(ctx, name string) string {
	if ctx == "" {
		return name
	}
	return ctx + "." + name
}

// nginxTokens splits an nginx config into words, quoted strings (kept with
// their quotes) and the separators { } ; ; comments dropped.
func nginxTokens(s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '{' || c == '}' || c == ';':
			out = append(out, string(c))
			i++
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated quote")
			}
			out = append(out, s[i:j+1])
			i = j + 1
		default:
			j := i
			for j < len(s) && strings.IndexByte(" \t\r\n{};#", s[j]) < 0 {
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out, nil
}

// contentValue is a file's content as one comparable value: canonical JSON
// for JSON (a JSON-valued flag, or a .json file) and YAML (.yaml, .yml)
// files, else the text with trailing space trimmed from every line.
func contentValue(r *Rules, flag, file, content string) string {
	ext := strings.ToLower(path.Ext(file))
	if r.json[flag] || ext == ".json" {
		if c, ok := launch.CanonicalJSON(content); ok {
			return c
		}
	}
	if ext == ".yaml" || ext == ".yml" {
		var v any
		if err := yaml.Unmarshal([]byte(content), &v); err == nil {
			if c, ok := launch.CanonicalJSON(mustJSON(jsonable(v))); ok {
				return c
			}
		}
	}
	lines := strings.Split(strings.TrimSpace(content), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Join(lines, "\n")
}

// jsonable turns YAML-decoded maps with non-string keys into JSON-encodable
// values.
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonable(e)
		}
		return x
	case map[any]any:
		m := map[string]any{}
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = jsonable(e)
		}
		return x
	}
	return v
}
