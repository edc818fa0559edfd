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
		if got := dynamoInstall([]string{c.line}); got != c.want {
			t.Errorf("dynamoInstall(%.50q) = %q, want %q", c.line, got, c.want)
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
	if len(cn.Settings) != 0 || len(rn.Settings) != 0 || res.Note != "dynamo-install: the cookbook states no Dynamo install for this router; the recipe's (none installed: the container image's Dynamo (version not known)) is not compared" {
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
func TestPlacementOnly(t *testing.T) {
	w := func(gpn, workers int, cvd string) launch.Process {
		return launch.Process{Kind: launch.KindWorker, Role: "decode", Program: "python3 -m sglang.launch_server", GPUsPerNode: gpn, Workers: workers,
			Env: []launch.EnvVar{{Name: "CUDA_VISIBLE_DEVICES", Value: cvd}}}
	}
	fe := func(n int, port string) launch.Process {
		return launch.Process{Kind: launch.KindDynamoFrontend, Program: "python3 -m dynamo.frontend", Count: n, Args: []launch.Arg{{Flag: "--http-port=" + port}}}
	}
	base := &launch.Deployment{Processes: []launch.Process{w(4, 1, "0,1,2,3"), fe(1, "8000")}}
	for _, c := range []struct {
		name string
		d    *launch.Deployment
		want bool
	}{
		{"unchanged", &launch.Deployment{Processes: []launch.Process{w(4, 1, "0,1,2,3"), fe(1, "8000")}}, true},
		{"gpus per node", &launch.Deployment{Processes: []launch.Process{w(5, 1, "0,1,2,3,4"), fe(1, "8000")}}, true},
		{"frontend count + nginx", &launch.Deployment{Processes: []launch.Process{w(4, 1, "0,1,2,3"), fe(2, "8180"), {Kind: launch.KindNginx, Program: "nginx"}}}, true},
		{"workers", &launch.Deployment{Processes: []launch.Process{w(4, 2, "0,1,2,3"), fe(1, "8000")}}, false},
		{"flag", &launch.Deployment{Processes: []launch.Process{func() launch.Process {
			p := w(4, 1, "0,1,2,3")
			p.Args = []launch.Arg{{Flag: "--tp-size", Values: []string{"8"}}}
			return p
		}(), fe(1, "8000")}}, false},
		{"process gone", &launch.Deployment{Processes: []launch.Process{w(4, 1, "0,1,2,3")}}, false},
	} {
		if got := placementOnly(base, c.d); got != c.want {
			t.Errorf("%s: placementOnly %v, want %v", c.name, got, c.want)
		}
	}
}
