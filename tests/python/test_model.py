"""edgeq.Model, the package's names and its command line."""
import hashlib
import os
import pathlib
import subprocess
import sys

import pytest

import edgeq
from conftest import BUILD, ROOT

PUBLIC = ["BenchReport", "Boxes", "Cancelled", "CompareOutput", "CompareReport", "DetectReport",
          "DoctorReport", "Error", "Finding", "Keypoints", "Ledger", "LedgerCheck",
          "LedgerCheckRow", "Model", "QuantizedModel", "Results", "SensitivityRow", "Session",
          "Stats", "StudyResult", "StudyWorkResult", "bench", "calibrate", "compare", "detect",
          "doctor", "main", "quantize", "study", "study_plan", "study_worker"]


def test_version_is_the_programs(run_cli):
    assert run_cli("--version").stdout.strip() == "edgeq " + edgeq.__version__


def test_model_from_path_lists_inputs_and_outputs(real_model):
    assert real_model.inputs == [{"name": "images", "dtype": "float32",
                                  "shape": (1, 3, 640, 640)}]
    assert real_model.outputs[0]["name"] == "output0"
    assert real_model.outputs[0]["shape"] == (1, 56, 8400)


def test_model_sha256_is_of_the_file(real_model, real_model_path):
    assert real_model.sha256 == hashlib.sha256(pathlib.Path(real_model_path).read_bytes()).hexdigest()


def test_model_from_bytes_and_pathlike(real_model, real_model_path):
    raw = pathlib.Path(real_model_path).read_bytes()
    assert edgeq.Model(raw, name="mine").sha256 == real_model.sha256
    assert edgeq.Model(raw, name="mine").name == "mine"
    assert edgeq.Model(pathlib.Path(real_model_path)).sha256 == real_model.sha256
    assert edgeq.Model(real_model).sha256 == real_model.sha256


def test_model_from_a_modelproto_like_object(zoo_pose_path):
    raw = pathlib.Path(zoo_pose_path).read_bytes()

    class Proto:  # what onnx.ModelProto offers
        def SerializeToString(self):
            return raw

    assert edgeq.Model(Proto()).sha256 == hashlib.sha256(raw).hexdigest()


def test_model_to_bytes_round_trips(zoo_pose_path):
    m = edgeq.Model(zoo_pose_path)
    assert edgeq.Model(m.to_bytes()).outputs == m.outputs


def test_missing_model_names_the_file(tmp_path):
    with pytest.raises(edgeq.Error, match="nothing_here.onnx"):
        edgeq.Model(tmp_path / "nothing_here.onnx")


def test_truncated_model_is_an_error(zoo_pose_path):
    raw = pathlib.Path(zoo_pose_path).read_bytes()
    with pytest.raises(edgeq.Error):
        edgeq.Model(raw[: len(raw) // 3])


def test_model_of_a_wrong_type_is_an_error():
    with pytest.raises(edgeq.Error, match="expected a path, bytes .* or an onnx.ModelProto"):
        edgeq.Model(42)


def test_model_from_any_bytes_like_object(zoo_pose_path):
    # bytes-like objects are bytes to Python's own binary APIs (hashlib, zlib): bytearray raised
    # TypeError, not even edgeq.Error.
    raw = pathlib.Path(zoo_pose_path).read_bytes()
    sha = edgeq.Model(raw).sha256
    for data in (bytearray(raw), memoryview(raw), memoryview(bytearray(raw))):
        assert edgeq.Model(data).sha256 == sha
    with pytest.raises(edgeq.Error, match="not one contiguous block"):
        edgeq.Model(memoryview(raw)[::2])
    with pytest.raises(edgeq.Error):
        edgeq.Model(bytearray(raw[:100]))


def test_paths_holding_a_nul_byte_are_refused(zoo_pose_path, zoo_stats, tmp_path):
    # The file calls stop at a NUL: Model('z.onnx\0.evil') loaded z.onnx, save('q.onnx\0.txt')
    # wrote q.onnx.
    with pytest.raises(edgeq.Error, match="NUL byte"):
        edgeq.Model(zoo_pose_path + "\0.evil")
    with pytest.raises(edgeq.Error, match="NUL byte"):
        edgeq.Model(pathlib.Path(zoo_pose_path + "\0.evil"))
    q = edgeq.quantize(zoo_pose_path, zoo_stats, progress=False)
    with pytest.raises(edgeq.Error, match="NUL byte"):
        q.save(str(tmp_path / "q.onnx") + "\0.txt")
    with pytest.raises(edgeq.Error, match="NUL byte"):
        q.save(tmp_path / "q2.onnx", encodings=str(tmp_path / "e.json") + "\0.txt")
    with pytest.raises(edgeq.Error, match="NUL byte"):
        zoo_stats.save(str(tmp_path / "s.cbor") + "\0x")
    with pytest.raises(edgeq.Error, match="NUL byte"):
        edgeq.Ledger(str(tmp_path / "l.sqlite") + "\0x", write=True)
    with pytest.raises(edgeq.Error, match="NUL byte"):
        edgeq.calibrate(zoo_pose_path, str(tmp_path) + "\0x", progress=False)
    with pytest.raises(edgeq.Error, match="NUL byte"):
        edgeq.study(zoo_pose_path, tmp_path, tmp_path, str(tmp_path / "out") + "\0x",
                    progress=False)
    with pytest.raises(edgeq.Error, match="NUL byte"):
        edgeq.study(zoo_pose_path + "\0x", tmp_path, tmp_path, tmp_path / "out", progress=False)
    assert sorted(os.listdir(tmp_path)) == []


def test_summary_names_the_output(real_model):
    assert "output0" in real_model.summary()


def test_every_public_name_is_documented_and_stubbed():
    stub = (ROOT / "python" / "edgeq" / "__init__.pyi").read_text()
    assert sorted(edgeq.__all__) == sorted(PUBLIC + ["__version__"])
    for name in PUBLIC:
        assert getattr(edgeq, name).__doc__, name
        assert (f"def {name}(" in stub) or (f"class {name}" in stub), name


def test_error_is_one_exception_type():
    assert issubclass(edgeq.Cancelled, edgeq.Error)
    assert issubclass(edgeq.Error, Exception)


def test_python_m_edgeq_runs_the_command_line(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(BUILD / "python")}
    p = subprocess.run([sys.executable, "-m", "edgeq", "zoo", "yolo11n", "-o",
                        str(tmp_path / "z.onnx"), "--imgsz", "64"], capture_output=True,
                       text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert "wrote" in p.stdout and (tmp_path / "z.onnx").exists()
    p = subprocess.run([sys.executable, "-m", "edgeq", "inspect", "--model",
                        str(tmp_path / "missing.onnx")], capture_output=True, text=True, env=env)
    assert p.returncode == 1 and "missing.onnx" in p.stderr
