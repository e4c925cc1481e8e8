// Quantization: an FP32 model and its calibration statistics -> a QDQ ONNX model (and the
// encodings a vendor toolchain reads). The whole recipe lives here, in this order: the scheme's
// configuration, the placement of Q/DQ, values kept at 16 bit (the YOLO head's decode tail by
// default under W8A8, a mixed set, the --auto style search), weight repair (cross-layer
// equalization, GPTQ, bias correction), encodings, export, and the decode-tail check.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "edgeq/calibrate.h"
#include "edgeq/choices.h"
#include "edgeq/images.h"
#include "edgeq/model.h"
#include "edgeq/progress.h"

namespace edgeq {

// Weight repair: runs only when QuantizeOptions::images is given.
struct RepairOptions {
  enum class Gptq { kSchemeDefault, kOn, kOff };
  Gptq gptq = Gptq::kSchemeDefault;  // the scheme default: on for w8a16, off for w8a8
  bool cle = false;                  // cross-layer equalization of Conv -> depthwise Conv pairs
  bool bias_correction = false;      // Conv biases absorb the mean shift weight rounding causes
  size_t n = 128;                    // images sampled (seeded, as calibrate() samples)
  uint64_t seed = 0;
  size_t memory_mib = 1024;  // GPTQ Hessians held at once (more convs per pass over the images)
};

// The mixed-precision search: which activation values to keep at 16 bit under W8A8.
struct AutoSearchOptions {
  double percent = 0;  // budget: at most this percent of the activation values; 0: no search
  size_t n = 16;       // validation images used (a seeded sample of QuantizeOptions::images)
};

struct QuantizeOptions {
  // The names (edgeq/choices.h): parse<Scheme>("w8a16"), name(o.scheme).
  Scheme scheme = Scheme::kW8A8;             // w8a8 | w8a16
  RangeMethod range = RangeMethod::kMinMax;  // minmax | percentile | entropy | mse
  // For range kPercentile (only): in [50, 100]; 0: kDefaultPercentile.
  double percentile = 0;
  static constexpr double kDefaultPercentile = 99.99;
  // Values kept at 16 bit: value names, "decode" (the YOLO head's pixel-space decode tail),
  // "outputs" (the graph outputs, e.g. a raw head's: cut_model, arm head) or "none" alone. Empty:
  // w8a8 keeps the decode tail at 16 bit when the model has one. Unless "none", the nodes that
  // assemble the outputs stay float where the placement allows.
  std::vector<std::string> a16;
  std::vector<std::string> mixed;    // more 16-bit values (a mixed set, e.g. a search's result)
  std::vector<std::string> exclude;  // node names left in float
  std::string overrides_file;        // JSON {tensor: {bitwidth, min, max, symmetric} | "float"}
  Placement placement = Placement::kOrt;  // ort | qnn | cpu
  Qdq16 qdq16 = Qdq16::kAuto;             // how 16-bit Q/DQ are written: auto | contrib | opset21
  bool per_tensor_weights = false;
  bool symmetric_activations = false;
  // w8a8 only, one of the two: Conv weight codes no int16 pair of products of x86 int8 kernels
  // without VNNI can overflow; or 7-bit weight codes everywhere (ONNX Runtime's reduce_range).
  bool saturation_safe = false, reduce_range = false;
  // Graph inputs / outputs as integer codes, as NPU deployments compile them: none | in (the
  // image as uint8 pixels: scale 1/255, zero point 0) | out (each output as uint16 codes of a
  // 16-bit encoding) | both. Every edgeq command runs such a model with float images in and
  // float outputs out (the codes quantized and dequantized at the ends).
  QuantizeIo quantize_io = QuantizeIo::kNone;
  // Images for weight repair (sampled as calibrate() does) and the search's evaluations: a
  // validation split the statistics did not see. Without them neither runs.
  std::shared_ptr<const ImageSource> images;
  RepairOptions repair;
  AutoSearchOptions search;
  int threads = 0;  // weight repair and the search (0: all cores); results do not depend on it
  ProgressCallback progress;
};

struct QuantizeSummary {
  size_t activations_8bit = 0, activations_16bit = 0, activations_other = 0;
  size_t activations_float = 0;
  size_t weights_per_channel = 0, params_per_tensor = 0;
  size_t decode_tail_values = 0, decode_tail_8bit = 0;
  int64_t saturation_safe_codes = 0, saturation_safe_convs = 0;
  std::string range;                      // as applied, e.g. "percentile:99.99"
  Placement placement = Placement::kOrt;  // as applied
  // With quantize_io: each graph input / output that carries codes, e.g.
  // "input images: u8 [0, 1] scale 0.00392 zp 0".
  std::vector<std::string> io;
};

// What weight repair did (all zero when it did not run).
struct RepairReport {
  bool ran = false;
  std::string equalization;  // cross-layer equalization: what was found ("" without cle)
  struct Pair {
    std::string first, second;
    double spread_before = 0, spread_after = 0;
  };
  std::vector<Pair> equalized;
  size_t images = 0;
  int passes = 0;
  bool gptq = false, bias_correction = false;
  int convs = 0;
  int64_t rows = 0, rows_exact = 0, codes_changed = 0;
  double max_bias_shift = 0;
};

// How far a quantized model's detections are from FP32's on the validation images.
struct DetectionError {
  double loss = 0;                // the four below, each in its default unit, summed
  double box_px = 0, kpt_px = 0;  // mean box corner / keypoint distance, pixels
  double score = 0;               // mean score change of confident anchors
  double flipped = 0;             // share of anchors crossing the confidence threshold
};

// What the search chose (empty without one).
struct AutoSearchReport {
  bool ran = false;
  double percent = 0;
  size_t images = 0;
  std::vector<std::string> chosen;  // the values it added at 16 bit (a mixed set)
  size_t values16 = 0, values = 0;  // values at 16 bit with the set, values with an encoding
  double base_loss = 0, loss = 0;   // the search's objective before and after
  DetectionError base, result;
  std::string log_json;  // every evaluation, as JSON (format "edgeq-auto-log")
};

namespace detail {
struct ApiAccess;
struct QuantizedModelImpl;
}  // namespace detail

class QuantizedModel {
 public:
  // Atomic writes. Encodings in AIMET / QNN form, version "1.0.0" or "0.6.1".
  void save(const std::string& path) const;
  void save_encodings(const std::string& path, const std::string& version = "1.0.0") const;
  std::string bytes() const;  // the serialized QDQ ONNX model
  std::string encodings_json(const std::string& version = "1.0.0") const;

  const QuantizeSummary& summary() const;
  const RepairReport& repair() const;
  const AutoSearchReport& search() const;
  // Each a line for the user: e.g. pixel-space decode values left at 8 bit.
  const std::vector<std::string>& warnings() const;

 private:
  friend struct detail::ApiAccess;  // the library's own code reaches the handle's state
  using Impl = detail::QuantizedModelImpl;
  explicit QuantizedModel(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

// Throws edgeq::Error naming the first option that is out of range (an enum value outside its
// names, e.g. a cast, included), contradicts another, or is set where it does nothing (percentile
// without range percentile, search.n without a search,
// repair.n / seed / memory_mib without weight repair); quantize() calls it first; a front end may
// call it before reading any file.
void validate(const QuantizeOptions& options);

// Checks every option before any work (errors name the option), refuses statistics of another
// model, then runs the recipe. Nothing is written: save what it returns.
QuantizedModel quantize(const Model& model, const CalibrationStats& stats,
                        const QuantizeOptions& options);

}  // namespace edgeq
