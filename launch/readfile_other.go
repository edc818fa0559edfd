//go:build !unix

package launch

import "os"

// openInputFlags: see readfile_unix.go (no FIFOs to guard against here).
const openInputFlags = os.O_RDONLY
