package upstream

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/fuzzbound"
)

// FuzzRefreshInput: Refresh never panics on any snippet text; with no
// reachable API it either fails or finds nothing to look up.
func FuzzRefreshInput(f *testing.F) {
	if b, err := os.ReadFile("testdata/refresh/agentx.jsx"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`export const agentx = {"source": {"repo": "https://github.com/a/b", "prs": {"1": {"run": null, "status": "in-progress"}}}};`))
	f.Add([]byte(`export const agentx = {"a": "\"", "b": "\\", "status": "verified"}`))
	f.Add([]byte("export const x = "))
	c, err := New(Options{APIURL: "http://127.0.0.1:1/", MaxRetries: -1})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		err := fuzzbound.Within(fuzzbound.Bound, func() error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // no network: any lookup fails at once
			out, changes, err := c.Refresh(ctx, src)
			if err == nil && len(out) != len(src) && len(changes) == 0 {
				return fmt.Errorf("text changed without changes")
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%v\ninput: %q", err, src)
		}
	})
}

// FuzzLinks: link parsing never panics and never maps outside the repo.
func FuzzLinks(f *testing.F) {
	for _, s := range []string{"https://github.com/a/b/pull/1", "https://docs.sglang.io/cookbook/a/b", "https://recipes.vllm.ai/o/m?x=1", "%", "https://docs.sglang.io/cookbook/../.."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		err := fuzzbound.Within(fuzzbound.Bound, func() error {
			ParsePRURL(u)
			if _, files, ok, err := PageSource(u); ok && err == nil {
				for _, p := range files {
					if validPath(p) != nil {
						return fmt.Errorf("%q maps to bad path %q", u, p)
					}
				}
			}
			Identity("a/b", u)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
