package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"
)

const (
	ghToken = "ghp_Zx8Qw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc"
	awsKey  = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	sha     = "843c6254ff69e6f1b2d7a0c5b38e4f9d21a7c6b3"
)

// hostileEnv is a CI environment: two secrets and ordinary variables whose
// values must never be redacted.
var hostileEnv = []string{
	"GH_TOKEN=" + ghToken,
	"AWS_SECRET_ACCESS_KEY=" + awsKey,
	"GITHUB_SHA=" + sha,
	"PWD=/home/runner/work/InferenceX/InferenceX",
	"HOME=/home/runner",
	"SHORT_TOKEN=abc1234", // 7 characters: too short to tell from text
	"ACTIONS_ID_TOKEN_REQUEST_URL=https://pipelines.actions.githubusercontent.com/Ab3dE/_apis/hubs/Actions/plans",
}

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"GH_TOKEN": true, "GITHUB_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true, "hf_token": true, "DOCKER_PASSWORD": true,
		"MYSQL_PASSWD": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "API_KEY": true,
		"GITHUB_SHA": false, "PWD": false, "HOME": false, "PATH": false, "RUNNER_TEMP": false, "GITHUB_REF": false,
	} {
		if IsSecretName(name) != want {
			t.Errorf("IsSecretName(%s) = %v, want %v", name, !want, want)
		}
	}
	got := FromEnviron(hostileEnv)
	if len(got) != 3 || got[0] != (Secret{"GH_TOKEN", ghToken}) || got[1].Name != "AWS_SECRET_ACCESS_KEY" || got[2].Name != "ACTIONS_ID_TOKEN_REQUEST_URL" {
		t.Errorf("FromEnviron: %+v", got)
	}
}

