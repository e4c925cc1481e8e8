"""pip install into a virtual environment, as docs/api.md says (PyPI not needed)."""
import os
import subprocess
import sys

from conftest import BUILD, ROOT


def test_pip_installs_into_a_venv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    env = {**os.environ, "EDGEQ_BUILD_DIR": str(BUILD), "PIP_NO_INDEX": "1"}
    env.pop("PYTHONPATH", None)
    p = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation",
                        "--no-deps", "-q", str(ROOT)], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    p = subprocess.run([str(venv / "bin" / "python"), "-c",
                        "import edgeq; print(edgeq.__file__); print(edgeq.__version__)"],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    where, version = p.stdout.split()
    assert where.startswith(str(venv)) and version == sys.modules["edgeq"].__version__


def test_examples_run(tmp_path, zoo_pose_path, scenes):
    from conftest import write_bmp
    images = tmp_path / "images"
    images.mkdir()
    for i, f in enumerate(scenes):
        write_bmp(images / f"s{i}.bmp", f)
    env = {**os.environ, "PYTHONPATH": str(BUILD / "python")}
    # w8a8_auto_cpu.py with percent 0 (no search: at 10 % it takes a minute on the zoo model)
    for script, extra in [("quantize_and_check.py", []), ("w8a8_auto_cpu.py", ["0"])]:
        p = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / script),
                            zoo_pose_path, str(images), str(images), str(tmp_path / "q.onnx"),
                            *extra], capture_output=True, text=True, env=env, timeout=300)
        assert p.returncode == 0, script + ": " + p.stderr
        assert (tmp_path / "q.onnx").exists()
        (tmp_path / "q.onnx").unlink()
    assert "search:" in p.stdout and "int8 run:" in p.stdout


def test_study_and_live_video_examples_run(tmp_path, zoo_pose_path, zoo_detect_path, scenes,
                                           run_cli):
    from conftest import write_bmp
    for name, frames in (("calib", scenes[:2]), ("test", scenes[2:4])):
        (tmp_path / name).mkdir()
        for i, f in enumerate(frames):
            write_bmp(tmp_path / name / f"{i}.bmp", f)
    env = {**os.environ, "PYTHONPATH": str(BUILD / "python")}
    examples = ROOT / "examples" / "python"
    p = subprocess.run([sys.executable, str(examples / "study_n_vs_s.py"), zoo_detect_path,
                        zoo_pose_path, str(tmp_path / "calib"), str(tmp_path / "test"),
                        str(tmp_path / "study"), "w8a16", "C"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "2 runs" in p.stdout and (tmp_path / "study" / "index.html").exists()
    assert p.stdout.count(" C   w8a16 ") == 2
    video = tmp_path / "clip.avi"
    run_cli("scenes", "--video", video, "--n", "6", "--size", "160x120")
    p = subprocess.run([sys.executable, str(examples / "live_video.py"), zoo_pose_path,
                        str(video), str(tmp_path / "drawn")],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    assert len([line for line in p.stdout.splitlines() if " | read " in line]) == 6
    assert "6 frame(s)" in p.stdout
    assert len(list((tmp_path / "drawn").iterdir())) == 6
