"""edgeq.doctor: findings as data, the report `edgeq doctor --json` writes, sensitivity."""
import json

import pytest

import edgeq


def test_doctor_equals_the_programs_json(real_model, real_stats, real_stats_file,
                                         real_model_path, tmp_path, run_cli):
    q = tmp_path / "q.onnx"
    edgeq.quantize(real_model, real_stats, progress=False).save(q)
    p = run_cli("doctor", "--model", q, "--stats", real_stats_file, "--target", "qnn-htp",
                "--json", tmp_path / "d.json")
    rep = edgeq.doctor(q, real_stats, target="qnn-htp", progress=False)
    assert rep.to_dict() == json.loads((tmp_path / "d.json").read_text())
    # The grouped summary; the program adds a line pointing at --all when it leaves some out.
    assert rep.hidden > 0 and len(rep.text.splitlines()) < 25
    assert p.stdout == rep.text + (f"{rep.hidden} findings not shown: --all lists every finding, "
                                   "--json F writes them with their numbers\n")
    assert rep.target == "qnn-htp" and rep.qdq and rep.encodings_from == "model"
    severities = [f.severity for f in rep.findings]
    order = {"error": 0, "warning": 1, "info": 2}
    assert severities == sorted(severities, key=order.get)  # most severe first
    assert all(f.message for f in rep.findings)
    # all=True: every finding on its own line, as `edgeq doctor --all` prints them.
    every = edgeq.doctor(q, real_stats, target="qnn-htp", all=True, max_info=1000,
                         progress=False)
    p = run_cli("doctor", "--model", q, "--stats", real_stats_file, "--target", "qnn-htp",
                "--all", "--max-info", "1000")
    assert every.text == p.stdout and every.hidden == 0
    assert every.to_dict() == rep.to_dict()
    lines = every.text.splitlines()
    assert len(lines) == 2 + len(every.findings)
    for line, f in zip(lines[2:], every.findings):
        assert line.startswith(f"{f.severity} [{f.kind}] ") and line.endswith(f.message)


def test_doctor_calibrates_the_float_view_from_images(real_model, real_stats, train_dir):
    q = edgeq.quantize(real_model, real_stats, progress=False)
    rep = edgeq.doctor(q, images=train_dir, max_images=2, target="cpu-avx2", progress=False)
    assert rep.has_stats and rep.calibrated_images == 2 and rep.pair_images == 2
    assert any(f.kind.startswith("int8") for f in rep.findings) or rep.to_dict()["saturation"]


def test_doctor_sensitivity_proposes_a_mixed_set(zoo_pose_path, zoo_stats, scenes):
    rep = edgeq.doctor(zoo_pose_path, zoo_stats, images=scenes, sensitivity=1, top_percent=5,
                       progress=False)
    assert rep.sensitivity_images == 1 and len(rep.ranking) > 100 and rep.blocks
    assert [r.loss for r in rep.ranking] == sorted((r.loss for r in rep.ranking), reverse=True)
    assert rep.mixed == [r.value for r in rep.ranking[:len(rep.mixed)]]
    assert len(rep.mixed) == -(-len(rep.ranking) * 5 // 100)


@pytest.mark.parametrize("kwargs, message", [
    (dict(target="gpu"), "gpu"),
    (dict(sensitivity=2), "images"),
    (dict(top_percent=150), "top_percent"),
    (dict(stats="s.cbor"), "edgeq.Stats"),
])
def test_doctor_bad_options(real_model, kwargs, message):
    with pytest.raises(edgeq.Error, match=message):
        edgeq.doctor(real_model, progress=False, **kwargs)
