package compare

import (
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// dynamoInstall reads the install lines of both sides the same way.
func TestDynamoInstall(t *testing.T) {
	for _, c := range []struct {
		line, want string
	}{
		{"# Dynamo built from source at https://github.com/ai-dynamo/dynamo/commit/ad6f7d54ce7b99c53576b10482755c93c921fbac", "ai-dynamo source commit ad6f7d54ce7b99c53576b10482755c93c921fbac"},
		{`pip install --pre --extra-index-url https://pypi.nvidia.com "ai-dynamo-runtime==1.4.2" "ai-dynamo==1.4.2"`, "ai-dynamo 1.4.2"},
		{"echo 'Installing dynamo 0.8.0...' && pip install --break-system-packages --quiet --extra-index-url https://pypi.nvidia.com ai-dynamo-runtime==0.8.0 ai-dynamo==0.8.0 && echo 'Dynamo 0.8.0 installed'", "ai-dynamo 0.8.0"},
		{"echo 'Installing ai-dynamo-runtime and ai-dynamo from wheel ai_dynamo-1.3.0.dev1-py3-none-any.whl...' && python3 x", "ai-dynamo 1.3.0.dev1"},
		{"cd dynamo && git checkout ad6f7d54ce7b99c53576b10482755c93c921fbac && cd lib", "ai-dynamo source commit ad6f7d54ce7b99c53576b10482755c93c921fbac"},
		{"git checkout ad6f7d5 && cp /tmp/x.whl /configs/dynamo-wheels/ad6f7d5-patch-0a1b2c3d/", "ai-dynamo source commit ad6f7d5 with patches 0a1b2c3d"},
		{"echo 'Installing dynamo from source (HEAD)...' && git clone", "ai-dynamo source HEAD (unpinned)"},
		{"( FINGERPRINT )", ""},
	} {
		if got := DynamoInstall([]string{c.line}); got != c.want {
			t.Errorf("DynamoInstall(%.50q) = %q, want %q", c.line, got, c.want)
		}
	}
}

// A frontend pair is compared on its Dynamo only when the cookbook states
// one; an srt-slurm frontend that installs none never matches a stated one.
func TestAddDynamoInstall(t *testing.T) {
	cb := launch.Process{Kind: launch.KindDynamoFrontend, Preamble: []string{"# Dynamo built from source at https://github.com/ai-dynamo/dynamo/commit/61c37bc33c3e88da3facaa39fa2b5caf616740ba"}}
	rc := launch.Process{Kind: launch.KindDynamoFrontend, Origin: launch.Origin{Kind: launch.OriginRecipe, Path: "frontend"}}
	var res Result
	cn, rn := &Normalized{Settings: map[string]*Setting{}}, &Normalized{Settings: map[string]*Setting{}}
	addDynamoInstall(&res, cn, rn, &cb, &rc)
	if cn.Settings[dynamoInstallKey].Value != "ai-dynamo source commit 61c37bc33c3e88da3facaa39fa2b5caf616740ba" || rn.Settings[dynamoInstallKey].Value != dynamoFromImage {
		t.Errorf("settings %+v / %+v", cn.Settings[dynamoInstallKey], rn.Settings[dynamoInstallKey])
	}
	// the cookbook states none: not compared, said in the note
	res = Result{}
	cb.Preamble = nil
	cn, rn = &Normalized{Settings: map[string]*Setting{}}, &Normalized{Settings: map[string]*Setting{}}
	addDynamoInstall(&res, cn, rn, &cb, &rc)
	if len(cn.Settings) != 0 || len(rn.Settings) != 0 || res.Note != "dynamo-install: the upstream documentation states no Dynamo install for this router; the InferenceX recipe's (none installed: the container image's Dynamo (version not known)) is not compared" {
		t.Errorf("settings %v / %v, note %q", cn.Settings, rn.Settings, res.Note)
	}
	// another launcher's frontend without install lines states nothing
	cb.Preamble = []string{`pip install "ai-dynamo==1.4.2"`}
	rc.Origin.Kind = launch.OriginScript
	res = Result{}
	cn, rn = &Normalized{Settings: map[string]*Setting{}}, &Normalized{Settings: map[string]*Setting{}}
	addDynamoInstall(&res, cn, rn, &cb, &rc)
	if len(cn.Settings) != 0 || len(rn.Settings) != 0 || res.Note != "" {
		t.Errorf("script frontend: settings %v / %v, note %q", cn.Settings, rn.Settings, res.Note)
	}
}

// placementOnly accepts GPU indices, addresses, ports and the frontend
// count with nginx following it; anything else is a real change.
