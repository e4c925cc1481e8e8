"""edgeq.calibrate and edgeq.Stats: the same statistics as the program, errors, progress."""
import json
import pathlib

import numpy as np
import pytest

import edgeq


def test_calibrate_reports_what_it_did(real_stats):
    assert real_stats.images == 4
    assert real_stats.values > 300
    assert real_stats.report["images"] == 4 and real_stats.report["unreadable"] == 0
    assert real_stats.preprocessing.startswith("letterbox 640x640")


def test_stats_equal_the_programs_bytes(real_model_path, train_dir, real_stats, tmp_path,
                                        run_cli):
    run_cli("calibrate", "--model", real_model_path, "--images", train_dir, "--n", 4, "--out",
            tmp_path / "cli.stats")
    real_stats.save(tmp_path / "py.stats")
    assert (tmp_path / "py.stats").read_bytes() == (tmp_path / "cli.stats").read_bytes()


def test_report_is_the_programs_json(real_model_path, train_dir, real_stats, tmp_path, run_cli):
    run_cli("calibrate", "--model", real_model_path, "--images", train_dir, "--n", 4, "--out",
            tmp_path / "cli.stats", "--json", tmp_path / "cli.json")
    cli = json.loads((tmp_path / "cli.json").read_text())
    timing = {"seconds", "ms_per_image", "peak_rss_bytes"}
    assert set(real_stats.report) == set(cli)
    assert ({k: v for k, v in real_stats.report.items() if k not in timing} ==
            {k: v for k, v in cli.items() if k not in timing})


def test_stats_load_round_trips(real_stats_file, real_model):
    s = edgeq.Stats.load(real_stats_file)
    assert s.model_sha256 == real_model.sha256 and s.images == 4


def test_shards_merged_equal_one_pass(zoo_pose_path, scenes, zoo_stats, tmp_path):
    shards = [edgeq.calibrate(zoo_pose_path, scenes, n=8, shard=(i, 2), progress=False)
              for i in range(2)]
    assert [s.images for s in shards] == [4, 4]
    edgeq.Stats.merge(shards).save(tmp_path / "merged.stats")
    zoo_stats.save(tmp_path / "one.stats")
    assert (tmp_path / "merged.stats").read_bytes() == (tmp_path / "one.stats").read_bytes()
    # Issue 46: a shard merged twice counted its images twice; another seed merged silently.
    with pytest.raises(edgeq.Error, match="shard 0/2 is in both"):
        edgeq.Stats.merge([shards[0], shards[0]])
    other = edgeq.calibrate(zoo_pose_path, scenes, n=8, seed=1, shard=(1, 2), progress=False)
    with pytest.raises(edgeq.Error, match="different samples"):
        edgeq.Stats.merge([shards[0], other])


def test_stats_do_not_depend_on_workers(zoo_pose_path, scenes, zoo_stats, tmp_path):
    one = edgeq.calibrate(zoo_pose_path, scenes, n=8, threads=1, workers=1, progress=False)
    one.save(tmp_path / "w1.stats")
    zoo_stats.save(tmp_path / "w.stats")
    assert (tmp_path / "w1.stats").read_bytes() == (tmp_path / "w.stats").read_bytes()


def test_shard_as_text(zoo_pose_path, scenes):
    assert edgeq.calibrate(zoo_pose_path, scenes, n=8, shard="1/4", progress=False).images == 2
    with pytest.raises(edgeq.Error, match="shard"):
        edgeq.calibrate(zoo_pose_path, scenes, shard="one of two", progress=False)


def test_list_of_paths(real_model, train_dir):
    files = sorted(str(p) for p in pathlib.Path(train_dir).iterdir())[:2]
    assert edgeq.calibrate(real_model, files, progress=False).images == 2


def test_empty_folder_is_an_error(zoo_pose_path, tmp_path):
    with pytest.raises(edgeq.Error, match=str(tmp_path)):
        edgeq.calibrate(zoo_pose_path, tmp_path, progress=False)


def test_empty_list_is_an_error(zoo_pose_path):
    with pytest.raises(edgeq.Error, match="empty"):
        edgeq.calibrate(zoo_pose_path, [], progress=False)


@pytest.mark.parametrize("frame, message", [
    (np.zeros((32, 32, 3), np.float32), "dtype uint8"),
    (np.zeros((32, 32), np.uint8), "HxWx3"),
    (np.zeros((32, 32, 4), np.uint8), "HxWx3"),
    (np.zeros((32, 64, 3), np.uint8)[:, ::2], "C-contiguous"),
    ("not an image".encode(), "expected a path or a numpy array"),
])
def test_bad_frames_are_named(zoo_pose_path, frame, message):
    with pytest.raises(edgeq.Error, match=message):
        edgeq.calibrate(zoo_pose_path, [frame], progress=False)


def test_progress_callable_sees_every_image(zoo_pose_path, scenes):
    events = []
    edgeq.calibrate(zoo_pose_path, scenes, n=8, progress=lambda *e: events.append(e))
    steps = [e for e in events if e[0] == "step" and e[1] == "calibrate"]
    assert steps[0][2:4] == (0, 8) and steps[-1][2:4] == (8, 8)


def test_progress_returning_false_cancels(zoo_pose_path, scenes):
    with pytest.raises(edgeq.Cancelled):
        edgeq.calibrate(zoo_pose_path, scenes, n=8, progress=lambda k, t, d, n, m: d < 2)


def test_progress_exception_propagates(zoo_pose_path, scenes):
    def boom(kind, task, done, total, message):
        if done == 1:
            raise ValueError("stop here")

    with pytest.raises(ValueError, match="stop here"):
        edgeq.calibrate(zoo_pose_path, scenes, n=8, progress=boom)


def test_progress_of_a_wrong_type_is_an_error(zoo_pose_path, scenes):
    with pytest.raises(edgeq.Error, match="progress"):
        edgeq.calibrate(zoo_pose_path, scenes, progress="loud")


def test_default_progress_prints_a_line_without_tqdm(zoo_pose_path, scenes, capsys,
                                                     monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "tqdm", None)  # import tqdm fails
    edgeq.calibrate(zoo_pose_path, scenes[:2], n=2)
    assert "calibrate 2/2\n" in capsys.readouterr().err
