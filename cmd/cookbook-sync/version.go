package main

import (
	"runtime/debug"
	"strings"
)

// versionText is what `cookbook-sync --version` prints (one line, no
// newline): the main module's version, the VCS revision the binary was
// built from with "-dirty" when the work tree had changes, the commit time,
// and the Go version — all from the build information the go command
// stamps into the binary (runtime/debug.ReadBuildInfo; bi nil when there is
// none). A binary built without VCS stamping (-buildvcs=false, or from
// outside a checkout) says "revision unknown". The version is the one go
// stamps: a module installed by version (go install …@v1.2.3) that
// version; a build in a clean checkout the pseudo-version of its commit
// (v0.0.0-20260701120000-856dd2619aad); else "(devel)".
//
//	cookbook-sync version (devel), revision 856dd2619aad6f9b52131a459cb1b33dcfc1ae04-dirty, committed 2026-07-01T12:00:00Z, go1.26.8
//	cookbook-sync version (devel), revision unknown (built without VCS information), go1.26.8
func versionText(bi *debug.BuildInfo) string {
	version, rev, modified, when, goVersion := "(devel)", "", false, "", ""
	if bi != nil {
		if v := bi.Main.Version; v != "" {
			version = v
		}
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			case "vcs.time":
				when = s.Value
			}
		}
	}
	parts := []string{"cookbook-sync version " + version}
	switch {
	case rev == "":
		parts = append(parts, "revision unknown (built without VCS information)")
	case modified:
		parts = append(parts, "revision "+rev+"-dirty")
	default:
		parts = append(parts, "revision "+rev)
	}
	if rev != "" && when != "" {
		parts = append(parts, "committed "+when)
	}
	if goVersion != "" {
		parts = append(parts, goVersion)
	}
	return strings.Join(parts, ", ")
}

// buildVersion is versionText of the running binary.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return versionText(bi)
}
