"""edgeq.quantize: the program's bytes, the reports as data, errors naming the option."""
import json
import os
import signal
import subprocess
import sys

import pytest

import edgeq
from conftest import BUILD, write_bmp


def test_w8a16_writes_the_programs_bytes(real_model, real_model_path, real_stats,
                                         real_stats_file, tmp_path, run_cli):
    run_cli("quantize", "--model", real_model_path, "--stats", real_stats_file, "--scheme",
            "w8a16", "--out", tmp_path / "cli.onnx", "--encodings", tmp_path / "cli.json")
    q = edgeq.quantize(real_model, real_stats, scheme="w8a16", progress=False)
    q.save(tmp_path / "py.onnx", encodings=tmp_path / "py.json")
    assert (tmp_path / "py.onnx").read_bytes() == (tmp_path / "cli.onnx").read_bytes()
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert q.to_bytes() == (tmp_path / "cli.onnx").read_bytes()


def test_w8a8_repair_and_options_write_the_programs_bytes(zoo_pose_path, zoo_stats, scenes,
                                                          tmp_path, run_cli):
    folder = tmp_path / "scenes"
    folder.mkdir()
    for i, f in enumerate(scenes):
        write_bmp(folder / f"s{i}.bmp", f)
    zoo_stats.save(tmp_path / "zoo.stats")
    run_cli("quantize", "--model", zoo_pose_path, "--stats", tmp_path / "zoo.stats", "--scheme",
            "w8a8", "--range", "percentile", "--images", folder, "--gptq", "--n", 4,
            "--out", tmp_path / "cli.onnx")
    q = edgeq.quantize(zoo_pose_path, zoo_stats, scheme="w8a8", range="percentile",
                       images=folder, gptq=True, repair_n=4, progress=False)
    assert q.to_bytes() == (tmp_path / "cli.onnx").read_bytes()
    assert q.repair["ran"] and q.repair["gptq"] and q.repair["images"] == 4


def test_quantized_io_writes_the_programs_bytes_and_runs_on_floats(zoo_pose_path, zoo_stats,
                                                                   scenes, tmp_path, run_cli):
    zoo_stats.save(tmp_path / "zoo.stats")
    run_cli("quantize", "--model", zoo_pose_path, "--stats", tmp_path / "zoo.stats", "--scheme",
            "w8a16", "--quantize-io", "both", "--out", tmp_path / "cli.onnx")
    q = edgeq.quantize(zoo_pose_path, zoo_stats, scheme="w8a16", quantize_io="both",
                       progress=False)
    assert q.to_bytes() == (tmp_path / "cli.onnx").read_bytes()
    assert q.summary["quantize_io"] == "both" and q.summary["scheme"] == "w8a16"
    assert edgeq.Model(q.to_bytes()).outputs[0]["dtype"] == "uint16"
    session = edgeq.Session(q, threads=1, conf=0.0)
    assert len(session.predict(scenes[0])[0]) > 0  # images in as floats, detections out
    assert edgeq.Model(q.to_bytes()).inputs[0]["dtype"] == "uint8"


def test_w8a8_summary_keeps_the_decode_tail_at_16_bit(real_model, real_stats):
    s = edgeq.quantize(real_model, real_stats, progress=False).summary
    assert s["activations_8bit"] > 300 and s["decode_tail_values"] > 0
    assert s["decode_tail_8bit"] == 0 and s["placement"] == "ort" and s["range"] == "minmax"


def test_summary_is_the_programs_ledger_report(real_model, real_model_path, real_stats,
                                               real_stats_file, tmp_path, run_cli):
    ledger = tmp_path / "l.sqlite"
    run_cli("quantize", "--model", real_model_path, "--stats", real_stats_file, "--scheme", "w8a8",
            "--placement", "qnn", "--range", "percentile", "--out", tmp_path / "cli.onnx",
            "--ledger", ledger, "--tag", "cli")
    q = edgeq.quantize(real_model, real_stats, scheme="w8a8", placement="qnn",
                       range="percentile", progress=False)
    s = q.summary
    assert set(s) == {"scheme", "range", "placement", "quantize_io", "activations_8bit",
                      "activations_16bit", "activations_other", "activations_float",
                      "weights_per_channel", "params_per_tensor", "decode_tail_values",
                      "decode_tail_8bit"}
    assert (s["scheme"], s["placement"], s["quantize_io"]) == ("w8a8", "qnn", "none")
    assert s["range"].startswith("percentile")
    book = edgeq.Ledger(ledger, write=True)
    book.record("quantize", s, tag="py")
    assert book.run(1)["metrics"] == book.run(2)["metrics"] and book.run(2)["metrics"]
    gate = book.check("cli", "py", max_drop="activations_8bit=0", max_rise="activations_float=0")
    assert gate.regressions == 0 and len(gate.rows) == 2


