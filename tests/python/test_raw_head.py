"""A raw head (`edgeq cut --arm head`) from Python: Session, compare and bench run its decode on
the host and see the full model's output0 (no option needed)."""
import numpy as np
import pytest

import edgeq


@pytest.fixture(scope="module")
def raw_head_path(real_model_path, tmp_path_factory):
    path = tmp_path_factory.mktemp("raw_head") / "head.onnx"
    assert edgeq.main(["cut", "--model", real_model_path, "--arm", "head", "--out", str(path)]) == 0
    return str(path)


def test_session_predicts_the_full_models_detections(real_model, raw_head_path, val_dir):
    full = [r.to_dict() for r in edgeq.Session(real_model, threads=2).predict(val_dir)]
    head = [r.to_dict() for r in edgeq.Session(raw_head_path, threads=2).predict(val_dir)]
    assert len(full) == len(head) and sum(len(r["detections"]) for r in full) > 0
    for a, b in zip(full, head):
        assert len(a["detections"]) == len(b["detections"])
        for x, y in zip(a["detections"], b["detections"]):
            np.testing.assert_allclose(x["box"], y["box"], atol=0.01)
            np.testing.assert_allclose(x["keypoints"], y["keypoints"], atol=0.01)


def test_compare_and_bench_see_output0(real_model_path, raw_head_path, val_dir):
    rep = edgeq.compare(real_model_path, raw_head_path, val_dir, progress=False)
    assert [o.name for o in rep.outputs] == ["output0"]
    assert rep.match_rate == 1.0 and rep.outputs[0].max_abs < 2e-3
    assert rep.outputs[0].diverging_channels is None and rep.outputs[0].ref_channels == []
    b = edgeq.bench(raw_head_path, runs=2, warmup=1, threads=2)
    assert b.host_decode_median_ms > 0 and b.graph_median_ms > 0
    assert edgeq.bench(real_model_path, runs=1, warmup=0, threads=2).host_decode_median_ms == 0
