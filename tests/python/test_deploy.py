"""deploy/: the Kubernetes Jobs and Slurm scripts parse, have what a Job needs, and their command
lines run here (the scheduler played locally); the Dockerfile installs setup.sh's packages."""
import json
import os
import pathlib
import re
import shlex
import subprocess

import pytest

import edgeq
from conftest import BUILD, ROOT, write_bmp

yaml = pytest.importorskip("yaml")  # Debian's python3-yaml, installed by scripts/setup.sh
DEPLOY = ROOT / "deploy"


def jobs():
    return {p.stem: yaml.safe_load(p.read_text()) for p in sorted((DEPLOY / "k8s").glob("*.yaml"))}


def test_k8s_jobs_have_what_a_job_needs():
    found = jobs()
    assert set(found) == {"calibrate-shards", "calibrate-merge", "study-workers", "study-collect"}
    for name, job in found.items():
        assert job["apiVersion"] == "batch/v1" and job["kind"] == "Job", name
        pod = job["spec"]["template"]["spec"]
        assert pod["restartPolicy"] in ("OnFailure", "Never"), name
        (container,) = pod["containers"]
        assert container["image"] and container["command"][0] == "/bin/sh", name
        mounts = {m["name"] for m in container["volumeMounts"]}
        assert mounts <= {v["name"] for v in pod["volumes"]}, name
        if name in ("calibrate-shards", "study-workers"):
            spec = job["spec"]
            assert spec["completionMode"] == "Indexed"
            assert spec["completions"] == spec["parallelism"]
            # the share each pod takes names the same N as the Job
            n = re.search(r'\$JOB_COMPLETION_INDEX/(\d+)', container["args"][0])
            assert n and int(n.group(1)) == spec["completions"], name


@pytest.fixture(scope="module")
def data(tmp_path_factory, scenes):
    d = tmp_path_factory.mktemp("deploy_data")
    assert edgeq.main(["zoo", "yolo11n-pose", "-o", str(d / "yolo11n-pose.onnx"),
                       "--imgsz", "64"]) == 0
    (d / "calib").mkdir()
    (d / "stats").mkdir()
    for i, f in enumerate(scenes):
        write_bmp(d / "calib" / f"{i}.bmp", f)
    (d / "study.json").write_text(json.dumps({
        "models": [str(d / "yolo11n-pose.onnx")], "images": str(d / "calib"),
        "test": str(d / "calib"), "arms": ["C"], "schemes": ["w8a16", "w8a8"],
        "bench_runs": 1, "bench_warmup": 0, "thumbnails": 1, "test_n": 2}))
    one = subprocess.run([str(BUILD / "edgeq"), "calibrate", "--model",
                          str(d / "yolo11n-pose.onnx"), "--images", str(d / "calib"),
                          "--n", "1024", "--out", str(d / "one.cbor")], capture_output=True)
    assert one.returncode == 0, one.stderr  # one pass over every image, to merge shards against
    return d


def local(command, data, env):
    """A manifest's command line as this machine runs it: /data is the fixture's folder and
    `edgeq` the build's program."""
    command = command.replace("/data", str(data))
    env = {**os.environ, **env, "PATH": f"{BUILD}:{os.environ['PATH']}"}
    return subprocess.Popen(["/bin/sh", "-c", command], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(p):
    out, err = p.communicate(timeout=600)
    assert p.returncode == 0, err
    return out


def test_k8s_command_lines_run_and_shards_merge_to_one_pass(data):
    found = jobs()
    shards = found["calibrate-shards"]
    n = shards["spec"]["completions"]
    command = shards["spec"]["template"]["spec"]["containers"][0]["args"][0]
    for k in range(n):
        finish(local(command, data, {"JOB_COMPLETION_INDEX": str(k)}))
    finish(local(found["calibrate-merge"]["spec"]["template"]["spec"]["containers"][0]["args"][0],
                 data, {}))
    assert (data / "stats" / "all.cbor").read_bytes() == (data / "one.cbor").read_bytes()

    workers = found["study-workers"]
    n = workers["spec"]["completions"]
    command = workers["spec"]["template"]["spec"]["containers"][0]["args"][0]
    running = [local(command, data, {"JOB_COMPLETION_INDEX": str(k)}) for k in range(n)]
    for p in running:
        assert "latency steps left to --collect" in finish(p)
    collect = found["study-collect"]["spec"]["template"]["spec"]["containers"][0]["args"][0]
    out = finish(local(collect, data, {}))
    assert "2 runs" in out
    assert len(json.loads((data / "study" / "data.json").read_text())["runs"]) == 2


def test_slurm_scripts_run_as_array_tasks(data):
    env = {"EDGEQ_DATA": str(data), "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_CPUS_PER_TASK": "1"}
    for k in range(4):
        finish(local(f"bash {DEPLOY}/slurm/calibrate.sbatch", data,
                     {**env, "SLURM_ARRAY_TASK_ID": str(k)}))
    finish(local(f"bash {DEPLOY}/slurm/merge.sbatch", data, env))
    assert (data / "stats" / "all.cbor").read_bytes() == (data / "one.cbor").read_bytes()
    running = [local(f"bash {DEPLOY}/slurm/study.sbatch", data,
                     {**env, "SLURM_ARRAY_TASK_ID": str(k)}) for k in range(4)]
    for p in running:
        finish(p)
    assert "2 runs" in finish(local(f"bash {DEPLOY}/slurm/collect.sbatch", data, env))
    text = (DEPLOY / "slurm" / "submit.sh").read_text()
    assert "--dependency=afterok" in text and "--dependency=afterany" in text


def test_dockerfile_installs_what_setup_installs():
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    pkgs = set(shlex.split(re.search(r"PKGS=\(([^)]*)\)", setup).group(1)))
    docker = (DEPLOY / "Dockerfile").read_text()
    install = re.search(r"apt-get install -y -qq \\(.*?)&&", docker, re.S).group(1)
    docker_pkgs = set(install.replace("\\", " ").split())
    test_only = {"chromium", "libonnx-testdata"}
    assert docker_pkgs == pkgs - test_only
    assert "FROM debian:bookworm" in docker
