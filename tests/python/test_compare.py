"""edgeq.compare: the report `edgeq compare --json` writes, as attributes and a dict."""
import json

import numpy as np
import pytest

import edgeq
from conftest import write_bmp


@pytest.fixture(scope="module")
def w8a16_path(real_model, real_stats, tmp_path_factory):
    path = tmp_path_factory.mktemp("w8a16") / "q.onnx"
    edgeq.quantize(real_model, real_stats, scheme="w8a16", progress=False).save(path)
    return str(path)


def test_compare_equals_the_programs_json(real_model_path, w8a16_path, val_dir, tmp_path,
                                          run_cli):
    run_cli("compare", "--ref", real_model_path, "--test", w8a16_path, "--images", val_dir,
            "--json", tmp_path / "c.json", "--quiet")
    rep = edgeq.compare(real_model_path, w8a16_path, val_dir, progress=False)
    assert rep.to_dict() == json.loads((tmp_path / "c.json").read_text())
    assert rep.images == 4 and rep.detections and rep.pose
    assert rep.matched <= rep.ref_detections and 0 <= rep.match_rate <= 1
    assert rep.outputs[0].name == "output0" and rep.outputs[0].cosine > 0.99


def test_compare_with_labels_reports_map(real_model, w8a16_path, val_dir):
    rep = edgeq.compare(real_model, edgeq.Model(w8a16_path), val_dir, progress=False)
    assert rep.labelled  # data/coco8-pose/labels beside images
    assert 0 < rep.ref_pose_map50_95 <= 1 and 0 < rep.test_box_map50_95 <= 1


def test_compare_a_quantized_model_in_memory(real_model, real_stats, val_dir):
    q = edgeq.quantize(real_model, real_stats, progress=False)
    rep = edgeq.compare(real_model, q, val_dir, n=2, exec="int8", progress=False)
    assert rep.images == 2 and rep.ref_detections > 0


def test_compare_progress_counts_images(real_model, w8a16_path, val_dir):
    steps = []
    edgeq.compare(real_model, w8a16_path, val_dir, n=2,
                  progress=lambda k, t, d, n, m: steps.append((k, t, d, n)))
    assert ("step", "compare", 2, 2) in steps


def test_compare_of_different_models_is_an_error(real_model, zoo_pose_path, val_dir):
    with pytest.raises(edgeq.Error, match="differ"):
        edgeq.compare(real_model, zoo_pose_path, val_dir, progress=False)


def test_compare_bad_option_names_it(real_model, w8a16_path, val_dir):
    with pytest.raises(edgeq.Error, match="conf"):
        edgeq.compare(real_model, w8a16_path, val_dir, conf=2.0, progress=False)


def test_compare_without_detections_has_no_match_rate(real_model, tmp_path):
    """Issue 46: neither model detecting anything read as a match rate of 100 %; it is None
    (JSON null) now, with a notice among the progress messages."""
    write_bmp(tmp_path / "gray.bmp", np.full((120, 160, 3), 114, np.uint8))  # nobody there
    notes = []
    rep = edgeq.compare(real_model, real_model, tmp_path / "gray.bmp",
                        progress=lambda k, t, d, n, m: notes.append(m))
    assert rep.detections and rep.ref_detections == 0 and rep.test_detections == 0
    assert rep.match_rate is None
    assert rep.to_dict()["detections"]["match_rate"] is None
    assert any("neither model detected anything" in m for m in notes)