def test_encodings_json_is_aimet_json(real_model, real_stats):
    enc = json.loads(edgeq.quantize(real_model, real_stats, progress=False).encodings_json())
    assert "activation_encodings" in enc and "param_encodings" in enc


def test_auto_search_reports_its_choice(zoo_pose_path, zoo_stats, scenes):
    q = edgeq.quantize(zoo_pose_path, zoo_stats, images=scenes, auto=10, auto_n=2, progress=False)
    s = q.search
    assert s["ran"] and s["images"] == 2 and s["percent"] == 10
    assert len(s["chosen"]) <= 0.10 * s["values"] + 1
    assert len(s["chosen"]) > 0 and q.summary["activations_16bit"] == s["values16"]
    assert set(s["result"]) == {"loss", "box_px", "kpt_px", "score", "flipped"}


@pytest.mark.parametrize("options, message", [
    (dict(scheme="w4a4"), "scheme"),
    (dict(range="median"), "range"),
    (dict(placement="gpu"), "placement"),
    (dict(percentile="high"), "percentile"),
    (dict(auto=5), "images"),
    (dict(exclude=3), "exclude"),
    (dict(quantize_io="inputs"), "quantize_io"),
])
def test_bad_options_name_the_option(real_model, real_stats, options, message):
    with pytest.raises(edgeq.Error, match=message):
        edgeq.quantize(real_model, real_stats, progress=False, **options)


def test_stats_of_another_model_are_refused(zoo_pose_path, real_stats):
    with pytest.raises(edgeq.Error, match="model"):
        edgeq.quantize(zoo_pose_path, real_stats, progress=False)


def test_count_options_name_the_option_and_the_range(zoo_pose_path, zoo_stats):
    # repair_n=-1 said "expects a count, got int".
    for key in ("repair_n", "repair_memory_mib", "auto_n"):
        for bad in (-1, 0, 2.5, "8", True, 2 ** 70):
            with pytest.raises(edgeq.Error,
                               match=f"option '{key}' must be a positive integer \\(1 or more\\), got "):
                edgeq.quantize(zoo_pose_path, zoo_stats, progress=False, **{key: bad})
    with pytest.raises(edgeq.Error, match=r"option 'seed' must be an integer from 0 to 2\*\*64-1, got -1"):
        edgeq.quantize(zoo_pose_path, zoo_stats, progress=False, seed=-1)


def test_stats_must_be_stats(real_model):
    with pytest.raises(edgeq.Error, match="edgeq.Stats"):
        edgeq.quantize(real_model, "stats.cbor", progress=False)


def test_ctrl_c_stops_a_calibration_with_keyboard_interrupt(tmp_path, zoo_pose_path):
    # A real SIGINT while the library works (GIL released): KeyboardInterrupt, nothing written.
    script = f"""
import os, signal, sys, numpy as np
sys.path.insert(0, {str(BUILD / 'python')!r})
import edgeq
# As from a terminal: Python's Ctrl-C handler even where this runner ignores SIGINT (a background
# job's SIGINT is ignored, and the library leaves an ignored signal ignored).
signal.signal(signal.SIGINT, signal.default_int_handler)
frames = [np.full((160, 160, 3), i % 255, np.uint8) for i in range(400)]
events = []
def progress(kind, task, done, total, message):
    events.append((kind, task, done, total))
    if done == 2:
        os.kill(os.getpid(), signal.SIGINT)
    return True
try:
    edgeq.calibrate({zoo_pose_path!r}, frames, n=400, progress=progress).save({str(tmp_path / 's')!r})
    # (what the call saw, should it ever finish)
    print("finished; events:", events[:6], "...", events[-2:], len(events))
except KeyboardInterrupt:
    print("interrupted")
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "interrupted", p.stdout + p.stderr
    assert not (tmp_path / "s").exists()
