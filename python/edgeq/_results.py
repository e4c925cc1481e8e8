"""Detections of one image, shaped as Ultralytics' Results (boxes / keypoints as numpy)."""


class Boxes:
    """xyxy: (N, 4) float32 image pixels; conf: (N,) float32; cls: (N,) int64."""

    def __init__(self, xyxy, conf, cls):
        self.xyxy, self.conf, self.cls = xyxy, conf, cls

    def __len__(self):
        return len(self.conf)


class Keypoints:
    """xy: (N, K, 2) float32 image pixels; conf: (N, K) float32, the model's visibility score."""

    def __init__(self, xy, conf):
        self.xy, self.conf = xy, conf

    def __len__(self):
        return len(self.xy)


class Results:
    """What Session.predict returns per image: path (the file, or "image <i>" for an array),
    boxes, keypoints (None for a detect model)."""

    def __init__(self, path, xyxy, conf, cls, kxy, kconf):
        self.path = path
        self.boxes = Boxes(xyxy, conf, cls)
        self.keypoints = None if kxy is None else Keypoints(kxy, kconf)

    def __len__(self):
        return len(self.boxes)

    def to_dict(self):
        """The object ``edgeq run --json`` writes for this image."""
        dets = []
        for i in range(len(self.boxes)):
            d = {"box": [float(v) for v in self.boxes.xyxy[i]],
                 "score": float(self.boxes.conf[i]), "class": int(self.boxes.cls[i])}
            if self.keypoints is not None:
                d["keypoints"] = [[float(x), float(y), float(c)] for (x, y), c in
                                  zip(self.keypoints.xy[i], self.keypoints.conf[i])]
            dets.append(d)
        return {"image": self.path, "detections": dets}

    def __repr__(self):
        kind = "pose" if self.keypoints is not None else "detect"
        return f"<edgeq.Results {self.path!r}: {len(self)} {kind} detections>"
