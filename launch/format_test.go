package launch

import "testing"

// Quoting and layout rules from spec agentx-format.md (b) step 5; the
// expected strings are the examples quoted there.
func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":                                "''",
		"30000":                           "30000",
		"Qwen/Qwen3.5-397B-A17B-FP8":      "Qwen/Qwen3.5-397B-A17B-FP8",
		"expandable_segments:True":        "expandable_segments:True",
		"a@b%c+d=e,f":                     "a@b%c+d=e,f",
		"http://$ETCD_IP:2379":            `"http://$ETCD_IP:2379"`,
		"$NODE_IP":                        `"$NODE_IP"`,
		"${X}":                            `"${X}"`,
		`{"enable_group_semantics":true}`: `'{"enable_group_semantics":true}'`,
		"daemon off;":                     `'daemon off;'`,
		"it's":                            `'it'\''s'`,
		"a b":                             `'a b'`,
		"tcp://*:5557":                    `'tcp://*:5557'`,
		"·":                               "'·'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
		if got := string(AppendQuote([]byte("x"), in)); got != "x"+want {
			t.Errorf("AppendQuote(%q) = %s", in, got)
		}
	}
}

func TestFormat(t *testing.T) {
	cases := []struct {
		p    Process
		want string
	}{
		{Process{Kind: KindEtcd, Program: "etcd", Args: []Arg{
			{Flag: "--data-dir", Values: []string{"/tmp/etcd"}},
			{Flag: "--listen-client-urls", Values: []string{"http://0.0.0.0:2379"}},
			{Flag: "--advertise-client-urls", Values: []string{"http://$ETCD_IP:2379"}},
		}}, "etcd \\\n  --data-dir /tmp/etcd \\\n  --listen-client-urls http://0.0.0.0:2379 \\\n  --advertise-client-urls \"http://$ETCD_IP:2379\""},
		{Process{Kind: KindDynamoFrontend, Program: "python3 -m dynamo.frontend",
			Env:  []EnvVar{{Name: "DYN_REQUEST_PLANE", Value: "tcp"}, {Name: "ETCD_ENDPOINTS", Value: "http://$ETCD_IP:2379"}},
			Args: []Arg{{Flag: "--http-port", Values: []string{"8000"}}, {Flag: "--router-mode", Values: []string{"kv"}}}},
			"DYN_REQUEST_PLANE=tcp \\\nETCD_ENDPOINTS=\"http://$ETCD_IP:2379\" \\\npython3 -m dynamo.frontend \\\n  --http-port 8000 \\\n  --router-mode kv"},
		// nginx without args: the quoted form, whatever the stored cmd.
		{Process{Kind: KindNginx, Program: "nginx -c nginx.conf -g daemon off;"}, "nginx -c nginx.conf -g 'daemon off;'"},
		// A command without args prints alone, after env lines.
		{Process{Kind: KindNATS, Program: "nats-server -c nats.conf", Env: []EnvVar{{Name: "A", Value: ""}}}, "A='' \\\nnats-server -c nats.conf"},
		// Preamble first; bare flags; multi-value flags; positional args.
		{Process{Kind: KindMooncakeStore, Program: "python -m mooncake.mooncake_store_service",
			Preamble: []string{"ulimit -n 1048576", "ulimit -l unlimited"},
			Args: []Arg{{Flag: "--port", Values: []string{"8800"}}, {Flag: "--trust-remote-code"},
				{Flag: "--prefill", Values: []string{"http://$PREFILL_0_HEAD_IP:30000", "8998"}}, {Values: []string{"model"}}}},
			"ulimit -n 1048576\nulimit -l unlimited\npython -m mooncake.mooncake_store_service \\\n  --port 8800 \\\n  --trust-remote-code \\\n  --prefill \"http://$PREFILL_0_HEAD_IP:30000\" 8998 \\\n  model"},
	}
	for _, c := range cases {
		if got := Format(&c.p); got != c.want {
			t.Errorf("Format(%s):\n got %q\nwant %q", c.p.Program, got, c.want)
		}
	}
}
