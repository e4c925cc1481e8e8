"""edgeq: quantize YOLO11 models (detect and pose, ONNX) for edge NPUs and CPUs, and check them.

The same library as the ``edgeq`` program (its C++ API in ``include/edgeq/``), for Python::

    import edgeq
    m = edgeq.Model("yolo11n-pose.onnx")
    stats = edgeq.calibrate(m, "calib/", n=128)
    q = edgeq.quantize(m, stats, scheme="w8a16", images="calib/")
    q.save("q.onnx", encodings="q.encodings.json")
    for r in edgeq.Session(q).predict(["a.jpg", frame]):   # frame: HxWx3 uint8, BGR
        r.boxes.xyxy, r.boxes.conf, r.keypoints.xy, r.keypoints.conf

Every failure raises :class:`edgeq.Error` with the library's one-line message. Long calls
release the GIL, report progress (tqdm when installed, else a line on stderr; ``progress=False``
is quiet, a callable gets every event) and stop on Ctrl-C with KeyboardInterrupt; on SIGTERM
they stop the same way, then the signal meets the program's handler (by default it ends the
process).
"""
from ._edgeq import (BenchReport, Cancelled, CompareOutput, CompareReport, DetectReport,
                     DoctorReport, Error, Finding, Ledger, LedgerCheck, LedgerCheckRow, Model, QuantizedModel,
                     SensitivityRow, Stats, StudyResult, StudyWorkResult, __version__)
from ._defaults import DEFAULT as _DEFAULT, defaults_from as _defaults_from
from ._progress import progress_callback as _progress_callback
from ._results import Boxes, Keypoints, Results
from ._session import Session
from . import _edgeq

__all__ = ["BenchReport", "Boxes", "Cancelled", "CompareOutput", "CompareReport", "DetectReport",
           "DoctorReport",
           "Error", "Finding", "Keypoints", "Ledger", "LedgerCheck", "LedgerCheckRow", "Model",
           "QuantizedModel", "Results", "SensitivityRow", "Session", "Stats", "StudyResult",
           "StudyWorkResult",
           "__version__", "bench", "calibrate", "compare", "detect", "doctor", "main", "quantize",
           "study", "study_plan", "study_worker"]


def _model(model):
    if isinstance(model, QuantizedModel):
        return model.model
    return model if isinstance(model, Model) else Model(model)


@_defaults_from("calibrate")
def calibrate(model, images, *, n=_DEFAULT, seed=_DEFAULT, shard=None, threads=_DEFAULT,
              workers=_DEFAULT, histogram_stride=_DEFAULT, progress=True):
    """Calibrates ``model`` on ``images`` and returns its :class:`Stats`.

    model: a :class:`Model` or what ``Model()`` takes. images: a folder, list file, video or
    image path, or a list of paths or HxWx3 uint8 BGR arrays. n: images sampled (seeded by
    ``seed``; clamped to those available, none repeated). shard: ``(i, N)`` or ``"i/N"``, this
    process's share (merge the shards with :meth:`Stats.merge`). threads: in all (0: every
    core); workers: images calibrated at once (0: chosen from threads). The result's
    ``report`` dict says how many images were used, skipped as unreadable, and the time.
    The statistics do not depend on threads or workers.
    """
    index, count = _shard(shard)
    return _edgeq._calibrate(_model(model), images, n, seed, index, count, threads, workers,
                             histogram_stride, _progress_callback(progress))


@_defaults_from("quantize")
def quantize(model, stats, *, scheme=_DEFAULT, range=_DEFAULT, percentile=None, a16=None,
             mixed=None, exclude=None, overrides=None, placement=_DEFAULT, qdq16=_DEFAULT,
             per_tensor_weights=_DEFAULT, symmetric_activations=_DEFAULT, saturation_safe=_DEFAULT,
             reduce_range=_DEFAULT, quantize_io=_DEFAULT, images=None, gptq=None, cle=_DEFAULT,
             bias_correction=_DEFAULT, repair_n=_DEFAULT, seed=_DEFAULT,
             repair_memory_mib=_DEFAULT, auto=_DEFAULT, auto_n=_DEFAULT, threads=_DEFAULT,
             progress=True):
    """Quantizes ``model`` with calibration ``stats``; returns a :class:`QuantizedModel`.

    The options are ``edgeq quantize``'s, with the same defaults: scheme "w8a8" | "w8a16";
    range "minmax" | "percentile" | "entropy" | "mse" (percentile: for range "percentile"
    only, default 99.99; an option that does nothing with the others is refused); a16:
    values kept at 16 bit in W8A8 ("decode" is the default decode tail, "outputs" the graph
    outputs, e.g. a raw head's, "none" for none);
    mixed: more 16-bit values;
    exclude: node names left in float; overrides: a JSON file of per-tensor encodings;
    placement "ort" | "qnn" | "cpu"; qdq16 "auto" | "contrib" | "opset21"; quantize_io "none" |
    "in" | "out" | "both": the image input as uint8 pixel codes and / or each output as uint16
    codes, as NPU deployments compile them (every edgeq call still feeds and reads floats).
    images: calibration-like images for weight repair (GPTQ: ``gptq=None`` follows the scheme,
    on for W8A16; ``cle``; ``bias_correction``; ``repair_n`` images, ``seed``) and for the
    ``auto`` search (a percent budget of 16-bit activations judged on ``auto_n`` images).
    The bytes written by :meth:`QuantizedModel.save` equal ``edgeq quantize``'s.
    """
    options = dict(scheme=scheme, range=range, percentile=percentile, a16=a16, mixed=mixed,
                   exclude=exclude, overrides=overrides, placement=placement, qdq16=qdq16,
                   per_tensor_weights=per_tensor_weights,
                   symmetric_activations=symmetric_activations, saturation_safe=saturation_safe,
                   reduce_range=reduce_range, quantize_io=quantize_io, gptq=gptq, cle=cle,
                   bias_correction=bias_correction,
                   repair_n=repair_n, seed=seed, repair_memory_mib=repair_memory_mib, auto=auto,
                   auto_n=auto_n, threads=threads)
    if a16 is None:
        del options["a16"]  # the scheme's default decode tail
    if percentile is None:
        del options["percentile"]  # 99.99 with range "percentile"
    if not isinstance(stats, Stats):
        raise Error("quantize: stats must be edgeq.Stats (from calibrate() or Stats.load()), "
                    "got " + type(stats).__name__)
    return _edgeq._quantize(_model(model), stats, images, _progress_callback(progress), options)


