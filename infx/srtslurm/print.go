package srtslurm

import (
	"fmt"
	"math"
	"regexp"
	"strings"
)

var reShellSafe = regexp.MustCompile(`^[a-zA-Z0-9_@%+=:,./-]+$`)

// shellQuote is Python's shlex.quote.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if reShellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// shellJoin is Python's shlex.join.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		// <log_dir> stands for a real path: quote as a path would be.
		q[i] = strings.ReplaceAll(shellQuote(strings.ReplaceAll(a, "<log_dir>", "/LOG_DIR")), "/LOG_DIR", "<log_dir>")
	}
	return strings.Join(q, " ")
}

// Text prints the rendering in the form of srt-slurm's golden renderings
// (../shared/golden/srt-slurm/README.md): a header, one "## srun on" block
// per step (exports, preamble label, shlex-joined command), the distinct
// bash preambles, then the files srt-slurm writes. A schema-2 service step
// also names its services entry ("   # service: <name>", first line of the
// block).
func (r *Rendering) Text() string {
	var blocks []string
	var h strings.Builder
	fmt.Fprintf(&h, "# recipe: %s\n", r.Label)
	nodes := make([]string, len(r.Nodes))
	for i, n := range r.Nodes {
		nodes[i] = "'" + n + "'"
	}
	fmt.Fprintf(&h, "# name: %s | backend: %s | frontend: %s | nodes: [%s] | infra: %s | head: %s\n",
		r.Name, r.Backend, r.Frontend, strings.Join(nodes, ", "), r.Infra, r.Head)
	h.WriteString("# endpoints:\n")
	for _, e := range r.Endpoints {
		fmt.Fprintf(&h, "#   %s nodes=%s gpus=%s\n", e.Name, strings.Join(e.Nodes, ","), joinInts(e.GPUs))
	}
	blocks = append(blocks, h.String())
	var preambles []string
	label := map[string]string{}
	for _, s := range r.Steps {
		var b strings.Builder
		b.WriteString("## srun on " + strings.Join(s.Nodes, ","))
		extra := ""
		if s.MPI != "" {
			extra = "ntasks=" + s.NTasks + " mpi=" + s.MPI
		}
		b.WriteString(" " + extra + " image=" + s.Image + "\n")
		if s.Service != "" {
			// schema-2 services registry entry (not in srt-slurm's
			// renderings, which predate it)
			b.WriteString("   # service: " + s.Service + "\n")
		}
		for _, e := range s.Env {
			b.WriteString("   env " + e.Name + "=" + e.Value + "\n")
		}
		if s.Preamble != "" {
			l, ok := label[s.Preamble]
			if !ok {
				l = fmt.Sprintf("P%d", len(preambles)+1)
				label[s.Preamble] = l
				preambles = append(preambles, s.Preamble)
			}
			b.WriteString("   bash-preamble: " + l + "\n")
		}
		b.WriteString("   " + shellJoin(s.Argv()) + "\n")
		blocks = append(blocks, b.String())
	}
	for i, p := range preambles {
		blocks = append(blocks, fmt.Sprintf("## bash-preamble P%d (runs inside the container, joined with && before the command)\n%s\n", i+1, p))
	}
	for _, f := range r.Files {
		blocks = append(blocks, "## file "+f.Name+"\n"+f.Content+"\n")
	}
	return strings.Join(blocks, "\n")
}

// nginxTpl says which generation of srt-slurm's nginx.conf.j2 a ref has
// (NVIDIA/srt-slurm src/srtctl/templates/nginx.conf.j2): ulimit is the
// {% if nginx_raise_ulimit %} block (392b98f6, not on the
// sa-submission-q2-2026 / aflowers branches), affinity the 45m body cap plus
// session-affinity blocks (38fc4c00 + a98738de, tag v1.0.6), keepalive the
// keepalive settings (61f1e23b, tag v1.0.40). The yaml names are those of
// releases.yaml.
type nginxTpl struct {
	Ulimit    bool `yaml:"ulimit"`
	Affinity  bool `yaml:"affinity"`
	Keepalive bool `yaml:"keepalive"`
}

