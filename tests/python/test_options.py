"""Option ranges and options out of context through the Python API (issue 46): the library's
checks, one line naming the option and what it accepts."""
import pytest

import edgeq


@pytest.mark.parametrize("threads", [100000, 32768, -1])
def test_session_threads_are_bounded(zoo_pose_path, threads):
    # Session(threads=100000) segfaulted; 32768 failed in libgomp.
    with pytest.raises(edgeq.Error, match=rf"threads: {threads} is outside \[0, \d+\]"):
        edgeq.Session(zoo_pose_path, threads=threads)


def test_bench_workers_are_bounded(zoo_pose_path):
    with pytest.raises(edgeq.Error, match=r"workers: 100000 is outside \[1, \d+\]"):
        edgeq.bench(zoo_pose_path, runs=1, workers=100000)


def test_percentile_without_range_percentile_is_refused(real_model, real_stats):
    with pytest.raises(edgeq.Error, match="percentile does nothing without range percentile"):
        edgeq.quantize(real_model, real_stats, percentile=99.9, progress=False)
    with pytest.raises(edgeq.Error, match="auto_n does nothing without auto"):
        edgeq.quantize(real_model, real_stats, auto_n=4, progress=False)


def test_a_bad_range_is_refused_before_weight_repair(real_model, real_stats, train_dir):
    # A range that names no scheme used to pass validate() and fail in the quantizer, after
    # weight repair (GPTQ under w8a16 with images) had run; the progress callback sees no task.
    tasks = []

    def progress(*event):
        tasks.append(event)
        return True

    with pytest.raises(edgeq.Error, match=r"range: unknown range scheme 'mse2'"):
        edgeq.quantize(real_model, real_stats, scheme="w8a16", range="mse2", images=train_dir,
                       progress=progress)
    assert tasks == []
