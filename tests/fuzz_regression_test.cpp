// Inputs the fuzz harnesses (fuzz/) found, each refused now with one clear error line. The files
// in tests/data/fuzz are the crashing inputs as libFuzzer saved them (<harness>-<hash prefix>).
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "calib/stats.h"
#include "core/encoding.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "core/npy.h"
#include "encode/encodings_json.h"
#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "test_util.h"
#include "vision/image_io.h"
#include "vision/labels.h"

namespace edgeq {
namespace {

std::string finding(const std::string& name) {
  return read_file(test::source_dir() + "/tests/data/fuzz/" + name);
}

// Runs f, which must throw edgeq::Error with a one-line message containing `want`.
template <typename F>
void expect_one_line_error(F f, const std::string& want) {
  try {
    f();
    ADD_FAILURE() << "accepted; expected an error containing: " << want;
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_NE(m.find(want), std::string::npos) << m;
  }
}

// A CBOR stats file whose "format" is a byte string: reading it as text threw nlohmann's
// type_error past the error handling (found by fuzz.sh with EDGEQ_FUZZ_SEED=1 at 20 s).
// An encodings JSON whose offset (-1.28e42) is beyond int64: converting it was undefined
// behaviour (UBSan: "outside the range of representable values of type 'long'"); likewise a
// scale beyond float32.
TEST(FuzzRegression, EncodingOffsetAndScaleOutOfRange) {
  expect_one_line_error([] { encodings_from_json(finding("fuzz_encodings-0f5ece0a"), "f.json"); },
                        "is out of range for a 32-bit encoding");
  const std::string scale =
      R"({"version": "1.0.0", "activation_encodings": [{"bw": 8, "dtype": "INT", "enc_type":
      "PER_TENSOR", "is_sym": false, "name": "x", "offset": [0], "scale": [1e300]}],
      "param_encodings": []})";
  expect_one_line_error([&] { encodings_from_json(scale, "s.json"); },
                        "must be a positive float32");
  std::string tiny = scale;
  tiny.replace(tiny.find("1e300"), 5, "1e-60");
  expect_one_line_error([&] { encodings_from_json(tiny, "t.json"); }, "must be a positive float32");
}

// A 0.6.1 encodings file whose per-channel list mixed bit widths (8 and 16): it was read, and
// written as 1.0.0 (one "bw" per tensor, channel 0's) its 16-bit offset no longer parsed (found
// by CI's fuzz.sh run with EDGEQ_FUZZ_SEED=1, "written encodings do not parse"). Now refused on
// reading, as are a float entry inside a channel list and a bit width beyond int (it wrapped).
TEST(FuzzRegression, EncodingChannelsThatDoNotShareBitWidthOrSymmetry) {
  const std::string mixed = R"({"version": "0.6.1", "activation_encodings": {},
      "param_encodings": {"w": [
        {"bitwidth": 8, "dtype": "int", "is_symmetric": "False", "offset": -128, "scale": 0.1},
        {"bitwidth": 16, "dtype": "int", "is_symmetric": "False", "offset": -30000,
         "scale": 0.1}]}})";
  expect_one_line_error([&] { encodings_from_json(mixed, "m.json"); },
                        "channel 1 has bitwidth 16 asymmetric, channel 0 bitwidth 8 asymmetric");
  std::string sym = mixed;
  sym.replace(sym.find("16"), 2, "8");
  sym.replace(sym.find("-30000"), 6, "-128");
  sym.replace(sym.rfind("\"False\""), 7, "\"True\"");
  expect_one_line_error([&] { encodings_from_json(sym, "s.json"); },
                        "channel 1 has bitwidth 8 symmetric, channel 0 bitwidth 8 asymmetric");
  std::string same = sym;
  same.replace(same.rfind("\"True\""), 6, "\"False\"");
  EncodingSet set = encodings_from_json(same, "ok.json");  // the same channels are accepted
  ASSERT_EQ(set.params.at("w").channels.size(), 2u);
  EXPECT_EQ(
      encodings_from_json(encodings_to_json(set, "1.0.0"), "rt").params.at("w").channels[1].offset,
      -128);
  std::string with_float = same;
  with_float.replace(with_float.find("\"dtype\": \"int\""), 14, "\"dtype\": \"float\"");
  expect_one_line_error([&] { encodings_from_json(with_float, "f.json"); },
                        "a float encoding must be the list's only entry");
  std::string wide = same;
  wide.replace(wide.find("\"bitwidth\": 8"), 13, "\"bitwidth\": 4294967304");
  expect_one_line_error([&] { encodings_from_json(wide, "w.json"); },
                        "'bitwidth' is out of range: 4294967304");
  // A set built in code with mixed channels is written in neither format.
  set.params.at("w").channels[1] = encoding_from_aimet(16, false, 0.1f, -30000);
  for (const char* version : {"1.0.0", "0.6.1"})
    expect_one_line_error([&] { encodings_to_json(set, version); },
                          "mixes bit widths or symmetry across channels");
}

