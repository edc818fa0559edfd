package launch

import "strings"

// LooksHF reports whether s has the shape of a Hugging Face model id
// ("org/name": one slash, no spaces, not a path or a variable). Master
// configs of older InferenceX commits name srt-slurm aliases or local paths
// in `model`; only an id of this shape names the model a recipe serves.
func LooksHF(s string) bool {
	return s != "" && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, ".") && !strings.HasPrefix(s, "$") &&
		strings.Count(s, "/") == 1 && !strings.Contains(s, " ")
}
