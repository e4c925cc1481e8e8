"""Shared fixtures of the Python tests: the build tree's package, the real model and photos, a
zoo model at imgsz 160, and statistics computed once per run (the suite must stay fast)."""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("EDGEQ_BUILD_DIR", ROOT / "build"))
sys.path.insert(0, str(BUILD / "python"))

import edgeq  # noqa: E402


@pytest.fixture(scope="session")
def edgeq_bin():
    path = BUILD / "edgeq"
    assert path.exists(), f"{path}: build the program first"
    return str(path)


@pytest.fixture(scope="session")
def run_cli(edgeq_bin):
    def run(*args, check=True):
        p = subprocess.run([edgeq_bin, *map(str, args)], capture_output=True, text=True,
                           errors="surrogateescape",
                           env={**os.environ, "GOMP_SPINCOUNT": "5000"})
        if check:
            assert p.returncode == 0, p.stderr
        return p
    return run


@pytest.fixture(scope="session")
def real_model_path():
    return str(ROOT / "models" / "yolo11n-pose.onnx")


@pytest.fixture(scope="session")
def real_model(real_model_path):
    return edgeq.Model(real_model_path)


@pytest.fixture(scope="session")
def train_dir():
    return str(ROOT / "data" / "coco8-pose" / "images" / "train")


@pytest.fixture(scope="session")
def val_dir():
    return str(ROOT / "data" / "coco8-pose" / "images" / "val")


@pytest.fixture(scope="session")
def real_stats(real_model, train_dir):
    return edgeq.calibrate(real_model, train_dir, n=4, progress=False)


@pytest.fixture(scope="session")
def real_stats_file(real_stats, tmp_path_factory):
    path = tmp_path_factory.mktemp("stats") / "real.stats"
    real_stats.save(path)
    return str(path)


@pytest.fixture(scope="session")
def zoo_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("zoo")


@pytest.fixture(scope="session")
def zoo_pose_path(zoo_dir):
    path = zoo_dir / "yolo11n-pose-160.onnx"
    assert edgeq.main(["zoo", "yolo11n-pose", "-o", str(path), "--imgsz", "160"]) == 0
    return str(path)


@pytest.fixture(scope="session")
def zoo_detect_path(zoo_dir):
    path = zoo_dir / "yolo11n-160.onnx"
    assert edgeq.main(["zoo", "yolo11n", "-o", str(path), "--imgsz", "160"]) == 0
    return str(path)


@pytest.fixture(scope="session")
def scenes():
    """Eight synthetic BGR frames (numpy), different sizes: calibration-like input in memory."""
    import numpy as np
    rng = np.random.default_rng(7)
    frames = []
    for i in range(8):
        h, w = 120 + 16 * i, 160 + 8 * i
        f = np.full((h, w, 3), 90 + 10 * i, np.uint8)
        y, x = rng.integers(0, h // 2), rng.integers(0, w // 2)
        f[y:y + h // 3, x:x + w // 4] = rng.integers(0, 255, 3, dtype=np.uint8)
        frames.append(f)
    return frames


@pytest.fixture(scope="session")
def zoo_stats(zoo_pose_path, scenes):
    return edgeq.calibrate(zoo_pose_path, scenes, n=8, progress=False)


def write_bmp(path, frame):
    """Writes an HxWx3 uint8 BGR frame as a 24-bit BMP (the program reads it; no OpenCV here)."""
    import struct
    import numpy as np
    h, w, _ = frame.shape
    row = (w * 3 + 3) // 4 * 4
    pixels = np.zeros((h, row), np.uint8)
    pixels[:, : w * 3] = frame[::-1].reshape(h, w * 3)  # bottom-up rows
    header = struct.pack("<2sIHHI", b"BM", 54 + pixels.size, 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, pixels.size, 2835, 2835, 0, 0)
    path.write_bytes(header + info + pixels.tobytes())
    return path