// nginxConf renders nginx.conf.j2 of generation t (Jinja's default
// whitespace: a block tag's line keeps its newline) for frontends at
// ips:8180 behind listen port 8000.
func nginxConf(t nginxTpl, ips []string, ulimit, affinity bool, header, keepalive string) string {
	var b strings.Builder
	b.WriteString(`# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
# Defines the group of servers to which NGINX will proxy requests.
# NGINX will cycle through these servers in a round-robin fashion by default.
worker_processes auto;
`)
	if t.Ulimit {
		if ulimit {
			b.WriteString("\nworker_rlimit_nofile 1048576;\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("\nhttp {\n")
	if t.Affinity {
		b.WriteString(`    # Raise the request-body cap (nginx default is 1 MiB) so the load balancer
    # does not reject large client requests with 413 before they reach the
    # frontend. Agentic replay traces (e.g. multi-turn cc-traces warmup bodies)
    # exceed 1 MiB; this mirrors the dynamo frontend's own body limit so nginx
    # is never the bottleneck and is never more permissive than the backend.
    client_max_body_size 45m;
`)
	}
	b.WriteString("    access_log off;\n")
	if t.Affinity {
		if affinity {
			v := "$http_" + strings.ReplaceAll(strings.ToLower(header), "-", "_")
			b.WriteString(`
    # Keep a Dynamo session on one frontend. Anonymous requests use NGINX's
    # generated request ID so an empty session header cannot pin all traffic.

    map ` + v + ` $frontend_hash_key {
        default ` + v + `;
        "" $request_id;
    }
`)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	if t.Keepalive {
		b.WriteString(`    # Agentic replay reproduces recorded think-time, so a session's connection can
    # sit idle for minutes between turns. nginx's default keepalive_timeout of 75s
    # closes it underneath a pooled client connection, and the client's next write
    # on that socket surfaces as "broken pipe" / "server disconnected" with nothing
    # logged server-side.
    keepalive_timeout ` + keepalive + `;

`)
	}
	b.WriteString("    upstream backend_servers {\n")
	if t.Affinity {
		if affinity {
			b.WriteString("\n        hash $frontend_hash_key consistent;\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("        ")
	for _, ip := range ips {
		b.WriteString("\n        server " + ip + ":8180;\n        ")
	}
	b.WriteString("\n")
	if t.Keepalive {
		b.WriteString(`        # Reuse upstream connections instead of a fresh TCP handshake per request.
        keepalive 512;
        keepalive_timeout ` + keepalive + `;
`)
	}
	b.WriteString(`    }

    # The main server block that listens for incoming traffic.
    server {
        listen 8000; # Public-facing port for incoming HTTP requests.

        location / {
            # Pass the request to the upstream group defined above.
            proxy_pass http://backend_servers;

            proxy_buffering off;
            proxy_read_timeout 24h;
            proxy_send_timeout 24h;
`)
	if t.Keepalive {
		b.WriteString(`
            # Required for the upstream keepalive pool above: without these nginx
            # talks HTTP/1.0 to the backend and opens a new connection per request.
            proxy_http_version 1.1;
            proxy_set_header Connection "";
`)
	}
	b.WriteString(`        }
    }
}

events {

    #
    # Determines how many clients will be served by each worker process.
    # (Max clients = worker_connections * worker_processes)
    # Should be equal to ` + "`ulimit -n / worker_processes`" + `
    #
    worker_connections 65535;

    #
    # Let each process accept multiple connections.
    # Accept as many connections as possible, after nginx gets notification
    # about a new connection.
    # May flood worker_connections, if that option is set too low.
    #
    multi_accept on;

    #
    # Preferred connection method for newer linux versions.
    # Essential for linux, optmized to serve many clients with each thread.
    #
    use epoll;
}`)
	return b.String()
}

// safeDump is PyYAML safe_dump(data, default_flow_style=False) of a
// mapping: block style, keys sorted, sequences not indented under their key,
// scalars in PyYAML's plain or single-quoted form.
func safeDump(m *omap) string { return dumpYAML(m, true) }

// safeDumpOrdered is safe_dump(data, sort_keys=False): keys in insertion
// order.
func safeDumpOrdered(m *omap) string { return dumpYAML(m, false) }

func dumpYAML(m *omap, sortKeys bool) string {
	var b strings.Builder
	if m == nil || m.len() == 0 {
		return "{}\n"
	}
	dumpMap(&b, m, 0, sortKeys)
	return b.String()
}

func sortedEntries(m *omap, sortKeys bool) []*entry {
	es := append([]*entry(nil), m.entries...)
	if !sortKeys {
		return es
	}
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].Key < es[j-1].Key; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
	return es
}

func dumpMap(b *strings.Builder, m *omap, indent int, sortKeys bool) {
	pad := strings.Repeat(" ", indent)
	for _, e := range sortedEntries(m, sortKeys) {
		b.WriteString(pad + yamlScalar(e.Key) + ":")
		dumpValue(b, e.Val, indent, sortKeys)
	}
}

func dumpValue(b *strings.Builder, v any, indent int, sortKeys bool) {
	switch x := v.(type) {
	case *omap:
		if x.len() == 0 {
			b.WriteString(" {}\n")
			return
		}
		b.WriteString("\n")
		dumpMap(b, x, indent+2, sortKeys)
	case []any:
		if len(x) == 0 {
			b.WriteString(" []\n")
			return
		}
		b.WriteString("\n")
		pad := strings.Repeat(" ", indent)
		for _, it := range x {
			b.WriteString(pad + "-")
			switch y := it.(type) {
			case *omap:
				if y.len() == 0 {
					b.WriteString(" {}\n")
					continue
				}
				// first key on the dash line
				es := sortedEntries(y, sortKeys)
				b.WriteString(" " + yamlScalar(es[0].Key) + ":")
				dumpValue(b, es[0].Val, indent+2, sortKeys)
				for _, e := range es[1:] {
					b.WriteString(strings.Repeat(" ", indent+2) + yamlScalar(e.Key) + ":")
					dumpValue(b, e.Val, indent+2, sortKeys)
				}
			case []any:
				dumpValue(b, y, indent+2, sortKeys)
			default:
				b.WriteString(" " + yamlScalarValue(it) + "\n")
			}
		}
	default:
		b.WriteString(" " + yamlScalarValue(v) + "\n")
	}
}

func yamlScalarValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		switch {
		case math.IsNaN(x):
			return ".nan"
		case math.IsInf(x, 1):
			return ".inf"
		case math.IsInf(x, -1):
			return "-.inf"
		}
		s := pyFloat(x)
		if !strings.Contains(s, ".") && strings.Contains(s, "e") {
			s = strings.Replace(s, "e", ".0e", 1)
		}
		return s
	case string:
		return yamlScalar(x)
	}
	return pyStr(v)
}

// yamlScalar writes a string plainly when PyYAML would, else single-quoted.
func yamlScalar(s string) string {
	plain := s != "" && s == strings.TrimSpace(s) && !strings.ContainsAny(s, "\n\r\t")
	if plain {
		if _, isStr := resolvePlain(s).(string); !isStr {
			plain = false
		}
	}
	if plain && strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@`") {
		plain = len(s) > 1 && strings.ContainsAny(s[:1], "-?:") && s[1] != ' '
	}
	if plain && (strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":")) {
		plain = false
	}
	if plain && strings.ContainsAny(s, ",[]{}") {
		// flow indicators are allowed in block plain scalars by PyYAML
		// except at the start (checked above).
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
