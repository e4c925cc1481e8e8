"""edgeq.Session: detections as `edgeq run --json` writes them, tensors, threads, memory."""
import json
import os
import resource
import threading

import numpy as np
import pytest

import edgeq
from conftest import write_bmp


@pytest.fixture(scope="module")
def real_session(real_model):
    return edgeq.Session(real_model, threads=2)


@pytest.fixture(scope="module")
def zoo_session(zoo_pose_path):
    return edgeq.Session(zoo_pose_path, threads=1)


def test_predict_equals_run_json(real_session, real_model_path, val_dir, tmp_path, run_cli):
    run_cli("run", "--model", real_model_path, "--image", val_dir, "--json", tmp_path / "r.json")
    expected = json.loads((tmp_path / "r.json").read_text())
    got = [r.to_dict() for r in real_session.predict(val_dir)]
    assert [g["image"] for g in got] == [e["image"] for e in expected]
    assert sum(len(g["detections"]) for g in got) > 0
    for g, e in zip(got, expected):
        assert len(g["detections"]) == len(e["detections"])
        for a, b in zip(g["detections"], e["detections"]):
            assert a["class"] == b["class"]
            np.testing.assert_allclose(a["box"], b["box"], rtol=1e-6, atol=1e-4)
            np.testing.assert_allclose(a["score"], b["score"], rtol=1e-6)
            np.testing.assert_allclose(a["keypoints"], b["keypoints"], rtol=1e-6, atol=1e-4)


def test_pose_results_are_shaped_as_ultralytics(real_session, val_dir):
    r = real_session.predict(val_dir)[0]
    n = len(r)
    assert n > 0
    assert r.boxes.xyxy.shape == (n, 4) and r.boxes.xyxy.dtype == np.float32
    assert r.boxes.conf.shape == (n,) and (r.boxes.conf > 0.25).all()
    assert r.boxes.cls.dtype == np.int64
    assert r.keypoints.xy.shape == (n, 17, 2) and r.keypoints.conf.shape == (n, 17)
    assert (r.boxes.xyxy[:, 2] > r.boxes.xyxy[:, 0]).all()


def test_a_frame_gives_what_its_file_gives(zoo_session, scenes, tmp_path):
    f = scenes[3]
    path = write_bmp(tmp_path / "scene.bmp", f)
    a, b = zoo_session.predict([f, path])
    assert a.path == "image 0" and b.path == str(path)
    np.testing.assert_array_equal(a.boxes.xyxy, b.boxes.xyxy)
    np.testing.assert_array_equal(a.keypoints.xy, b.keypoints.xy)


def test_detect_model_has_no_keypoints(zoo_detect_path, scenes):
    r = edgeq.Session(zoo_detect_path, threads=1, conf=0.0).predict(scenes[0])[0]
    assert r.keypoints is None and r.boxes.xyxy.shape[1] == 4


def test_quantized_model_runs_in_a_session(real_model, real_stats, val_dir):
    q = edgeq.quantize(real_model, real_stats, progress=False)
    simulate = edgeq.Session(q, threads=2).predict(val_dir)
    int8 = edgeq.Session(q, exec="int8", threads=2).predict(val_dir)
    assert sum(len(r) for r in simulate) > 0 and sum(len(r) for r in int8) > 0


def test_run_returns_the_outputs(zoo_session):
    x = np.random.default_rng(1).random((1, 3, 160, 160), dtype=np.float32)
    out = zoo_session.run({"images": x})
    assert list(out) == ["output0"] and out["output0"].shape == (1, 56, 525)
    np.testing.assert_array_equal(zoo_session.run(x)["output0"], out["output0"])


@pytest.mark.parametrize("x, message", [
    (np.zeros((1, 3, 160, 160)), "float32"),
    (np.zeros((1, 3, 160, 320), np.float32)[:, :, :, ::2], "C-contiguous"),
    (np.zeros((1, 3, 100, 160), np.float32), "images"),
    ([1, 2, 3], "numpy array"),
])
def test_bad_tensors_are_named(zoo_session, x, message):
    with pytest.raises(edgeq.Error, match=message):
        zoo_session.run({"images": x})


def test_unreadable_image_names_the_file(zoo_session, tmp_path):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8 not a jpeg")
    with pytest.raises(edgeq.Error, match="broken.jpg"):
        zoo_session.predict(bad)


def test_bad_exec_is_an_error(zoo_pose_path):
    with pytest.raises(edgeq.Error, match="exec"):
        edgeq.Session(zoo_pose_path, exec="gpu")


def test_two_threads_predict_at_once(zoo_pose_path, scenes):
    expected = [r.boxes.xyxy for r in edgeq.Session(zoo_pose_path, threads=1).predict(scenes)]
    results = {}

    def work(k):
        s = edgeq.Session(zoo_pose_path, threads=1)
        results[k] = [s.predict(scenes) for _ in range(3)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(2):
        for round_ in results[k]:
            for r, e in zip(round_, expected):
                np.testing.assert_array_equal(r.boxes.xyxy, e)


def test_one_session_shared_by_threads(zoo_session, scenes):
    expected = [r.boxes.xyxy for r in zoo_session.predict(scenes)]
    got = [None, None]

    def work(k):
        got[k] = [r.boxes.xyxy for r in zoo_session.predict(scenes)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g in got:
        for a, b in zip(g, expected):
            np.testing.assert_array_equal(a, b)


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def test_a_thousand_predicts_do_not_grow_memory(zoo_session, scenes):
    frame = scenes[5]
    for _ in range(100):  # warm up: arenas and caches reach their size
        zoo_session.predict(frame)
    before = rss_kib()
    for _ in range(1000):
        zoo_session.predict(frame)
    assert rss_kib() <= before * 1.05, (before, rss_kib())


def test_file_names_that_are_not_utf8_keep_their_bytes(zoo_session, zoo_pose_path, scenes, tmp_path,
                                                       run_cli):
    folder = tmp_path / os.fsdecode(b"caf\xe9")  # Latin-1, not UTF-8
    folder.mkdir()
    names = [os.fsdecode(b"a\xff.bmp"), "b.bmp"]
    for name, frame in zip(names, scenes):
        write_bmp(folder / name, frame)
    got = zoo_session.predict(folder)
    assert [os.fsencode(r.path) for r in got] == [os.fsencode(folder / n) for n in names]
    run_cli("run", "--model", zoo_pose_path, "--image", folder,
            "--json", tmp_path / "r.json")
    written = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [os.fsencode(e["image"]) for e in written] == [os.fsencode(r.path) for r in got]
    (folder / os.fsdecode(b"c\xfe.jpg")).write_bytes(b"not a jpeg")
    with pytest.raises(edgeq.Error, match=r"c\\xfe\.jpg"):
        zoo_session.predict(folder / os.fsdecode(b"c\xfe.jpg"))


def test_a_video_or_config_file_is_not_echoed(zoo_session, tmp_path):
    """A file that is not an image, a folder or an image list is refused without its bytes."""
    avi = tmp_path / "v.avi"
    avi.write_bytes(b"RIFF\x10\x00\x00\x00AVI LIST\x1b]0;pwned\x07")
    with pytest.raises(edgeq.Error, match="is a video") as e:
        zoo_session.predict(str(avi))
    assert "RIFF" not in str(e.value) and "pwned" not in str(e.value)
    cfg = tmp_path / "secret.cfg"
    cfg.write_text("API_KEY=sk-live-0123456789abcdef\n")
    with pytest.raises(edgeq.Error, match="is not an image") as e:
        zoo_session.predict(str(cfg))
    assert "sk-live" not in str(e.value)