// TestHostileRedaction: a hostile script's transformed echoes of the token
// and of a cloud key — case changes of the whole value, fragments of ≥ 12
// characters in their own case, shifts,
// hex, base64 (std / URL, padded / raw, of fragments, embedded), reversed,
// escaped — are all redacted and refused by Check with the variable's name,
// never the value; ordinary variables, fragments of < 12 characters and
// fragments in another letter case are left alone.
func TestHostileRedaction(t *testing.T) {
	s := New(FromEnviron(hostileEnv)...)
	b64 := func(e *base64.Encoding, x string) string { return e.EncodeToString([]byte(x)) }
	echoes := map[string]struct{ echo, name string }{
		"exact":               {ghToken, "GH_TOKEN"},
		"upper":               {strings.ToUpper(ghToken), "GH_TOKEN"},
		"lower":               {strings.ToLower(ghToken), "GH_TOKEN"},
		"drop last 3":         {ghToken[:len(ghToken)-3], "GH_TOKEN"},
		"prefix 12":           {ghToken[:12], "GH_TOKEN"},
		"suffix 12":           {ghToken[len(ghToken)-12:], "GH_TOKEN"},
		"shift 5":             {ghToken[5:], "GH_TOKEN"},
		"middle 12":           {ghToken[9:21], "GH_TOKEN"},
		"hex":                 {hex.EncodeToString([]byte(ghToken)), "GH_TOKEN"},
		"HEX":                 {strings.ToUpper(hex.EncodeToString([]byte(ghToken))), "GH_TOKEN"},
		"hex of a suffix":     {hex.EncodeToString([]byte(ghToken[7:])), "GH_TOKEN"},
		"base64":              {b64(base64.StdEncoding, ghToken), "GH_TOKEN"},
		"base64 url raw":      {b64(base64.RawURLEncoding, ghToken), "GH_TOKEN"},
		"base64 shift 1":      {b64(base64.StdEncoding, ghToken[1:]), "GH_TOKEN"},
		"base64 shift 2":      {b64(base64.StdEncoding, ghToken[2:]), "GH_TOKEN"},
		"base64 prefix 12":    {b64(base64.StdEncoding, ghToken[:12]), "GH_TOKEN"},
		"base64 embedded":     {b64(base64.StdEncoding, "E="+ghToken[3:]+"\n"), "GH_TOKEN"},
		"basic auth":          {b64(base64.StdEncoding, "x-access-token:"+ghToken), "GH_TOKEN"},
		"reversed":            {reverse(ghToken), "GH_TOKEN"},
		"reversed fragment":   {reverse(ghToken)[4:16], "GH_TOKEN"},
		"hex of reversed":     {hex.EncodeToString([]byte(reverse(ghToken))), "GH_TOKEN"},
		"aws exact":           {awsKey, "AWS_SECRET_ACCESS_KEY"},
		"aws url-escaped":     {url.QueryEscape(awsKey), "AWS_SECRET_ACCESS_KEY"},
		"aws fragment":        {awsKey[14:27], "AWS_SECRET_ACCESS_KEY"},
		"aws base64 url":      {b64(base64.URLEncoding, awsKey), "AWS_SECRET_ACCESS_KEY"},
		"aws upper reversed":  {strings.ToUpper(reverse(awsKey)), "AWS_SECRET_ACCESS_KEY"},
		"aws prefix 12":       {awsKey[:12], "AWS_SECRET_ACCESS_KEY"},
		"whole url (no frag)": {"https://pipelines.actions.githubusercontent.com/Ab3dE/_apis/hubs/Actions/plans", "ACTIONS_ID_TOKEN_REQUEST_URL"},
	}
	for name, c := range echoes {
		text := "const env = \"x\";\n  E=\"" + c.echo + "\" // end\n"
		got := s.Redact(text)
		if strings.Contains(got, c.echo) || !strings.Contains(got, Redacted) || !strings.HasPrefix(got, "const env") || !strings.HasSuffix(got, "\" // end\n") {
			t.Errorf("%s: redacted to %q", name, got)
		}
		err := s.Check([]byte(text))
		var le *LeakError
		if !errors.As(err, &le) || !errors.Is(err, ErrSecret) || le.Line != 2 || le.Col != 6 && le.Col < 6 {
			t.Errorf("%s: Check = %v", name, err)
			continue
		}
		if !strings.Contains(err.Error(), c.name) && !strings.Contains(err.Error(), "token-shaped") {
			t.Errorf("%s: %q does not name %s", name, err, c.name)
		}
		for _, v := range []string{ghToken, awsKey, c.echo} {
			for k := 0; k+MinLen <= len(v); k++ {
				if strings.Contains(err.Error(), v[k:k+MinLen]) {
					t.Fatalf("%s: the error %q carries the secret", name, err)
				}
			}
		}
	}
	// Ordinary values stay, as do fragments shorter than FragLen, fragments
	// in another letter case, and the path- and URL-shaped parts of a
	// secret-named URL.
	plain := strings.Join([]string{"sha " + sha, "cwd /home/runner/work/InferenceX/InferenceX", "frag " + ghToken[10:17],
		"frag8 " + ghToken[:8] + " " + awsKey[:8], "frag11 " + ghToken[3:14], "upper frag " + strings.ToUpper(ghToken[9:21]), "lower frag " + strings.ToLower(awsKey[14:27]),
		"short abc1234", "see https://pipelines.actions.githubusercontent.com/ and hubs/Actions/plans", "model Qwen/Qwen3.5-397B-A17B-FP8",
		"ghp_short", "--tp-size 8 --mem-fraction-static 0.82"}, "\n")
	if got := s.Redact(plain); got != plain {
		t.Errorf("ordinary text changed:\n%s", got)
	}
	if err := s.Check([]byte(plain)); err != nil {
		t.Errorf("ordinary text refused: %v", err)
	}
	// The tool's own environment, dumped by a script: nothing of it survives.
	dump := strings.Join(hostileEnv, "\x00")
	got := s.Redact(dump)
	for _, v := range []string{ghToken, awsKey, ghToken[:MinLen], awsKey[len(awsKey)-MinLen:]} {
		if strings.Contains(got, v) {
			t.Errorf("environ dump keeps %q: %q", v, got)
		}
	}
	if !strings.Contains(got, "GITHUB_SHA="+sha) || !strings.Contains(got, "PWD=/home/runner/work/InferenceX/InferenceX") {
		t.Errorf("environ dump lost ordinary values: %q", got)
	}
}

