"""edgeq.bench and edgeq.study: what the program writes, errors, and progress (tqdm and plain)."""
import json
import os
import sys

import pytest

import edgeq


def test_bench_reports_what_the_program_writes(zoo_pose_path, run_cli, tmp_path):
    out = tmp_path / "bench.json"
    r = run_cli("bench", "--model", zoo_pose_path, "--runs", "3", "--warmup", "1", "--threads",
                "1", "--json", str(out))
    assert r.returncode == 0, r.stderr
    rep = edgeq.bench(zoo_pose_path, runs=3, warmup=1, threads=1, profile=True)
    expected, got = json.loads(out.read_text()), rep.to_dict()
    for timing in ("min_ms", "median_ms", "p95_ms", "throughput_ms_per_run", "plan_ms",
                   "samples_ms", "peak_rss_bytes", "peak"):
        del expected[timing], got[timing]
    profile = got.pop("profile")  # asked of the API, not of the program
    assert got == expected
    assert [o["op"] for o in profile["ops"]] == [o["op"] for o in rep.ops]
    assert len(profile["steps"]) == len(rep.steps) > 40  # every step, not the 40 slowest
    assert len(rep.samples_ms) == 3 and rep.min_ms <= rep.median_ms <= max(rep.samples_ms)
    assert rep.input_bytes_per_frame == 4 * 3 * 160 * 160
    assert rep.ops and rep.ops[0]["ms_per_run"] >= rep.ops[-1]["ms_per_run"]
    assert {o["op"] for o in rep.ops} >= {"Conv", "Concat"}
    # The run against the CPU's peak: the convolutions' work, and per step where it has any.
    assert rep.int8_gop == 0 and rep.fp32_gflop == pytest.approx(got["work"]["fp32_gflop"])
    conv_steps = [s for s in rep.steps if "(Conv)" in s["step"]]
    assert conv_steps and all(s["gops"] > 0 for s in conv_steps)
    assert all(s["gops"] == 0 for s in rep.steps if "(Concat)" in s["step"])
    if rep.peak["fp32_instruction"]:
        assert rep.peak["fp32_gflops"] > 0 and rep.peak_fraction > 0
    two = edgeq.bench(zoo_pose_path, runs=4, warmup=0, workers=2, threads=2)
    assert two.workers == 2 and two.threads == 1 and two.throughput_ms_per_run > 0
    with pytest.raises(edgeq.Error, match=r"runs: 0 is outside \[1, "):
        edgeq.bench(zoo_pose_path, runs=0)
    with pytest.raises(edgeq.Error, match="needs exec int8"):
        edgeq.bench(zoo_pose_path, runs=1, emulate="avx2")


@pytest.fixture(scope="module")
def study_inputs(zoo_detect_path, scenes, tmp_path_factory):
    from conftest import write_bmp
    root = tmp_path_factory.mktemp("study")
    for name, frames in (("calib", scenes[:2]), ("test", scenes[2:4])):
        (root / name).mkdir()
        for i, f in enumerate(frames):
            write_bmp(root / name / f"{i}.bmp", f)
    options = dict(arms=["C"], schemes=["w8a16"], bench_runs=1, bench_warmup=0, thumbnails=1)
    return root, options


def without_timing(j):
    if isinstance(j, dict):
        return {k: without_timing(v) for k, v in j.items()
                if k not in ("timing", "seconds", "peak_rss_bytes", "peak", "throughput_ms_per_run", "out")
                and not k.endswith("_ms")}
    if isinstance(j, list):
        return [without_timing(v) for v in j]
    return j


def test_study_writes_what_the_program_writes(study_inputs, zoo_detect_path, run_cli):
    root, options = study_inputs
    events = []
    res = edgeq.study(zoo_detect_path, root / "calib", root / "test", root / "py",
                      progress=lambda *e: events.append(e) or True, **options)
    assert res.runs == 1 and res.steps > 0 and res.cached == 0
    assert res.out == str(root / "py")
    data = json.loads((root / "py" / "data.json").read_text())
    assert res.data() == data
    assert res.ledger()["runs"] == 1
    lines = [e for e in events if e[0] == "message" and e[1] == "study"]
    assert len(lines) == res.steps and lines[-1][4].startswith(f"[{res.steps}/{res.steps}]")
    r = run_cli("study", "--models", zoo_detect_path, "--images", str(root / "calib"), "--test",
                str(root / "test"), "--arms", "C", "--schemes", "w8a16", "--bench-runs", "1",
                "--bench-warmup", "0", "--thumbnails", "1", "--out", str(root / "cli"))
    assert r.returncode == 0, r.stderr
    assert without_timing(json.loads((root / "cli" / "data.json").read_text())) == \
        without_timing(data)
    again = edgeq.study(zoo_detect_path, root / "calib", root / "test", root / "py",
                        progress=False, **options)
    assert again.cached == again.steps


