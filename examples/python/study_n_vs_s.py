"""The n-vs-s study from Python: which model and arm survive quantization, and at what speed.

    python3 study_n_vs_s.py N.onnx S.onnx CALIB_IMAGES TEST_IMAGES OUT [SCHEMES [ARMS]]

For each model x arm (A: backbone taps, B: neck, C: the whole detector) x scheme (default
"w8a16,w8a8"; "w8a8-auto10" adds the mixed-precision search) it cuts, calibrates on
CALIB_IMAGES, quantizes, compares with the arm's FP32 on TEST_IMAGES (images the calibration
never saw), runs doctor and times both. Every step is cached in OUT/cache, so a second run (or
one with another scheme) computes only what is new; OUT/index.html is the report.
"""
import sys

import edgeq


def main(n_model, s_model, calib, test, out, schemes="w8a16,w8a8", arms="A,B,C"):
    res = edgeq.study([n_model, s_model], calib, test, out, schemes=schemes, arms=arms,
                      calib_n=64, bench_runs=3)
    print(f"{res.runs} runs, {res.steps} steps ({res.cached} cached) in {res.seconds:.0f} s")
    print(f"{'model':<16} {'arm':<3} {'scheme':<12} {'match':>6} {'box px':>7} "
          f"{'rel L2':>8} {'fp32 ms':>8} {'quant ms':>8}")
    for r in res.data()["runs"]:
        m = r["metrics"]
        det = m.get("detections", {})
        rel_l2 = max(o["rel_l2"] for o in m["outputs"])
        match = f"{det['match_rate']:.1%}" if det.get("match_rate") is not None else "-"
        box = f"{det['box_px_mean']:.2f}" if "box_px_mean" in det else "-"
        print(f"{r['model']:<16} {r['arm']:<3} {r['scheme']:<12} {match:>6} {box:>7} "
              f"{rel_l2:>8.2e} {r['latency_ms']['fp32']:>8.1f} {r['latency_ms']['quantized']:>8.1f}")
    print(f"report: {res.out}/index.html")


if __name__ == "__main__":
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    main(*sys.argv[1:8])
