package launch

import (
	"strings"
	"testing"
)

func TestCanonicalFlag(t *testing.T) {
	for _, c := range []struct{ engine, in, want string }{
		{"sglang", "--tp", "--tensor-parallel-size"},
		{"sglang", "--tp-size", "--tensor-parallel-size"},
		{"sglang", "--mem-fraction", "--mem-fraction-static"},
		{"sglang", "-tp", "-tp"}, // vLLM's short option is not SGLang's
		{"vllm", "-tp", "--tensor-parallel-size"},
		{"vllm", "-dpl", "--data-parallel-size-local"},
		{"vllm", "-O", "--optimization-level"},
		{"vllm", "--dyn-reasoning-parser", "--reasoning-parser"},
		{"vllm", "--tp", "--tp"},
		{"vllm", "--tensor-parallel-size", "--tensor-parallel-size"},
		{"vllm", "--tensor_parallel_size", "--tensor_parallel_size"}, // exact spelling only
		{"dynamo", "-tp", "-tp"},
		{"", "--tp", "--tp"},
	} {
		if got := CanonicalFlag(c.engine, c.in); got != c.want {
			t.Errorf("CanonicalFlag(%q, %q) = %q, want %q", c.engine, c.in, got, c.want)
		}
	}
}

func TestFlagAliasesCopy(t *testing.T) {
	a := FlagAliases()
	if got := a["vllm"]["--tensor-parallel-size"]; len(got) != 1 || got[0] != "-tp" {
		t.Fatalf("vllm --tensor-parallel-size aliases %q", got)
	}
	if got := a["sglang"]["--tensor-parallel-size"]; strings.Join(got, ",") != "--tp,--tp-size" {
		t.Fatalf("sglang --tensor-parallel-size aliases %q", got)
	}
	a["vllm"]["--tensor-parallel-size"][0] = "-x"
	delete(a, "sglang")
	if CanonicalFlag("vllm", "-tp") != "--tensor-parallel-size" || CanonicalFlag("sglang", "--tp") != "--tensor-parallel-size" {
		t.Error("changing FlagAliases' result changed the table")
	}
}

func TestParseFlagAliasesErrors(t *testing.T) {
	for _, c := range []struct{ name, y, want string }{
		{"not a flag", "sglang: {tp: [--tp]}", `"tp" is not a flag`},
		{"alias not a flag", "sglang: {--tp-size: [tp]}", `"tp" is not a flag`},
		{"double alias", "sglang: {--a: [--x], --b: [--x]}", `"--x" is an alias of both --a and --b`},
		{"shape", "sglang: [--tp]", "cannot unmarshal"},
	} {
		_, err := parseFlagAliases("a.yaml", []byte(c.y))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
