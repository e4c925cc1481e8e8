"""Quantize an Ultralytics YOLO11 ONNX export and check it against the float model.

    python3 quantize_and_check.py MODEL.onnx CALIB_IMAGES CHECK_IMAGES OUT.onnx [w8a16|w8a8]

Calibrates on CALIB_IMAGES, quantizes (W8A16 with GPTQ by default), then runs both models on
CHECK_IMAGES (images the quantizer never saw) and prints how many float detections the
quantized model finds again (same class, IoU >= 0.5) and the mean box corner shift.
"""
import sys

import numpy as np

import edgeq


def iou(a, b):
    x1, y1 = np.maximum(a[0], b[:, 0]), np.maximum(a[1], b[:, 1])
    x2, y2 = np.minimum(a[2], b[:, 2]), np.minimum(a[3], b[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = lambda r: (r[..., 2] - r[..., 0]) * (r[..., 3] - r[..., 1])  # noqa: E731
    return inter / (area(a) + area(b) - inter + 1e-9)


def main(model_path, calib, check, out, scheme="w8a16"):
    model = edgeq.Model(model_path)
    stats = edgeq.calibrate(model, calib, n=128)
    q = edgeq.quantize(model, stats, scheme=scheme, images=calib)
    q.save(out)
    for w in q.warnings:
        print("warning:", w)
    matched = total = 0
    shifts = []
    for f, g in zip(edgeq.Session(model).predict(check), edgeq.Session(q).predict(check)):
        total += len(f)
        for box, cls in zip(f.boxes.xyxy, f.boxes.cls):
            same = g.boxes.cls == cls
            if not same.any():
                continue
            overlaps = iou(box, g.boxes.xyxy[same])
            if overlaps.max() >= 0.5:
                matched += 1
                shifts.append(np.abs(g.boxes.xyxy[same][overlaps.argmax()] - box).mean())
    shift = f"{np.mean(shifts):.2f} px" if shifts else "-"
    print(f"{out}: {scheme}, {q.summary['activations_16bit']} values at 16 bit; "
          f"matched {matched} of {total} float detections, mean box shift {shift}")


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    main(*sys.argv[1:6])