TEST(FuzzRegression, StatsFormatFieldOfAnotherType) {
  expect_one_line_error([] { parse_stats(finding("fuzz_stats-76390cf8"), "f.stats"); },
                        "is not an edgeq stats file");
}

// A shape entry "\xff\xff5" made std::stoll throw std::invalid_argument out of parse_npy.
// A stats file whose histogram count is the float 2.2e46: nlohmann's get<uint64_t>() cast it,
// undefined behaviour (UBSan; found by fuzz.sh at 120 s). Numbers now go through
// core/json_number.h.
TEST(FuzzRegression, StatsCountBeyondUint64) {
  expect_one_line_error([] { parse_stats(finding("fuzz_stats-97f9d817"), "f.cbor"); },
                        "is out of range");
}

// A CBOR stats file nesting arrays thousands deep: nlohmann's CBOR reader recursed once per
// level and overflowed the stack (ASan stack-overflow; fuzz.sh, 240 s). core/json_text's
// json_from_cbor stops at 64 levels.
TEST(FuzzRegression, StatsNestedTooDeep) {
  expect_one_line_error([] { parse_stats(finding("fuzz_stats-3466c44f"), "f.cbor"); },
                        "is not an edgeq stats file");
  std::string deep(100000, '\x81');  // an array of one element, 100000 times
  deep += '\x01';
  EXPECT_THROW(json_from_cbor(deep), nlohmann::json::parse_error);
  std::string shallow(64, '\x81');
  shallow += '\x01';
  nlohmann::json j = json_from_cbor(shallow);
  for (int i = 0; i < 64; ++i) j = j.at(0);
  EXPECT_EQ(j, 1);
  EXPECT_THROW(json_from_cbor(std::string(65, '\x81') + '\x01'), nlohmann::json::parse_error);
  const nlohmann::json doc = {{"a", {1, 2.5, "x"}}};
  const std::vector<uint8_t> cbor = nlohmann::json::to_cbor(doc);
  EXPECT_EQ(json_from_cbor(std::string(cbor.begin(), cbor.end())), doc);
}

TEST(FuzzRegression, NpyShapeEntryThatIsNotANumber) {
  expect_one_line_error([] { parse_npy(finding("fuzz_npy-7c9a30a9"), "f.npy"); },
                        "is not a dimension");
}

// A header key without a value ('shape' at the end of the header's text) read one byte past the
// header (AddressSanitizer: heap-buffer-overflow).
TEST(FuzzRegression, NpyHeaderKeyWithoutValue) {
  expect_one_line_error([] { parse_npy(finding("fuzz_npy-bc831de8"), "f.npy"); },
                        "has no value for 'shape'");
}

// Shape (107216666, 4, 6666664, 66664, 6, 0, ...): empty, but the element count overflowed int64
// on the way to 0 (UBSan: signed integer overflow in shape_numel). Now a zero dim gives 0 at
// once and other products are checked.
TEST(FuzzRegression, NpyShapeWhoseCountOverflows) {
  EXPECT_EQ(parse_npy(finding("fuzz_npy-e5310b0f"), "f.npy").numel(), 0);
  EXPECT_EQ(shape_numel({0, INT64_MAX, 6}), 0);
  EXPECT_THROW(shape_numel({INT64_MAX / 2, 3}), Error);
}

// A header claiming more data than the file holds is refused before anything is allocated.
TEST(FuzzRegression, NpyShapeLargerThanTheData) {
  std::string npy = serialize_npy(Tensor::from_vector<float>({2}, {1, 2}));
  const size_t at = npy.find("(2,)");
  ASSERT_NE(at, std::string::npos);
  npy.replace(at, 4, "(999999999999999999, 99)");
  expect_one_line_error([&] { parse_npy(npy, "f.npy"); }, "too large");
  npy.replace(npy.find("(999999999999999999, 99)"), 24, "(4000000000000,)");
  expect_one_line_error([&] { parse_npy(npy, "f.npy"); }, "truncated");
}

// A keypoint coordinate of 4.4e95 became +inf in float: the labels it parsed to could not be
// written back. Such values are refused now; a class beyond int was undefined behaviour.
TEST(FuzzRegression, LabelValuesOutOfRange) {
  expect_one_line_error([] { parse_yolo_labels(finding("fuzz_labels-de3aa9a5"), 640, 480, "l"); },
                        "out of range");
  expect_one_line_error([] { parse_yolo_labels("1e30 0.5 0.5 0.1 0.1\n", 640, 480, "l"); },
                        "class must be a non-negative integer (at most 1000000)");
  auto ok = parse_yolo_labels("3 0.5 0.5 0.1 0.1 1.5 -0.5 2\n", 640, 480, "l");
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].kpts.at(0).x, 960.0f);
}