// TestHostileTokenShapes: strings shaped like GitHub tokens are found with
// no Set at all (a token of another run), and Check names the kind and
// position, not the token.
func TestHostileTokenShapes(t *testing.T) {
	var s *Set
	for _, tok := range []string{"ghp_" + strings.Repeat("aB3", 12), "ghs_" + strings.Repeat("Z9x", 12), "gho_" + strings.Repeat("q", 36),
		"ghu_" + strings.Repeat("1", 36), "ghr_" + strings.Repeat("R", 36), "github_pat_11ABCDEFG0" + strings.Repeat("x_Y", 20)} {
		prefix := tok[:4]
		if strings.HasPrefix(tok, "github_pat_") {
			prefix = "github_pat_"
		}
		text := "a\nb = '" + tok + "'\n"
		err := s.Check([]byte(text))
		if err == nil || !strings.HasPrefix(err.Error(), "2:6: contains a GitHub token-shaped string ("+prefix+"…)") ||
			strings.Contains(err.Error(), tok[4:14]) {
			t.Errorf("%s: %v", tok[:4], err)
		}
		if got := s.Redact(text); got != "a\nb = '***'\n" {
			t.Errorf("%s: %q", tok[:4], got)
		}
	}
	if err := New().Check([]byte("ghp_ and github_pat_ alone, gha_" + strings.Repeat("x", 40))); err != nil {
		t.Errorf("false positive: %v", err)
	}
}

// TestRedactLargeText: redaction is linear — 4 MiB of text with a few
// echoes takes well under a few seconds.
func TestRedactLargeText(t *testing.T) {
	s := New(FromEnviron(hostileEnv)...)
	line := `{"cells":[{"kv":"hicache","cmd":"python -m sglang.launch_server --model-path Qwen/Qwen3.5 --tp 8"}]},` + "\n"
	text := strings.Repeat(line, (4<<20)/len(line)) + ghToken[3:20]
	start := time.Now()
	got := s.Redact(text)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("4 MiB took %s", d)
	}
	if !strings.HasSuffix(got, line+Redacted) {
		t.Errorf("tail %q", got[len(got)-40:])
	}
}

func TestWith(t *testing.T) {
	s := New(Secret{"A_TOKEN", "aaaa1111BBBB"}).With(Secret{"B_KEY", "zzzz9999YYYY"})
	if s.Len() != 2 || s.Redact("aaaa1111BBBB zzzz9999YYYY") != "*** ***" {
		t.Errorf("With: %d %q", s.Len(), s.Redact("aaaa1111BBBB zzzz9999YYYY"))
	}
}

// FuzzRedact: on any text, Redact and Check never panic and agree (Check
// finds something iff Redact changes the text), and redacted text passes
// Check: nothing of a secret survives redaction.
func FuzzRedact(f *testing.F) {
	s := New(FromEnviron(hostileEnv)...)
	f.Add("E=" + ghToken)
	f.Add(hex.EncodeToString([]byte(ghToken[3:])))
	f.Add(base64.StdEncoding.EncodeToString([]byte("x-access-token:" + ghToken)))
	f.Add(reverse(awsKey) + " ghs_" + strings.Repeat("a1", 15))
	f.Add("github_pat_" + strings.Repeat("_", 30))
	f.Add("plain text /home/runner " + sha)
	f.Fuzz(func(t *testing.T, text string) {
		got := s.Redact(text)
		err := s.Check([]byte(text))
		if (err == nil) != (got == text) {
			t.Fatalf("Check %v but Redact changed=%v on %q", err, got != text, text)
		}
		if err := s.Check([]byte(got)); err != nil {
			t.Fatalf("redacted text still %v: %q → %q", err, text, got)
		}
	})
}

// TestHostileFragmentPaths (issue 20 item 7): a folder named like an
// 8-character fragment of a secret, in any case, no longer blanks every path
// under it; the secret itself, a 12-character fragment in its own case, and
// the whole value in another case still go.
func TestHostileFragmentPaths(t *testing.T) {
	s := New(Secret{"MY_API_KEY", "Runner2024xQ7pLm9Zt"})
	for _, p := range []string{
		"benchmarks/Runner2024/run.sh", "benchmarks/runner2024/run.sh", "configs/RUNNER2024-master.yaml",
		"docs/Runner2024x/x.md",      // 11 characters of it
		"docs/runner2024xq7plm/x.md", // 12, another case
	} {
		if got := s.Redact(p); got != p {
			t.Errorf("Redact(%q) = %q: ordinary text blanked", p, got)
		}
		if err := s.Check([]byte(p)); err != nil {
			t.Errorf("Check(%q) = %v", p, err)
		}
	}
	for _, p := range []string{"key=Runner2024xQ7pLm9Zt", "key=RUNNER2024XQ7PLM9ZT", "k=nner2024xQ7pLm", "k=" + reverse("Runner2024xQ7pLm9Zt")[:12]} {
		if got := s.Redact(p); strings.Contains(got, "2024") || !strings.Contains(got, Redacted) {
			t.Errorf("Redact(%q) = %q: the secret survives", p, got)
		}
	}
}
