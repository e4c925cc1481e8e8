// Calibrate and quantize a YOLO11 model with edgeq's C++ API, then print what was done.
//   quantize_yolo MODEL.onnx CALIBRATION_IMAGES OUT.onnx [w8a8|w8a16]
#include <edgeq/edgeq.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s MODEL.onnx IMAGES OUT.onnx [w8a8|w8a16]\n", argv[0]);
    return 2;
  }
  try {
    const edgeq::Model model = edgeq::Model::load(argv[1]);
    std::printf("%s: %zu input(s), %zu output(s)\n", model.name().c_str(), model.inputs().size(),
                model.outputs().size());

    edgeq::CalibrateOptions calib;
    calib.n = 8;
    calib.progress = [](const edgeq::ProgressEvent& e) {
      if (e.kind == edgeq::ProgressEvent::Kind::kStep && e.done > 0)
        std::fprintf(stderr, "\r%s %zu/%zu", e.task.c_str(), e.done, e.total);
      return true;  // false would cancel (edgeq::Cancelled)
    };
    const edgeq::Calibration cal =
        edgeq::calibrate(model, edgeq::ImageSource::from_path(argv[2]), calib);
    std::fprintf(stderr, "\n");

    edgeq::QuantizeOptions q;
    q.scheme = argc > 4 ? edgeq::parse<edgeq::Scheme>(argv[4]) : edgeq::Scheme::kW8A8;
    const edgeq::QuantizedModel quantized = edgeq::quantize(model, cal.stats, q);
    quantized.save(argv[3]);

    const edgeq::QuantizeSummary& s = quantized.summary();
    std::printf("calibrated %zu images; %s: %zu activations at 8 bit, %zu at 16 bit, %zu float\n",
                cal.used, std::string(edgeq::name(q.scheme)).c_str(), s.activations_8bit,
                s.activations_16bit, s.activations_float);
    for (const std::string& w : quantized.warnings()) std::printf("warning: %s\n", w.c_str());
    std::printf("wrote %s\n", argv[3]);
  } catch (const edgeq::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
