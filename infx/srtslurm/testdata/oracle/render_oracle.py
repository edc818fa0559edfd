#!/usr/bin/python3
"""Render an srt-slurm recipe with srt-slurm's own code, Slurm/srun/network faked.

Run inside an NVIDIA/srt-slurm source tree at the ref to render (see README.md):

    cd /tmp/srt-REF && PYTHONPATH=src /usr/bin/python3 render_oracle.py \
        RECIPE.yaml[:SELECTOR] [--label LABEL]

Prints the rendering in the format of shared/golden/srt-slurm (README there):
nodes node0..nodeN, get_hostname_ip(nodeK) = 10.0.0.K, model path
/models/<model.path alias>, no srtslurm.yaml, the log dir shown as <log_dir>,
TRT-LLM's random EPLB name as moe_shared_<uuid4hex>, the fingerprint capture
script as FINGERPRINT; start_head_infrastructure, start_mooncake_master (when
the ref has it and the recipe configures it), start_all_workers and
start_frontend run with start_srun_process replaced by a recorder. Files
srt-slurm writes into the log dir are printed as "## file" blocks.

On a validation error (srtctl refuses the recipe) it prints
"# error: <exception>" and exits 3.
"""

import argparse
import os
import pathlib
import re
import shlex
import sys
import tempfile
import threading
import uuid


