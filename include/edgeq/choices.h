// Every option that takes one of a few named values is an enum class here, with its names in one
// table: parse<E>() and name() are the one pair the command line, Python, the JSON readers (the
// study's config, target tables) and the messages share. A name is matched without regard to
// case; name() gives it in lower case (Arm: upper case), as every report writes it.
//
//   edgeq::parse<edgeq::Scheme>("w8a16")  -> Scheme::kW8A16
//   edgeq::parse<edgeq::Scheme>("w8a4")   -> throws "scheme: 'w8a4' is not one of w8a8, w8a16"
//   edgeq::name(Scheme::kW8A16)           -> "w8a16"
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "edgeq/error.h"

namespace edgeq {

// Quantization scheme: 8-bit weights with 8-bit or 16-bit activations.
enum class Scheme { kW8A8, kW8A16 };
// How an activation's range is chosen from its statistics.
enum class RangeMethod { kMinMax, kPercentile, kEntropy, kMse };
// Where Q/DQ pairs go: as ONNX Runtime's quantizer places them, as Qualcomm's QNN wants, or as
// an int8 CPU runtime runs best.
enum class Placement { kOrt, kQnn, kCpu };
// How 16-bit Q/DQ are written: auto (opset 21 when the model's opset allows), the Microsoft
// contrib ops, or opset 21.
enum class Qdq16 { kAuto, kContrib, kOpset21 };
// Graph inputs / outputs as integer codes (edgeq/quantize.h).
enum class QuantizeIo { kNone, kIn, kOut, kBoth };
// How a QDQ model runs: the QDQ formula in float, or 8-bit activations as codes with int8
// kernels.
enum class ExecMode { kSimulate, kInt8 };
// How an int8 run emulates another CPU's arithmetic.
enum class Int8Emulation {
  kNone,  // exact integer sums (the QDQ formula's)
  kAvx2,  // ONNX Runtime's int8 kernels on x86 without VNNI: their pairs saturate to int16
};
// How a frame source is run: auto (threads only where they prove faster) or always threads.
enum class PipelineMode { kAuto, kThreads };
// A doctor finding's severity, in increasing order.
enum class Severity { kInfo, kWarning, kError };
// The arms a model is cut into (edgeq/model_tools.h).
enum class Arm { kA, kB, kC, kHead };

// The names of E's values in enum order, and the option they are given to (for messages).
template <class E>
struct Choice;

template <>
struct Choice<Scheme> {
  static constexpr std::string_view option = "scheme";
  static constexpr std::array<std::string_view, 2> names{"w8a8", "w8a16"};
};
template <>
struct Choice<RangeMethod> {
  static constexpr std::string_view option = "range";
  static constexpr std::array<std::string_view, 4> names{"minmax", "percentile", "entropy", "mse"};
};
template <>
struct Choice<Placement> {
  static constexpr std::string_view option = "placement";
  static constexpr std::array<std::string_view, 3> names{"ort", "qnn", "cpu"};
};
template <>
struct Choice<Qdq16> {
  static constexpr std::string_view option = "qdq16";
  static constexpr std::array<std::string_view, 3> names{"auto", "contrib", "opset21"};
};
template <>
struct Choice<QuantizeIo> {
  static constexpr std::string_view option = "quantize_io";
  static constexpr std::array<std::string_view, 4> names{"none", "in", "out", "both"};
};
template <>
struct Choice<ExecMode> {
  static constexpr std::string_view option = "exec";
  static constexpr std::array<std::string_view, 2> names{"simulate", "int8"};
};
template <>
struct Choice<Int8Emulation> {
  static constexpr std::string_view option = "emulate";
  static constexpr std::array<std::string_view, 2> names{"none", "avx2"};
};
template <>
struct Choice<PipelineMode> {
  static constexpr std::string_view option = "pipeline_mode";
  static constexpr std::array<std::string_view, 2> names{"auto", "threads"};
};
template <>
struct Choice<Severity> {
  static constexpr std::string_view option = "severity";
  static constexpr std::array<std::string_view, 3> names{"info", "warning", "error"};
};
template <>
struct Choice<Arm> {
  static constexpr std::string_view option = "arm";
  static constexpr std::array<std::string_view, 4> names{"A", "B", "C", "head"};
};

// The value's name ("w8a16"); an out-of-range value (a cast) throws.
template <class E>
std::string_view name(E value) {
  const auto i = static_cast<size_t>(value);
  if (i >= Choice<E>::names.size())
    fail(Choice<E>::option, ": no value number ", i, " (", Choice<E>::names.size(), " values)");
  return Choice<E>::names[i];
}

// All names, in enum order: {"w8a8", "w8a16"}.
template <class E>
std::vector<std::string> choice_names() {
  return {Choice<E>::names.begin(), Choice<E>::names.end()};
}

// "w8a8, w8a16": the accepted values, for messages and help.
template <class E>
std::string choices_text() {
  std::string s;
  for (std::string_view n : Choice<E>::names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

namespace detail {
inline bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}
}  // namespace detail

// The value named `text` (any case). Otherwise throws edgeq::Error, one line naming the option
// and the accepted values: "<option>: 'x' is not one of a, b"; `option` overrides the option's
// name, e.g. "study config: scheme".
template <class E>
E parse(std::string_view text, std::string_view option = Choice<E>::option) {
  for (size_t i = 0; i < Choice<E>::names.size(); ++i)
    if (detail::same_name(text, Choice<E>::names[i])) return static_cast<E>(i);
  fail(option, ": '", text, "' is not one of ", choices_text<E>());
}

}  // namespace edgeq