def test_study_errors_and_cancel(study_inputs, zoo_detect_path):
    root, options = study_inputs
    with pytest.raises(edgeq.Error, match="unknown key 'colour'"):
        edgeq.study(zoo_detect_path, root / "calib", root / "test", root / "x", colour="red")
    with pytest.raises(edgeq.Error, match="'calib_n' must be a whole number"):
        edgeq.study(zoo_detect_path, root / "calib", root / "test", root / "x", calib_n=2.5)
    with pytest.raises(edgeq.Error, match="models: no such file"):
        edgeq.study(root / "none.onnx", root / "calib", root / "test", root / "x")
    with pytest.raises(edgeq.Error, match="must be a path"):
        edgeq.study(zoo_detect_path, 3, root / "test", root / "x")
    calls = []

    def stop_at_second(kind, task, done, total, message):
        calls.append(kind)
        return len(calls) < 2

    with pytest.raises(edgeq.Cancelled, match="the same call goes on from there"):
        edgeq.study(zoo_detect_path, root / "calib", root / "test", root / "stopped",
                    progress=stop_at_second, **options)
    assert not (root / "stopped" / "data.json").exists()


def test_progress_draws_tqdm_bars_or_plain_lines(zoo_pose_path, scenes, capsys, monkeypatch):
    tqdm = pytest.importorskip("tqdm")  # Debian's python3-tqdm: installed by scripts/setup.sh
    bars = []
    real = tqdm.tqdm

    class Recording(real):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            bars.append(self)

    monkeypatch.setattr(tqdm, "tqdm", Recording)
    edgeq.calibrate(zoo_pose_path, scenes, n=4, progress=True)
    assert bars and bars[0].desc == "calibrate" and bars[0].total == 4 and bars[0].n == 4
    assert "calibrate" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm fails: plain lines
    edgeq.calibrate(zoo_pose_path, scenes, n=4, progress=True)
    assert "\rcalibrate 4/4\n" in capsys.readouterr().err
    assert len(bars) == 1


def test_ledger_records_reports_and_gates_them(zoo_pose_path, run_cli, tmp_path):
    path = tmp_path / "l.sqlite"
    rep = edgeq.bench(zoo_pose_path, runs=1, warmup=0).to_dict()
    slower = dict(rep, median_ms=2 * rep["median_ms"])
    ledger = edgeq.Ledger(path, write=True)
    assert ledger.record("bench", rep, tag="base", model_file=zoo_pose_path) == 1
    assert ledger.record("bench", json.dumps(slower), tag="next", options={"runs": 1}) == 2
    assert ledger.tags() == ["base", "next"]
    run = ledger.run(2)
    assert run["kind"] == "bench" and run["options"] == {"runs": 1}
    assert run["metrics"]["latency_ms"] == slower["median_ms"]
    assert ledger.runs()[0]["model_sha256"] == edgeq.Model(zoo_pose_path).sha256
    verdict = ledger.check("base", "next")
    assert verdict.regressions == 1
    assert [r.metric for r in verdict.rows if r.regressed] == ["latency_ms"]
    assert ledger.check("base", "next", max_rise="latency_ms=150%").regressions == 0
    cli = run_cli("ledger", "check", path, "--baseline", "base", "--candidate", "next",
                  check=False)
    assert cli.returncode == 1 and cli.stdout == verdict.text
    for args, text in ((["list"], ledger.list_text()),
                       (["list", "--tag", "next", "--kind", "bench"],
                        ledger.list_text("next", "bench")),
                       (["show"], ledger.show_text()), (["show", "@1"], ledger.show_text("@1")),
                       (["show", "base"], ledger.show_text("base")),
                       (["diff", "base", "next"], ledger.diff_text("base", "next"))):
        assert run_cli("ledger", args[0], path, *args[1:]).stdout == text
    with pytest.raises(edgeq.Error, match="unknown metric"):
        ledger.check("base", "next", max_drop="colour=1")
    with pytest.raises(edgeq.Error):
        edgeq.Ledger(tmp_path / "missing.sqlite")


