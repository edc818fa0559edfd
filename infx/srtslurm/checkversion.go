package srtslurm

// CheckVersion returns the error Render would give for Options.Version v
// when v is not an srt-slurm ref with a known injection profile (spec §0),
// so callers can reject a bad version before rendering anything. Added by
// the infx/render owner (additive).
func CheckVersion(v string) error {
	_, err := lookupProfile(v)
	return err
}