@_defaults_from("compare")
def compare(reference, test, images, *, labels=None, n=_DEFAULT, conf=_DEFAULT, iou=_DEFAULT,
            map_conf=_DEFAULT, exec=_DEFAULT, emulate=_DEFAULT, threads=_DEFAULT, progress=True):
    """Compares ``test`` (e.g. a :class:`QuantizedModel`) with ``reference`` on ``images`` (a
    folder, recursive, or one image): each output's tensors, detections matched one-to-one, and
    with labels (a YOLO txt folder; by default labels/ beside images/ when present) box and pose
    mAP for both. n: the first n images (0: all); conf / iou: the decoding compared; map_conf:
    detections scored for mAP; exec / emulate: how the test model runs. Returns a
    :class:`CompareReport` (attributes, and ``to_dict()``: what ``edgeq compare --json``
    writes)."""
    return _edgeq._compare(_model(reference), _model(test), images, labels, n, conf, iou,
                           map_conf, exec, emulate, threads, _progress_callback(progress))


@_defaults_from("doctor")
def doctor(model, stats=None, *, target=_DEFAULT, images=None, encodings=None, max_images=_DEFAULT,
           sensitivity=_DEFAULT, top_percent=_DEFAULT, max_info=_DEFAULT, all=_DEFAULT,
           progress=True):
    """What ``model`` (float or QDQ, e.g. a :class:`QuantizedModel`) will get wrong on
    ``target`` ("qnn-htp", "rknn", "cpu", "cpu-avx2", "openvino" or an op table .json): truncated
    encodings and pinned boxes, concat spans, float tails, ops the target cannot run quantized,
    int8 pairs that saturate. stats: the float model's :class:`Stats` (without them, ``images``
    calibrate the model's float view on ``max_images``); encodings: an AIMET JSON to judge
    instead of the model's Q/DQ; sensitivity: rank every value on this many images and propose
    a mixed set of ``top_percent``. ``text`` groups the findings by kind (counts, each group's
    costliest few; ``hidden``: how many it leaves out); all: ``text`` lists every finding (info
    ones capped at ``max_info``). Returns a :class:`DoctorReport` (``findings``, ``text``,
    ``to_dict()``)."""
    if stats is not None and not isinstance(stats, Stats):
        raise Error("doctor: stats must be edgeq.Stats, got " + type(stats).__name__)
    return _edgeq._doctor(_model(model), stats, target, images, encodings, max_images,
                          sensitivity, top_percent, max_info, all, _progress_callback(progress))


@_defaults_from("bench")
def bench(model, *, runs=_DEFAULT, warmup=_DEFAULT, workers=_DEFAULT, exec=_DEFAULT,
          emulate=_DEFAULT, threads=_DEFAULT, profile=_DEFAULT):
    """Latency and memory of ``model`` (a :class:`Model`, :class:`QuantizedModel` or what
    ``Model()`` takes) on edgeq's executor: ``warmup`` untimed runs, then ``runs`` timed runs on
    deterministic random inputs. workers > 1: that many executors at once (threads / workers
    threads each) for throughput. profile: time each op type and step. Returns a
    :class:`BenchReport` (attributes, and ``to_dict()``: what ``edgeq bench --json`` writes)."""
    return _edgeq._bench(_model(model), runs, warmup, workers, exec, emulate, threads, profile)