def test_ledger_reads_tags_the_program_stored_as_bytes(zoo_pose_path, run_cli, tmp_path):
    # A tag from a shell in a Latin-1 locale: bytes that are not UTF-8. Python read them with
    # UnicodeDecodeError; now as the library's JSON writer escapes them (surrogateescape), so the
    # str goes back to record() and check() as the same bytes.
    path = tmp_path / "l.sqlite"
    tag = os.fsdecode(b"caf\xe9")  # 'caf\udce9'
    for _ in range(2):
        run_cli("bench", "--model", zoo_pose_path, "--runs", "1", "--warmup", "0", "--ledger",
                path, "--tag", tag)
    ledger = edgeq.Ledger(path)
    assert ledger.tags() == [tag]
    runs = ledger.runs()
    assert [r["tag"] for r in runs] == [tag, tag]
    assert tag in runs[0]["command_line"]
    assert ledger.run(2)["tag"] == tag and ledger.run(2)["metrics"]["latency_ms"] > 0
    assert ledger.check(tag, tag).regressions == 0
    assert ledger.list_text(tag=tag) == run_cli("ledger", "list", path, "--tag", tag).stdout
    assert ledger.show_text(tag) == run_cli("ledger", "show", path, tag).stdout
    writer = edgeq.Ledger(path, write=True)
    assert writer.record("bench", edgeq.bench(zoo_pose_path, runs=1, warmup=0).to_dict(),
                         tag=tag) == 3
    assert writer.tags() == [tag]  # the same bytes as the program's runs


def test_detect_writes_what_run_writes(real_model_path, val_dir, run_cli, tmp_path):
    r = run_cli("run", "--model", real_model_path, "--image", val_dir, "--json",
                tmp_path / "cli.json")
    assert r.returncode == 0, r.stderr
    lines = []
    rep = edgeq.detect(real_model_path, val_dir, json=tmp_path / "py.json", on_frame=lines.append)
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert rep.frames == 4 == len(lines) and rep.detections > 0 and not rep.interrupted
    assert rep.to_dict()["frames"] == 4 and f"4 frame(s), {rep.detections} detection(s)" in rep.summary
    piped = edgeq.detect(real_model_path, val_dir, json=tmp_path / "pipe.json", pipeline=True)
    assert (tmp_path / "pipe.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert piped.frames == 4
    assert piped.to_dict()["pipeline_choice"]["ran"] in ("threads", "serial")
    threads = edgeq.detect(real_model_path, val_dir, json=tmp_path / "threads.json", pipeline=True,
                           pipeline_mode="threads")
    assert (tmp_path / "threads.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert threads.to_dict()["pipeline_mode"] == "threads"
    with pytest.raises(edgeq.Error, match="pipeline_mode: 'fast' is not one of auto, threads"):
        edgeq.detect(real_model_path, val_dir, pipeline=True, pipeline_mode="fast")
    stopped = edgeq.detect(real_model_path, val_dir, json=tmp_path / "two.json",
                           progress=lambda kind, task, done, total, msg: done < 2)
    assert stopped.interrupted and stopped.frames == 2
    assert len(json.loads((tmp_path / "two.json").read_text())) == 2
    with pytest.raises(edgeq.Error, match="queue and drop_late apply to the pipeline only"):
        edgeq.detect(real_model_path, val_dir, queue=2)
    with pytest.raises(edgeq.Error):
        edgeq.detect(real_model_path, tmp_path / "no_such_video.mp4")


def test_study_workers_then_collect_equal_one_process(study_inputs, zoo_detect_path):
    import threading
    root, options = study_inputs
    one = edgeq.study(zoo_detect_path, root / "calib", root / "test", root / "one",
                      progress=False, **options)
    plan = edgeq.study_plan(zoo_detect_path, root / "calib", root / "test", root / "shared",
                            **options)
    assert len(plan["steps"]) == one.steps
    results = [None, None]

    def work(i):
        results[i] = edgeq.study_worker(zoo_detect_path, root / "calib", root / "test",
                                        root / "shared", i, 2, progress=False, **options)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r.computed for r in results) == one.steps - 2 - 1  # all but latency and the cut
    collected = edgeq.study(zoo_detect_path, root / "calib", root / "test", root / "shared",
                            progress=False, **options)
    assert collected.cached == collected.steps - 2  # the two latency steps
    assert without_timing(collected.data()) == without_timing(one.data())
