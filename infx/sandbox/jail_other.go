//go:build !unix

package sandbox

// openNonBlock: no such flag here.
const openNonBlock = 0

// noOwnerStat: the interpreter's -O and -G are Unix-only.
func noOwnerStat() any { return nil }
