"""SIGINT and SIGTERM during long calls (issue 46): every long call stops at its next image, frame,
run or step; SIGINT then raises KeyboardInterrupt, SIGTERM takes its default action (the process
ends with it) once what finished is written. Each case runs in its own interpreter, signalled
from outside as a terminal, timeout or a container runtime would."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import BUILD, write_bmp

# As from a terminal: Python's Ctrl-C handler even where this runner ignores SIGINT (a background
# job), and SIGTERM's default action.
PRELUDE = f"""
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
sys.path.insert(0, {str(BUILD / 'python')!r})
import edgeq
"""


def signalled(script, sig, after="started", timeout=60):
    """Runs `script` in a new interpreter; once it prints `after`, sends `sig`. Returns the
    process (stdout, stderr, returncode) and the seconds from the signal to its exit."""
    p = subprocess.Popen([sys.executable, "-c", PRELUDE + script], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "GOMP_SPINCOUNT": "5000"})
    line = p.stdout.readline()
    assert after in line, line + p.stderr.read()
    time.sleep(0.3)  # into the call
    sent = time.monotonic()
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail(f"still running {timeout} s after the signal")
    return p.returncode, line + out, err, time.monotonic() - sent


def expect_keyboard_interrupt(setup, call):
    """`call` (after `setup`) gets Ctrl-C while it works: KeyboardInterrupt within seconds."""
    rc, out, err, seconds = signalled(f"""
{setup}
print("started", flush=True)
try:
    {call}
    print("finished")
except KeyboardInterrupt:
    print("interrupted")
""", signal.SIGINT)
    assert rc == 0, err
    assert out.split()[-1] == "interrupted", out + err
    assert seconds < 10


def folder_of_images(scenes, folder, n=300):
    folder.mkdir(exist_ok=True)
    for i in range(n):
        write_bmp(folder / f"{i:03}.bmp", scenes[i % len(scenes)])
    return str(folder)


def test_ctrl_c_stops_bench_with_keyboard_interrupt(zoo_pose_path):
    # bench has no progress callable: it stopped only at its end, then returned its report.
    expect_keyboard_interrupt("", f"edgeq.bench({zoo_pose_path!r}, runs=10**5, threads=1)")


def test_ctrl_c_stops_session_predict_over_a_folder(zoo_pose_path, scenes, tmp_path):
    folder = folder_of_images(scenes, tmp_path)
    expect_keyboard_interrupt(f"s = edgeq.Session({zoo_pose_path!r}, threads=1)",
                              f"s.predict({folder!r})")


def test_sigterm_ends_detect_after_writing_the_finished_frames(zoo_pose_path, scenes, tmp_path):
    folder = folder_of_images(scenes, tmp_path / "images")
    out_json = tmp_path / "det.json"
    rc, out, err, seconds = signalled(f"""
print("started", flush=True)
edgeq.detect({zoo_pose_path!r}, {folder!r}, json={str(out_json)!r}, threads=1)
print("finished")
""", signal.SIGTERM)
    assert rc == -signal.SIGTERM, out + err  # the default action, after the JSON was written
    assert "finished" not in out
    frames = json.loads(out_json.read_text())
    assert 0 < len(frames) < 300
    assert seconds < 10


def test_a_python_sigterm_handler_runs_once_the_call_stopped(zoo_pose_path):
    # The program's own handler is what SIGTERM meets after the call stopped; the call raises
    # edgeq.Cancelled when that handler returns.
    rc, out, err, _ = signalled(f"""
import signal
signal.signal(signal.SIGTERM, lambda *a: print("handler", flush=True))
print("started", flush=True)
try:
    edgeq.bench({zoo_pose_path!r}, runs=100000, warmup=0, threads=1)
    print("finished")
except edgeq.Cancelled:
    print("cancelled")
""", signal.SIGTERM)
    assert rc == 0, err
    assert out.split()[-2:] == ["handler", "cancelled"], out + err


def test_sigterm_releases_a_study_workers_claims(zoo_detect_path, scenes, tmp_path):
    for name, frames in (("calib", scenes[:2]), ("test", scenes[2:4])):
        (tmp_path / name).mkdir()
        for i, f in enumerate(frames):
            write_bmp(tmp_path / name / f"{i}.bmp", f)
    out = tmp_path / "out"
    rc, stdout, err, seconds = signalled(f"""
print("started", flush=True)
edgeq.study_worker({zoo_detect_path!r}, {str(tmp_path / 'calib')!r}, {str(tmp_path / 'test')!r},
                   {str(out)!r}, 0, 1, progress=False, schemes=["w8a16", "w8a8", "w8a8-auto5"],
                   arms=["A", "B", "C"], thumbnails=0, threads=1)
print("finished")
""", signal.SIGTERM, timeout=180)
    assert rc == -signal.SIGTERM, stdout + err
    claims = out / "cache" / "claims"
    assert not claims.exists() or not list(claims.iterdir())
    assert seconds < 10
