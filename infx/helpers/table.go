// Package helpers implements, natively in Go, the helper programs that
// InferenceX scripts run besides the serving engines: programs whose output
// or effect decides a point's launch commands (runners/
// inject_synthetic_acceptance.py rewriting a recipe's speculative config,
// the inline python3 readers of benchmarks/multi_node/amd_utils/models*.yaml,
// …). Each is known by the exact source text it was written from — a
// SHA-256 of the program text as written, before the shell substitutes any
// ${…} in it — and every version of that text in the InferenceX history
// since 2026-06-01 is in the table with the upstream path and commit it is
// cited from. A program whose text is not in the table is never guessed:
// the caller reports it unsupported, naming it and its hash (Lookup).
package helpers

import (
	"crypto/sha256"
	"encoding/hex"
)

// Program is one version of one helper program's source text.
type Program struct {
	// ID names the version for a reader and for cache keys
	// ("inject_synthetic_acceptance.py@80d2740e").
	ID string
	// SHA256 is the hex SHA-256 of the source text as written (a file's
	// bytes; an inline program's shell word before expansion).
	SHA256 string
	// Path is the upstream file (SemiAnalysisAI/InferenceX, repository
	// relative) the text is in; Commits the InferenceX commits (abbreviated)
	// at which that file holds this text, oldest first.
	Path    string
	Commits []string
}

// Hash is the table's identity of a source text: its hex SHA-256.
func Hash(src []byte) string {
	s := sha256.Sum256(src)
	return hex.EncodeToString(s[:])
}

// Lookup returns the program of table whose text hashes to Hash(src), and
// false when none does (the text is unknown: the caller reports it
// unsupported with its hash, never guesses).
func Lookup(table []Program, src []byte) (Program, bool) {
	h := Hash(src)
	for _, p := range table {
		if p.SHA256 == h {
			return p, true
		}
	}
	return Program{}, false
}