// OpenCV's exception text spans several lines; the error quoting it must not.
TEST(FuzzRegression, ImageDecoderErrorIsOneLine) {
  const std::string path = test::temp_dir("fuzz_regression") + "/bad.bmp";
  write_file_atomic(path, finding("fuzz_image-0e1859c4"));
  expect_one_line_error([&] { read_image(path); }, "cannot decode image");
}

// OpenCV chooses a decoder by content: bytes with "DICM" at offset 128 went to its DICOM reader
// (GDCM), whose assertion aborted the process. Files that do not start like a JPEG, PNG, BMP or
// WebP are now refused before any decoder runs.
TEST(FuzzRegression, DicomLookalikeIsRefusedBeforeDecoding) {
  const std::string path = test::temp_dir("fuzz_regression") + "/dicm.jpg";
  write_file_atomic(path, finding("fuzz_image-dfc4b96b"));
  expect_one_line_error([&] { read_image(path); }, "not a JPEG, PNG, BMP or WebP file");
}

// An initializer whose dims claim 4 GB was allocated before its data was checked (the fuzzer's
// memory limit stopped it); now the data size is checked first.
TEST(FuzzRegression, OnnxInitializerLargerThanItsData) {
  expect_one_line_error([] { parse_onnx(finding("fuzz_onnx-0697b041"), "f.onnx"); },
                        "(truncated model?)");
}

// A Reshape target whose known dims overflow int64 when multiplied (UBSan: signed integer
// overflow in make_reshape).
TEST(FuzzRegression, OnnxReshapeTargetWhoseCountOverflows) {
  expect_one_line_error(
      [] {
        Executor ex(parse_onnx(finding("fuzz_onnx-2c8f6532"), "f.onnx"));
        ex.prepare();
      },
      "invalid shape entry");
}

// A node without outputs: the step planner read outputs[0] of an empty list (UBSan: reference
// binding to null pointer).
// A Reshape whose shape input is a float tensor holding NaN: reading it as integers was undefined
// behaviour (UBSan: "-nan is outside the range of representable values of type 'long'"; found by
// fuzz.sh at 120 s). A float that is no 64-bit integer is refused wherever it is read as one.
TEST(FuzzRegression, OnnxFloatShapeHoldingNaN) {
  expect_one_line_error(
      [] {
        Executor ex(parse_onnx(finding("fuzz_onnx-365dd9c3"), "f.onnx"));
        ex.prepare();
      },
      "(Reshape): input 1 (");
  for (float bad : {std::nanf(""), 1e19f, -INFINITY}) {
    Tensor t(DType::kFloat32, {2});
    t.data<float>()[0] = 3;
    t.data<float>()[1] = bad;
    expect_one_line_error([&] { t.to_ints(); }, "cannot be read as a 64-bit integer");
  }
  Tensor d(DType::kFloat64, {1});
  d.data<double>()[0] = 1e300;  // beyond float32
  expect_one_line_error([&] { d.to_floats(); }, "cannot be read as float32");
  d.data<double>()[0] = -2.5e9;  // in range: converted
  EXPECT_EQ(d.to_ints()[0], -2500000000);
  EXPECT_EQ(d.to_floats()[0], -2.5e9f);
}

TEST(FuzzRegression, OnnxNodeWithoutOutputs) {
  expect_one_line_error(
      [] {
        Executor ex(parse_onnx(finding("fuzz_onnx-f9f8b77c"), "f.onnx"));
        ex.prepare();
      },
      "has no outputs");
}

// A value name with a newline in it made the planner's error two lines.
// A Sigmoid node without outputs reached the SiLU fusion, which read its first output (UBSan:
// reference binding to null; fuzz.sh, 240 s): the check now runs before any pass.
TEST(FuzzRegression, OnnxSigmoidWithoutOutputs) {
  expect_one_line_error(
      [] {
        Executor ex(parse_onnx(finding("fuzz_onnx-38d0e03e"), "f.onnx"));
        ex.prepare();
      },
      "has no outputs");
}

TEST(FuzzRegression, OnnxNameWithNewlineKeepsTheErrorOneLine) {
  expect_one_line_error(
      [] {
        Executor ex(parse_onnx(finding("fuzz_onnx-edcc8272"), "f.onnx"));
        ex.prepare();
      },
      "\\n");
  expect_one_line_error([] { fail("a\nb\r\x01"); }, "a\\nb\\r\\x01");
}

}  // namespace
}  // namespace edgeq
