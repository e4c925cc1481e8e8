"""Session: a model ready to run, images in and detections out, or tensors in and out."""
import os

from . import _edgeq
from ._defaults import DEFAULT, defaults_from
from ._results import Results


class Session:
    """Session(model, exec="simulate", emulate="none", threads=0, conf=0.25, iou=0.7,
    max_det=300)

    model: an edgeq.Model, an edgeq.QuantizedModel, a path, bytes or an onnx.ModelProto.
    exec: "simulate" (the QDQ formula in float) or "int8" (8-bit activations as integer codes;
    with emulate="avx2" as ONNX Runtime's int8 kernels compute without VNNI). threads: intra-op
    threads (0: every core). conf, iou, max_det: the decoding, as ``edgeq run`` has them.
    One session may be shared by threads (calls take turns); for parallel work give each
    thread its own session with threads=1. Calls release the GIL.
    """

    @defaults_from("session")
    def __init__(self, model, exec=DEFAULT, emulate=DEFAULT, threads=DEFAULT, conf=DEFAULT,
                 iou=DEFAULT, max_det=DEFAULT):
        if isinstance(model, _edgeq.QuantizedModel):
            model = model.model
        elif not isinstance(model, _edgeq.Model):
            model = _edgeq.Model(model)
        self.model = model
        self._s = _edgeq._Session(model, exec, emulate, int(threads), float(conf), float(iou),
                                  int(max_det))

    def predict(self, source):
        """Detections for images: a path (an image, a folder of them, a list file) or an HxWx3
        uint8 BGR array, or a list of these. Returns a list of :class:`Results`, one per image,
        in order (a folder's images sorted by path)."""
        if isinstance(source, (str, os.PathLike)) or hasattr(source, "__array_interface__"):
            source = [source]
        images = []
        for item in source:
            if isinstance(item, (str, os.PathLike)):
                images.extend(_edgeq._image_names(item))
            else:
                images.append(item)
        return [Results(*self._s.predict_one(image, i)) for i, image in enumerate(images)]

    __call__ = predict

    def run(self, inputs):
        """Runs the graph: inputs a dict {name: float32 array} (or one array for the only
        input); returns {output name: float32 array}."""
        if not isinstance(inputs, dict):
            names = [i["name"] for i in self.model.inputs]
            if len(names) != 1:
                raise _edgeq.Error(f"run: the model has {len(names)} inputs; pass a dict")
            inputs = {names[0]: inputs}
        return self._s.run(inputs)

    @property
    def notices(self):
        """What the session chose or noticed (e.g. an int8 fallback), as lines."""
        return self._s.notices()
