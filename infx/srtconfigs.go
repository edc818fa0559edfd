package infx

import (
	"path/filepath"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// SrtSlurmConfigsPrefix is where srt-slurm mounts its own configs/
// directory in every container (NVIDIA/srt-slurm: the /configs mount,
// shared/spec/srt-slurm.md §9); files a recipe names there
// (--deepep-config /configs/deepep_config.json) are srt-slurm's, not
// InferenceX's.
const SrtSlurmConfigsPrefix = "/configs/"

// AttachSrtSlurmConfigs gives each process the content of the files its
// flags name under /configs/, read from the srt-slurm checkout dir
// (dir/configs/…), so that they are compared by content
// (launch.Process.FileContents); runs is the srt-slurm version the job
// runs ("" = not known), named in the origin when it is not dir's
// version. A file already attached, one that is not
// in dir, or a path that leaves dir/configs is left alone. The processes
// are changed in place; dir "" does nothing.
func AttachSrtSlurmConfigs(procs []launch.Process, dir, version, runs string) {
	if dir == "" {
		return
	}
	root := filepath.Join(dir, "configs")
	for i := range procs {
		p := &procs[i]
		for _, a := range p.Args {
			for _, v := range a.Values {
				rest, ok := strings.CutPrefix(v, SrtSlurmConfigsPrefix)
				if !ok || rest == "" {
					continue
				}
				if _, has := p.FileContent(v); has {
					continue
				}
				f := filepath.Join(root, filepath.FromSlash(rest))
				if !within(filepath.Clean(f), root) || !isFile(f) {
					continue
				}
				data, err := launch.ReadInput(f)
				if err != nil {
					continue
				}
				detail := "srt-slurm configs/ read from the given srt-slurm checkout"
				if version != "" {
					detail += " (" + version + ")"
				}
				if runs != "" && version != "" && runs != version {
					detail += "; the launcher runs srt-slurm " + runs + ", where it may differ (possible commit drift)"
				}
				p.FileContents = append(p.FileContents, launch.FileContent{Path: v, Content: string(data),
					Origin: launch.Origin{Kind: launch.OriginInjected, Path: "configs/" + rest, Detail: detail}})
			}
		}
	}
}
