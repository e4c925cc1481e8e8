"""A live video loop: detections (and keypoints) on every frame of a video file or camera.

    python3 live_video.py MODEL.onnx SOURCE [DRAW_DIR] [EXEC]

SOURCE is a video file or a camera (/dev/video0). Reading, inference and decoding overlap in
three threads; on a camera, frames that inference cannot keep up with are dropped (the oldest
waiting one) instead of piling up. One line per frame; drawn frames go to DRAW_DIR when given.
EXEC "int8" runs a W8A8 model on integer kernels. Ctrl-C stops at the next frame and keeps
what was drawn.
"""
import sys

import edgeq


def main(model, source, draw=None, exec="simulate"):
    live = source.startswith("/dev/video")
    try:
        rep = edgeq.detect(model, source, draw=draw, pipeline=True, drop_late=live, exec=exec,
                           on_frame=print)
    except KeyboardInterrupt:
        print("stopped (Ctrl-C); the frames that finished are written", file=sys.stderr)
        return 130
    print(rep.summary, end="")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:5]))