class _FakeUUID:
    hex = "<uuid4hex>"

    def __str__(self):
        return "<uuid4>"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("recipe", help="recipe path, optionally :selector")
    ap.add_argument("--label", help="label printed after '# recipe: ' (default: the argument)")
    args = ap.parse_args()

    recipe_arg = args.recipe
    path, selector = recipe_arg, None
    if ":" in recipe_arg and not os.path.exists(recipe_arg):
        path, selector = recipe_arg.split(":", 1)
    path = os.path.abspath(path)
    label = args.label or recipe_arg
    real_print = print

    def fail(msg, code):
        # srtctl refuses the recipe (or the selector): header + the error
        msg = msg.replace(path, "<recipe>").replace(work, "<work>")
        real_print(f"# recipe: {label}\n# error: {msg}", flush=True)
        sys.exit(code)

    sys.path[:] = [os.path.abspath(x) if x else os.getcwd() for x in sys.path]
    work = tempfile.mkdtemp(prefix="srt-oracle-")
    os.chdir(work)  # no srtslurm.yaml here
    for k in list(os.environ):
        if k.startswith(("SLURM_", "SRTCTL_", "SRTSLURM_")) or k in ("INFMAX_WORKSPACE",):
            del os.environ[k]

    import yaml

    from srtctl.core import config as cfgmod

    # srtslurm.yaml absent, whatever the ref looks for
    if hasattr(cfgmod, "load_cluster_config"):
        cfgmod.load_cluster_config = lambda *a, **k: None
    if hasattr(cfgmod, "find_cluster_config_path"):
        cfgmod.find_cluster_config_path = lambda *a, **k: None

    with open(path) as f:
        raw = yaml.safe_load(f)
    cfg_path = path
    if isinstance(raw, dict) and "base" in raw:
        try:
            variants = cfgmod.generate_override_configs(raw, selector=selector)
        except Exception as e:
            fail(f"{type(e).__name__}: {e}", 3)
        if len(variants) != 1:
            fail(f"selector {selector!r} gives {len(variants)} variants", 2)
        _, variant = variants[0]
        cfg_path = os.path.join(work, "variant.yaml")
        with open(cfg_path, "w") as f:
            yaml.safe_dump(variant, f, default_flow_style=False, sort_keys=False)
    elif selector:
        fail(f"{path} has no variants but selector {selector!r} given", 2)

    try:
        config = cfgmod.load_config(pathlib.Path(cfg_path))
    except Exception as e:  # srtctl refuses the recipe
        fail(f"{type(e).__name__}: {e}", 3)

    # ---- fakes -------------------------------------------------------------
    # node count as srtctl submit computes it: worker nodes + dedicated nodes
    total = config.total_nodes if hasattr(config, "total_nodes") else config.resources.total_nodes
    roles = [
        getattr(getattr(config, "infra", None), "etcd_nats_dedicated_node", False),
        getattr(config.frontend, "dedicated_node", False),
        getattr(config.benchmark, "client_dedicated_node", False),
    ]
    nded = sum(bool(r) for r in roles)
    if nded:
        total += 1 if getattr(config.benchmark, "colocate_with_frontend", True) else nded
    nodelist = [f"node{i}" for i in range(total)]

    os.environ["SLURM_JOB_ID"] = "12345"
    os.environ["SLURM_JOBID"] = "12345"
    os.environ["SLURM_NODELIST"] = ",".join(nodelist)
    os.environ["SRTCTL_OUTPUT_DIR"] = os.path.join(work, "out")

    def fake_ip(host, *a, **k):
        m = re.fullmatch(r"node(\d+)", str(host))
        return f"10.0.0.{m.group(1)}" if m else str(host)

    steps = []

    class FakePopen:
        pid = 4242
        returncode = 0

        def poll(self):
            return None

        def wait(self, timeout=None):
            return 0

        def terminate(self):
            pass

        def kill(self):
            pass

    def recorder(command, **kw):
        steps.append((list(command), kw))
        return FakePopen()

    def fake_nodelist(*a, **k):
        return list(nodelist)

    fakes = {
        "get_hostname_ip": fake_ip,
        "get_node_ip": lambda node, *a, **k: fake_ip(node),
        "start_srun_process": recorder,
        "get_slurm_nodelist": fake_nodelist,
        "get_slurm_het_nodelists": lambda *a, **k: None,
        "generate_capture_script": lambda *a, **k: "FINGERPRINT",
        "wait_for_port": lambda *a, **k: True,
        "wait_for_health": lambda *a, **k: True,
        "wait_for_etcd": lambda *a, **k: True,
    }

    import srtctl.cli.do_sweep as do_sweep  # noqa: F401  (loads every stage module)
    import srtctl.core.slurm  # noqa: F401

    for mod in list(sys.modules.values()):
        if mod is None or not getattr(mod, "__name__", "").startswith("srtctl"):
            continue
        for name, fn in fakes.items():
            if hasattr(mod, name):
                setattr(mod, name, fn)
    uuid.uuid4 = lambda: _FakeUUID()

    real_exists, real_is_dir = pathlib.Path.exists, pathlib.Path.is_dir

    def under_models(p):
        s = str(p)
        return s == "/models" or s.startswith("/models/")

    pathlib.Path.exists = lambda self, *a, **k: True if under_models(self) else real_exists(self, *a, **k)
    pathlib.Path.is_dir = lambda self, *a, **k: True if under_models(self) else real_is_dir(self, *a, **k)

    # model.path alias -> /models/<alias> (no srtslurm.yaml to resolve it)
    mp = config.model.path
    if not mp.startswith("hf:") and not mp.startswith("/"):
        import dataclasses

        config = dataclasses.replace(config, model=dataclasses.replace(config.model, path="/models/" + mp))

    from srtctl.core.runtime import RuntimeContext

    try:
        runtime = RuntimeContext.from_config(config, "12345")
    except Exception as e:
        fail(f"{type(e).__name__}: {e}", 3)
    orch = do_sweep.SweepOrchestrator(config=config, runtime=runtime)
    log_dir = str(runtime.log_dir)

    registry = type("R", (), {"add_process": lambda *a, **k: None, "add_processes": lambda *a, **k: None})()
    try:
        if config.frontend.type not in {"trtllm_serve", "vllm"}:
            orch.start_head_infrastructure(registry)
        if hasattr(orch, "start_mooncake_master"):
            orch.start_mooncake_master(registry)
        orch.start_all_workers()
        try:
            orch.start_frontend(registry, threading.Event())
        except TypeError:
            orch.start_frontend(registry)
    except Exception as e:
        fail(f"{type(e).__name__}: {e}".replace(log_dir, "<log_dir>"), 3)

    # ---- print -------------------------------------------------------------
    def sub(s):
        return s.replace(log_dir, "<log_dir>")

    out = []
    nodes = orch.runtime.nodes
    out.append(f"# recipe: {label}\n")
    out.append(
        f"# name: {config.name} | backend: {config.backend_type} | frontend: {config.frontend.type} | "
        f"nodes: {nodelist} | infra: {nodes.infra} | head: {nodes.head}\n"
    )
    out.append("# endpoints:\n")
    for ep in orch.endpoints:
        out.append(
            f"#   {ep.mode}_{ep.index} nodes={','.join(ep.nodes)} gpus={','.join(str(g) for g in sorted(ep.gpu_indices))}\n"
        )
    blocks = ["".join(out)]
    preambles = []
    for command, kw in steps:
        extra = f"ntasks={kw.get('ntasks')} mpi={kw['mpi']}" if kw.get("mpi") else ""
        b = [f"## srun on {','.join(kw.get('nodelist') or [])} {extra} image={kw.get('container_image')}\n"]
        for k, v in (kw.get("env_to_set") or {}).items():
            b.append(f"   env {k}={sub(str(v))}\n")
        pre = kw.get("bash_preamble")
        if pre:
            if pre not in preambles:
                preambles.append(pre)
            b.append(f"   bash-preamble: P{preambles.index(pre) + 1}\n")
        b.append("   " + sub(shlex.join(command)) + "\n")
        blocks.append("".join(b))
    for i, p in enumerate(preambles):
        blocks.append(
            f"## bash-preamble P{i + 1} (runs inside the container, joined with && before the command)\n{sub(p)}\n"
        )
    for f in sorted(os.listdir(log_dir)):
        fp = os.path.join(log_dir, f)
        if not os.path.isfile(fp) or f.endswith((".out", ".lock")) or f.startswith("fingerprint"):
            continue
        try:
            content = open(fp).read()
        except UnicodeDecodeError:
            continue
        blocks.append(f"## file {f}\n{sub(content)}\n")
    sys.stdout.write("\n".join(blocks))


if __name__ == "__main__":
    main()
