// Package sandbox runs a bash script as a CI runner would, without running
// anything: [Run] interprets it in mvdan.cc/sh/v3's interpreter and
// returns a [Trace] of what it did — the external commands it ran (with
// their environment and position), the files it wrote, the scripts it
// started, the git clones and copies it made, the command a handler ended
// it at — instead of doing it. No process is started, nothing is written to
// disk, nothing of the host (its environment, PID, user, temporary
// directory, files outside the read roots) reaches the script.
//
// Outcomes are typed: a run that could not be followed is a Trace with
// Stop set ([Unsupported]: a command the sandbox cannot evaluate whose
// status or output the script uses, a read it refuses, input the
// interpreter fails on); a run past a bound that counts work is a
// [*Limit] (the same on every machine); a run the wall-clock backstop
// stopped is a [*TimeLimit], distinct from a Limit (it says nothing of the
// script). Both come wrapped in a [*PosError] at the command last reached.
//
// External commands are answered by tables of [Handler]s by base name:
// the caller's ([Config.Commands]) first, then the sandbox's own (the
// shell's process and file tools, `bash FILE`, the Slurm job tools as a
// granted allocation, docker/podman run, enroot, tar/sbcast staging, git
// clone/checkout, cp), then the text utilities and hardware probes of
// package infx/shellutil. A command none of them answers succeeds when
// nothing uses its status or output, and stops the run otherwise.
//
// Reads follow one rule (readKnown, fs.go): a read is answered only from
// what the sandbox knows — what the run wrote, whole; the runner's
// documented files (Config.HostFiles); a regular file inside the read
// roots, at most 1 MiB. A read, `source`, redirection, listing or command
// whose result the script uses and that the sandbox cannot answer (a path
// outside the checkout and the read roots, /proc, /sys and /dev, a
// directory entered above the checkout, a clone's or a staged
// checkpoint's files, output cut short, a file a program it does not
// evaluate wrote, a printf field Go's fmt cannot make) stops the run as
// Unsupported at its position: never an empty value. Names the
// interpreter would look up empty at run time (`[[ -v $E ]]`, `unset
// "$E"`, a name reference to "") get bash's answer (names.go), and input
// the interpreter fails on is Unsupported at its position — also in
// background statements and pipes, which it runs in goroutines of its
// own, where no recover reaches.
//
// Choice points (Config.Choose, choice.go): a probe whose fact the runner
// table leaves out but lists the few alternatives of (the MEC firmware of
// `rocm-smi --showfw`, the space `df` reports on /dev/shm, whether nicctl
// is installed and the NIC QoS it reports: shellutil.ChoiceFor; one answer
// per fact and run), and a condition that can only give a status whose
// outcome depends on a read of a file of the container image, are
// answered with the alternative Config.Choices selects and recorded in
// Trace.Choices; the caller runs the script once per answer (package
// infx: scriptchoice.go). A value read from such a file stays
// Unsupported. `sed -i` of a file of the image is recorded as a patch
// (Trace.Patches).
//
// Background jobs (bgjobs.go): a simple command sent to the background
// runs in place; $! is a pseudo PID, and kill, wait and ps answer from the
// job model (a server runs until signalled, anything else has finished).
//
// Where the line falls: this package holds the generic emulation — POSIX
// and bash semantics the interpreter lacks or that would touch the host
// (printf conversions, `set -e` relaxed, $$ fixed, process substitution in
// memory, file descriptors above 2, associative-array keys), the jail
// every read goes through (os.Root per read root, no link out, no FIFO),
// the step, iteration, byte, nesting and function-call bounds, the
// in-memory filesystem (writes, mounts of containers and staged copies,
// mktemp, git clones), and the job environment of a Slurm/container
// runner. What knows InferenceX stays in package infx and is given through
// [Config]: its programs (srtctl, srt-slurm's `make setup`, the harness's
// Python helpers, `hf download`, tool installers) as Config.Commands
// entries, which server launches the caller reads (Config.IsServer), the
// benchmark library's stubs (Config.Library), the runner's documented
// device files (Config.HostFiles), the model staging rule
// (Config.ModelDir) and srt-slurm's release tags (Config.TagCommit); the
// GitHub workflow, its expressions and the runner table are infx's too.
//
// To answer a new program, add a Handler to the caller's Config.Commands
// (for InferenceX: infx's scriptCommands). A variable the harness gives
// every script is part of Config.Env (for InferenceX: infx's runnerEnv and
// the workflow's env).
//
// Sources: mvdan.cc/sh/v3 (interp, expand, syntax) v3.14.1; GNU bash 5
// semantics for what the interpreter differs on (each difference is
// documented where it is handled); Slurm's srun/salloc/sbatch/squeue and
// docker run option syntax.
package sandbox
