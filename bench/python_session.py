"""Python binding overhead and two-thread throughput (issue 28's benchmarks; not a test).

    /usr/bin/python3 bench/python_session.py [ROUNDS]

On the zoo yolo11n-pose at imgsz 160, with one intra-op thread, alternating ROUNDS (default 3):
  overhead: Session.run from Python against the C++ executor's own loop (`edgeq bench`, run in
    this process), medians of per-call times; the ratio of the medians of the rounds' medians;
  throughput: two Python threads, each with its own Session(threads=1), against one thread,
    predicting the same frame.
"""
import json
import os
import statistics
import sys
import tempfile
import threading
import time

os.environ.setdefault("GOMP_SPINCOUNT", "5000")  # as the edgeq program runs (before libgomp loads)
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "build", "python"))
import numpy as np  # noqa: E402

import edgeq  # noqa: E402

RUNS = 300


def cpp_median_ms(model, tmp):
    out = os.path.join(tmp, "bench.json")
    assert edgeq.main(["bench", "--model", model, "--threads", "1", "--runs", str(RUNS),
                       "--warmup", "20", "--json", out]) == 0
    with open(out) as f:
        return json.load(f)["median_ms"]


def py_median_ms(session, x):
    for _ in range(20):
        session.run(x)
    times = []
    for _ in range(RUNS):
        t = time.perf_counter()
        session.run(x)
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def throughput(model, frame, threads, calls):
    sessions = [edgeq.Session(model, threads=1) for _ in range(threads)]
    for s in sessions:
        s.predict(frame)
    workers = [threading.Thread(target=lambda s=s: [s.predict(frame) for _ in range(calls)])
               for s in sessions]
    t = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return threads * calls / (time.perf_counter() - t)


def main(rounds):
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "yolo11n-pose-160.onnx")
        assert edgeq.main(["zoo", "yolo11n-pose", "-o", model, "--imgsz", "160"]) == 0
        x = np.random.default_rng(0).random((1, 3, 160, 160), dtype=np.float32)
        frame = np.random.default_rng(1).integers(0, 255, (480, 640, 3), dtype=np.uint8)
        session = edgeq.Session(model, threads=1)
        cpp, py, one, two = [], [], [], []
        for r in range(rounds):
            cpp.append(cpp_median_ms(model, tmp))
            py.append(py_median_ms(session, x))
            one.append(throughput(model, frame, 1, 200))
            two.append(throughput(model, frame, 2, 200))
            print(f"round {r + 1}: C++ {cpp[-1]:.3f} ms, Python {py[-1]:.3f} ms; "
                  f"1 thread {one[-1]:.1f}/s, 2 threads {two[-1]:.1f}/s", flush=True)
        m = statistics.median
        print(f"overhead: Python {m(py):.3f} ms vs C++ {m(cpp):.3f} ms per call: "
              f"{(m(py) / m(cpp) - 1) * 100:+.1f} %")
        print(f"throughput: 2 threads {m(two):.1f}/s vs 1 thread {m(one):.1f}/s: "
              f"{m(two) / m(one):.2f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
