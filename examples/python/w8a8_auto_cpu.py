"""W8A8 for a CPU target: 8-bit activations with a searched set of 16-bit ones.

    python3 w8a8_auto_cpu.py MODEL.onnx CALIB_IMAGES SEARCH_IMAGES OUT.onnx [PERCENT [N]]

Calibrates, then quantizes W8A8 with the "cpu" placement, weights safe from int8 saturation on
CPUs without VNNI, and `auto`: a greedy search that keeps at most PERCENT (default 10) of the
activations at 16 bit where they cut the detection error most, judged on N (default 16) of
SEARCH_IMAGES.
PERCENT 0 skips the search. Runs the result on int8 kernels and prints what the search chose.
"""
import sys

import edgeq


def main(model_path, calib, search_images, out, percent="10", n="16"):
    model = edgeq.Model(model_path)
    stats = edgeq.calibrate(model, calib, n=128)
    q = edgeq.quantize(model, stats, scheme="w8a8", placement="cpu", saturation_safe=True,
                       images=search_images, auto=float(percent), auto_n=int(n))
    q.save(out, encodings=out.replace(".onnx", ".encodings.json"))
    s = q.search
    print(f"search: {len(s['chosen'])} values to 16 bit ({s['values16']} of {s['values']}), "
          f"loss {s['base']['loss']:.4f} -> {s['result']['loss']:.4f}")
    results = edgeq.Session(q, exec="int8").predict(search_images)
    print(f"int8 run: {sum(len(r) for r in results)} detections on {len(results)} images")


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    main(*sys.argv[1:7])
