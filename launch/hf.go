package launch

import (
	"path"
	"regexp"
	"strings"
)

// LooksHF reports whether s has the shape of a Hugging Face model id
// ("org/name": one slash, no spaces, not a path or a variable). Master
// configs of older InferenceX commits name srt-slurm aliases or local paths
// in `model`; only an id of this shape names the model a recipe serves.
func LooksHF(s string) bool {
	return s != "" && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, ".") && !strings.HasPrefix(s, "$") &&
		strings.Count(s, "/") == 1 && !strings.Contains(s, " ")
}

// hfCacheRe is a path into a Hugging Face hub cache (huggingface_hub's
// layout: models--<org>--<name>/snapshots/<revision>).
var hfCacheRe = regexp.MustCompile(`(?:^|/)models--([^/]+?)--([^/]+)(?:/snapshots/[^/]*)?/*$`)

// LocalPath reports whether v is a filesystem path rather than a Hugging
// Face id: absolute ("/…"), relative ("./…", "../…"), under the home
// directory ("~/…") or starting with a shell variable ("$MODEL_DIR/…").
func LocalPath(v string) bool {
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") ||
		strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "$")
}

// StagedCopyOf reports whether v, a model argument, names the Hugging Face
// repository hfID: the id itself (repository ids are case-insensitive on
// the Hub), a hub cache entry of it (…/models--<org>--<name>/snapshots/…),
// or a local path whose last element is the repository's name, compared
// case-insensitively — a checkpoint staged with `hf download <id>
// --local-dir …/<name>` (InferenceX stages the served checkpoint and its
// draft models this way, e.g. benchmarks/single_node/agentic/
// minimaxm3_fp4_b200_mtp.sh DRAFT_MODEL_PATH=…/${DRAFT_MODEL##*/}). A local
// path with another last element, or an hfID that is not an id, is false.
func StagedCopyOf(v, hfID string) bool {
	v = strings.TrimSpace(v)
	if !LooksHF(hfID) || v == "" {
		return false
	}
	if strings.EqualFold(v, hfID) {
		return true
	}
	if m := hfCacheRe.FindStringSubmatch(v); m != nil {
		return strings.EqualFold(m[1]+"/"+m[2], hfID)
	}
	if !LocalPath(v) {
		return false
	}
	base := path.Base(strings.TrimRight(v, "/"))
	return base != "." && base != "/" && strings.EqualFold(base, path.Base(hfID))
}