@_defaults_from("detect")
def detect(model, source, *, json=None, draw=None, pipeline=_DEFAULT, pipeline_mode=_DEFAULT,
           queue=_DEFAULT, drop_late=_DEFAULT, exec=_DEFAULT, emulate=_DEFAULT, threads=_DEFAULT,
           conf=_DEFAULT, iou=_DEFAULT, max_det=_DEFAULT, on_frame=None, progress=False):
    """Detects (and for pose models finds keypoints) in ``source``: an image, a folder of images
    or a video file (``edgeq run``). json: write the detections (one object for an image, else
    an array); draw: drawn images (a file for one image, else a folder); pipeline: overlap
    reading, inference and decoding in three threads (queue frames each; drop_late: drop the
    oldest waiting frame when inference falls behind a live source); pipeline_mode "auto"
    measures the first 4 frames serially, then runs in windows, serially or overlapped, keeping
    whichever measures faster and trying the other now and then (the report's
    ``pipeline_choice`` says what it predicted, ``pipeline_switches`` each change of mode and
    ``pipeline_frames`` the frames each mode ran), "threads" always overlaps. on_frame: a callable
    given one line per finished frame. Returns a :class:`DetectReport`. Ctrl-C stops at the next
    frame, writes what finished and raises KeyboardInterrupt; a progress callable answering
    False stops the same way without an exception (the report says ``interrupted``). For frames
    of your own, use :meth:`Session.predict`."""
    options = dict(json=json, draw=draw, pipeline=pipeline, pipeline_mode=pipeline_mode,
                   queue=queue, drop_late=drop_late,
                   exec=exec, emulate=emulate, threads=threads, conf=conf, iou=iou,
                   max_det=max_det)
    return _edgeq._detect(_model(model), source, options, on_frame, _progress_callback(progress))


def _study_config(models, images, test, out, options):
    import json
    import os

    def path(p, what):
        if not isinstance(p, (str, bytes, os.PathLike)):
            raise Error(f"study: {what} must be a path, got {type(p).__name__}")
        return os.fsdecode(p)

    if isinstance(models, (str, bytes, os.PathLike)):
        models = [models]
    config = dict(options)
    for key in ("labels", "probe_labels", "val"):
        if config.get(key) is not None:
            config[key] = path(config[key], key)
    config.update(models=[path(m, "models") for m in models], images=path(images, "images"),
                  test=path(test, "test"), out=path(out, "out"))
    return json.dumps(config)


def study(models, images, test, out, *, progress=True, **options):
    """The n-vs-s study (``edgeq study``): for every model (ONNX paths) x arm x scheme, cut,
    calibrate on ``images``, quantize, compare on ``test`` against the arm's FP32, doctor and
    latency, each step cached in ``out``/cache; writes ``out``/data.json and ``out``/index.html
    and returns a :class:`StudyResult`. options: the study configuration's other keys, with the
    library's defaults: schemes (["w8a16", "w8a8"]; "w8a8-autoP" searches with P % at 16 bit),
    arms (["A", "B", "C"]), labels, probe_labels, val, target ("qnn-htp"), placement ("auto"),
    range ("minmax"), calib_n (128), seed, histogram_stride, test_n, auto_n, bench_runs,
    bench_warmup, threads, thumbnails, probe_folds, probe_l2, weight_repair. An unknown key or a
    wrong type raises :class:`Error`; Ctrl-C stops before the next step, keeping the finished
    steps in the cache (the same call goes on from there). After :func:`study_worker` processes
    on the same ``out``, this is the collecting run: it measures the latency steps and writes
    the report."""
    return _edgeq._study(_study_config(models, images, test, out, options),
                         _progress_callback(progress))


def study_worker(models, images, test, out, index, count, *, lease_s=30, progress=True,
                 **options):
    """Worker ``index`` of ``count`` of the study (``edgeq study --worker index/count``): shares
    ``out``/cache with the other workers (a POSIX file system with atomic rename), claims and
    computes every step no live worker holds, and returns a :class:`StudyWorkResult` when every
    step but the latency ones is cached; then :func:`study` collects. A claim not renewed for
    ``lease_s`` seconds (its worker died) is taken over."""
    return _edgeq._study_worker(_study_config(models, images, test, out, options), index, count,
                                lease_s, _progress_callback(progress))


def study_plan(models, images, test, out, **options):
    """The study's steps as a dict (``edgeq study --plan``): id, kind, what, cache key, the ids
    of the steps each reads, cached or not. Computes only the cuts."""
    import json
    return json.loads(_edgeq._study_plan(_study_config(models, images, test, out, options)))


def main(argv=None):
    """Runs the edgeq command line in this process (``python3 -m edgeq ...``); the exit status."""
    import sys
    return _edgeq._cli_main(["edgeq"] + list(sys.argv[1:] if argv is None else argv))


def _shard(shard):
    if shard is None:
        return 0, 1
    if isinstance(shard, str):
        parts = shard.split("/")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise Error(f"shard: expected 'i/N', got {shard!r}")
        return int(parts[0]), int(parts[1])
    index, count = shard
    return int(index), int(count)
