// Quantized graph inputs and outputs (`quantize --quantize-io`), as NPU toolchains compile a
// model for deployment (Qualcomm's --quantize_io, RKNN and TFLite int8 exports): the graph takes
// the image as uint8 codes and returns each output as uint16 codes, so no float conversion runs
// at either end and a quarter of the bytes cross the bus per frame.
//   in:  the image input becomes uint8 with scale 1/255 and zero point 0, read through a
//        DequantizeLinear: exact for 8-bit pixels, the letterbox's 114 padding included (a
//        pixel p is code p);
//   out: each float output gets a QuantizeLinear to uint16 and keeps its name; its encoding is
//        the output's own when that is already 16-bit, else the 16-bit min / max encoding of its
//        calibrated range (where the placement assembles output0 in float, scores share that
//        step with the pixel coordinates: the doctor reports it).
// The encodings of both ends go to EncodingSet::io (the encodings JSON's "io_encodings").
#pragma once
#include <string>

#include "calib/stats.h"
#include "edgeq/choices.h"
#include "encode/qdq_export.h"

namespace edgeq {

// edgeq::QuantizeIo: edgeq/choices.h (its name: edgeq::name(io)).

// Rewrites the exported model `q` in place (see above); `stats` gives the outputs' ranges.
void quantize_io(QdqModel& q, QuantizeIo io, const Stats& stats);

// The pixel code encoding of a quantized image input: uint8, scale 1/255, zero point 0.
Encoding image_code_encoding();

}  // namespace edgeq
