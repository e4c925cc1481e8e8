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

    with pytest.raises(edgeq.Error,
                       match=r"range: 'mse2' is not one of minmax, percentile, entropy, mse"):
        edgeq.quantize(real_model, real_stats, scheme="w8a16", range="mse2", images=train_dir,
                       progress=progress)
    assert tasks == []


BAD_CHOICES = [
    ("scheme", "w4a8", "w8a8, w8a16"),
    ("range", "kl", "minmax, percentile, entropy, mse"),
    ("placement", "gpu", "ort, qnn, cpu"),
    ("qdq16", "opset20", "auto, contrib, opset21"),
    ("quantize_io", "inputs", "none, in, out, both"),
]


@pytest.mark.parametrize("images", ["missing", "unreadable"])
@pytest.mark.parametrize("option,bad,accepted", BAD_CHOICES)
def test_a_bad_choice_is_refused_before_any_image_is_read(real_model, real_stats, tmp_path,
                                                          option, bad, accepted, images):
    # One line naming the option and every accepted value, not the images' error: the images
    # (weight repair's, under w8a16) are a folder that does not exist or holds no image.
    folder = tmp_path / "images"
    if images == "unreadable":
        folder.mkdir()
        (folder / "broken.jpg").write_bytes(b"not a jpeg")
    tasks = []

    def progress(*event):
        tasks.append(event)
        return True

    options = {"scheme": "w8a16", option: bad}
    with pytest.raises(edgeq.Error) as e:
        edgeq.quantize(real_model, real_stats, images=str(folder), progress=progress, **options)
    assert str(e.value) == f"{option}: '{bad}' is not one of {accepted}"
    assert tasks == []


@pytest.mark.parametrize("option", [c[0] for c in BAD_CHOICES])
def test_a_choice_is_a_str(real_model, real_stats, option):
    with pytest.raises(edgeq.Error, match=rf"quantize: option '{option}' expects a str, got int"):
        edgeq.quantize(real_model, real_stats, progress=False, **{option: 8})


def test_keyword_defaults_come_from_the_cpp_options():
    # One home for every default: the Python functions' keyword defaults are the default-
    # constructed C++ options' (edgeq._edgeq._defaults()), filled in at import.
    import inspect
    cpp = edgeq._edgeq._defaults()
    assert set(cpp) == {"calibrate", "quantize", "compare", "doctor", "bench", "detect", "session"}
    for name, defaults in cpp.items():
        fn = edgeq.Session if name == "session" else getattr(edgeq, name)
        params = inspect.signature(fn).parameters
        for key, value in defaults.items():
            assert params[key].default == value, (name, key)
            assert type(params[key].default) is type(value), (name, key)
        assert "DEFAULT" not in str(inspect.signature(fn)), name
    assert cpp["compare"]["map_conf"] == 0.001  # a float option in its decimal form


def test_a_python_default_the_cpp_options_lack_is_refused_at_import():
    with pytest.raises(ImportError, match="do not match the C\\+\\+ options"):
        @edgeq._defaults_from("bench")
        def bench(model, *, runs=edgeq._DEFAULT, colour=edgeq._DEFAULT):
            pass
    with pytest.raises(ImportError, match="do not match the C\\+\\+ options"):
        @edgeq._defaults_from("bench")
        def bench2(model, *, runs=20):  # a literal where the C++ options have the default
            pass


# The run vocabulary (exec, emulate, pipeline_mode): a bad name, or emulate without exec int8, is
# refused in one line naming the option and the accepted values, before any image is read (the
# images named here do not exist: the message is the option's, not theirs).
def test_run_choices_are_refused_before_any_image(real_model_path, tmp_path):
    none = str(tmp_path / "no_such_images")
    exec_msg = r"^exec: 'fast' is not one of simulate, int8$"
    emulate_msg = r"^emulate: 'avx3' is not one of none, avx2$"
    needs_int8 = r"^emulate avx2 needs exec int8 \(simulate is the exact QDQ formula\)$"
    with pytest.raises(edgeq.Error, match=exec_msg):
        edgeq.compare(real_model_path, real_model_path, none, exec="fast", progress=False)
    with pytest.raises(edgeq.Error, match=emulate_msg):
        edgeq.compare(real_model_path, real_model_path, none, emulate="avx3", progress=False)
    with pytest.raises(edgeq.Error, match=needs_int8):
        edgeq.compare(real_model_path, real_model_path, none, emulate="avx2", progress=False)
    with pytest.raises(edgeq.Error, match=exec_msg):
        edgeq.detect(real_model_path, none, exec="fast")
    with pytest.raises(edgeq.Error, match=emulate_msg):
        edgeq.detect(real_model_path, none, emulate="avx3")
    with pytest.raises(edgeq.Error, match=needs_int8):
        edgeq.detect(real_model_path, none, emulate="avx2")
    with pytest.raises(edgeq.Error, match=r"^pipeline_mode: 'fast' is not one of auto, threads$"):
        edgeq.detect(real_model_path, none, pipeline=True, pipeline_mode="fast")
    with pytest.raises(edgeq.Error, match=exec_msg):
        edgeq.Session(real_model_path, exec="fast")
    with pytest.raises(edgeq.Error, match=needs_int8):
        edgeq.Session(real_model_path, emulate="avx2")
    with pytest.raises(edgeq.Error, match=emulate_msg):
        edgeq.bench(real_model_path, runs=1, emulate="avx3")
    # The source itself, with good options: its own error (so the ones above came first).
    with pytest.raises(edgeq.Error, match="no_such_images"):
        edgeq.detect(real_model_path, none)
    # Any case, as every front end; the defaults and the reports give the names in lower case.
    rep = edgeq.bench(real_model_path, runs=1, warmup=0, exec="SIMULATE", threads=1)
    assert rep.exec == "simulate" and rep.emulate == "none"
    assert rep.to_dict()["exec"] == "simulate" and rep.to_dict()["emulate"] == "none"
