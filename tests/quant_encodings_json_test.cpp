// Encodings JSON (AIMET 1.0.0 and 0.6.1): hand-written files parse to the hand-computed
// encodings, round trips are exact, malformed files are refused naming the entry.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "encode/encodings_json.h"
#include "test_util.h"

namespace edgeq {
namespace {

EncodingSet sample_set() {
  EncodingSet set;
  set.activations["images"] = TensorEncoding::per_tensor(encoding_from_range(0.0, 1.0, 8, false));
  set.activations["/model.23/Concat_5_output_0"] =
      TensorEncoding::per_tensor(encoding_from_range(-0.6, 80.6, 16, false));
  set.activations["/model.0/act/Mul_output_0"] =
      TensorEncoding::per_tensor(encoding_from_range(-2.0, 3.0, 8, true));
  set.activations["/model.23/dfl/Softmax_output_0"] = TensorEncoding::floating(16);
  TensorEncoding w;
  w.axis = 0;
  w.channels = {encoding_from_range(-0.5, 0.5, 8, true), encoding_from_range(-2.0, 2.0, 8, true)};
  set.params["model.0.conv.weight"] = w;
  TensorEncoding b;
  b.axis = 0;
  for (const Encoding& e : w.channels) {
    Encoding be = encoding_from_onnx(e.scale * 0.01f, 0, DType::kInt32);
    be.symmetric = true;
    b.channels.push_back(be);
  }
  set.params["model.0.conv.bias"] = b;
  return set;
}

void expect_same(const EncodingSet& a, const EncodingSet& b) {
  const std::map<std::string, TensorEncoding>* as[2] = {&a.activations, &a.params};
  const std::map<std::string, TensorEncoding>* bs[2] = {&b.activations, &b.params};
  for (int s = 0; s < 2; ++s) {
    ASSERT_EQ(as[s]->size(), bs[s]->size());
    for (const auto& kv : *as[s]) {
      const TensorEncoding& x = kv.second;
      const TensorEncoding& y = bs[s]->at(kv.first);
      EXPECT_EQ(x.is_float, y.is_float) << kv.first;
      EXPECT_EQ(x.axis, y.axis) << kv.first;
      if (x.is_float) {
        EXPECT_EQ(x.float_bitwidth, y.float_bitwidth);
        continue;
      }
      ASSERT_EQ(x.channels.size(), y.channels.size()) << kv.first;
      for (size_t c = 0; c < x.channels.size(); ++c) {
        const Encoding &e = x.channels[c], &f = y.channels[c];
        EXPECT_EQ(e.bitwidth, f.bitwidth) << kv.first;
        EXPECT_EQ(e.symmetric, f.symmetric) << kv.first;
        EXPECT_EQ(e.is_signed, f.is_signed) << kv.first;
        EXPECT_EQ(e.scale, f.scale) << kv.first;  // exact: float -> JSON double -> float
        EXPECT_EQ(e.offset, f.offset) << kv.first;
        EXPECT_EQ(e.zero_point(), f.zero_point()) << kv.first;
      }
    }
  }
}

std::string error_of(const std::string& text) {
  try {
    encodings_from_json(text, "enc.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(QuantEncodingsJson, RoundTripBothForms) {
  EncodingSet set = sample_set();
  for (const char* version : {"1.0.0", "0.6.1"}) {
    std::string text = encodings_to_json(set, version);
    expect_same(set, encodings_from_json(text, version));
  }
  std::string path = test::temp_dir("encodings_json") + "/encodings.json";
  save_encodings(set, path, "0.6.1");
  expect_same(set, load_encodings(path));
}

TEST(QuantEncodingsJson, WritesAimetFields) {
  nlohmann::json j = nlohmann::json::parse(encodings_to_json(sample_set(), "1.0.0"));
  EXPECT_EQ(j["version"], "1.0.0");
  ASSERT_TRUE(j["activation_encodings"].is_array());
  nlohmann::json sym;
  for (const auto& e : j["activation_encodings"])
    if (e["name"] == "/model.0/act/Mul_output_0") sym = e;
  EXPECT_EQ(sym["dtype"], "INT");
  EXPECT_EQ(sym["enc_type"], "PER_TENSOR");
  EXPECT_EQ(sym["bw"], 8);
  EXPECT_EQ(sym["is_sym"], true);
  EXPECT_EQ(sym["offset"][0], -128);  // signed symmetric, as AIMET writes it
  EXPECT_FLOAT_EQ(sym["scale"][0].get<float>(), 3.0f / 127.0f);
  nlohmann::json w = j["param_encodings"][1];
  EXPECT_EQ(w["name"], "model.0.conv.weight");
  EXPECT_EQ(w["enc_type"], "PER_CHANNEL");
  EXPECT_EQ(w["scale"].size(), 2u);

  nlohmann::json l = nlohmann::json::parse(encodings_to_json(sample_set(), "0.6.1"));
  nlohmann::json a = l["activation_encodings"]["images"][0];
  EXPECT_EQ(a["is_symmetric"], "False");
  EXPECT_EQ(a["dtype"], "int");
  EXPECT_EQ(a["offset"], 0);
  EXPECT_FLOAT_EQ(a["max"].get<float>(), 1.0f);
  EXPECT_EQ(l["activation_encodings"]["/model.23/dfl/Softmax_output_0"][0]["dtype"], "float");
}

TEST(QuantEncodingsJson, ReadsHandWrittenFiles) {
  // 1.0.0: [-1, 3] at 8 bit is scale 4/255, offset -64; a symmetric int8 per-channel weight.
  std::string v1 = R"({"version": "1.0.0",
    "activation_encodings": [{"name": "x", "dtype": "INT", "enc_type": "PER_TENSOR", "bw": 8,
                              "is_sym": false, "scale": [0.01568627450980392], "offset": [-64]},
                             {"name": "f", "dtype": "FLOAT", "enc_type": "PER_TENSOR", "bw": 16}],
    "param_encodings": [{"name": "w", "dtype": "INT", "enc_type": "PER_CHANNEL", "bw": 8,
                         "is_sym": true, "scale": [0.5, 0.25], "offset": [-128, -128]}],
    "quantizer_args": {"activation_bitwidth": 8}})";
  EncodingSet a = encodings_from_json(v1, "v1");
  const Encoding& x = a.activations.at("x").channels.at(0);
  EXPECT_EQ(x.zero_point(), 64);
  EXPECT_EQ(x.dtype(), DType::kUInt8);
  EXPECT_NEAR(x.min, -64 * 4.0 / 255, 1e-6);
  EXPECT_TRUE(a.activations.at("f").is_float);
  EXPECT_EQ(a.activations.at("f").float_bitwidth, 16);
  const TensorEncoding& w = a.params.at("w");
  EXPECT_EQ(w.axis, 0);
  ASSERT_EQ(w.channels.size(), 2u);
  EXPECT_EQ(w.channels[1].dtype(), DType::kInt8);
  EXPECT_EQ(w.channels[1].zero_point(), 0);
  EXPECT_FLOAT_EQ(w.channels[1].scale, 0.25f);

  // 0.6.1: booleans as strings and offsets as floats, as older tools write them.
  std::string v0 = R"({"version": "0.6.1",
    "activation_encodings": {"y": [{"bitwidth": 16, "dtype": "int", "is_symmetric": "False",
                                    "max": 80.6, "min": -0.6, "offset": -484.0,
                                    "scale": 0.0012390325}]},
    "param_encodings": {"b": [{"bitwidth": 8, "is_symmetric": "True", "max": 1.0,
                               "min": -1.0079, "offset": -128, "scale": 0.007874}]}})";
  EncodingSet b = encodings_from_json(v0, "v0");
  const Encoding& y = b.activations.at("y").channels.at(0);
  EXPECT_EQ(y.dtype(), DType::kUInt16);
  EXPECT_EQ(y.zero_point(), 484);
  EXPECT_FALSE(b.params.at("b").per_channel());
  EXPECT_TRUE(b.params.at("b").channels[0].is_signed);
}

TEST(QuantEncodingsJson, RefusesMalformedFiles) {
  auto entry = [](const std::string& fields) {
    return R"({"version": "1.0.0", "param_encodings": [], "activation_encodings": [{"name": "t1", )" +
           fields + "}]}";
  };
  const std::string ok = R"("dtype": "INT", "enc_type": "PER_TENSOR", "bw": 8, "is_sym": false)";
  EXPECT_EQ(error_of(entry(ok + R"(, "scale": [0.1], "offset": [-3])")), "");

  struct Bad {
    std::string text, needle;
  };
  std::vector<Bad> cases = {
      {"{not json", "not valid JSON"},
      {"[]", "top level"},
      {R"({"activation_encodings": []})", "param_encodings"},
      {R"({"activation_encodings": [], "param_encodings": {}})", "param_encodings"},
      {R"({"version": "0.6.1", "activation_encodings": [], "param_encodings": []})", "0.6.1"},
      {entry(ok + R"(, "offset": [-3])"), "missing 'scale'"},
      {entry(ok + R"(, "scale": [-0.1], "offset": [-3])"), "positive"},
      {entry(ok + R"(, "scale": [0.1, 0.2], "offset": [-3])"), "same length"},
      {entry(ok + R"(, "scale": [0.1], "offset": [-2.5])"), "not an integer"},
      {entry(ok + R"(, "scale": [0.1], "offset": [5])"), "offset 5"},
      {entry(ok + R"(, "scale": [0.1, 0.1], "offset": [0, 0])"), "PER_TENSOR"},
      {entry(
           R"("dtype": "INT", "enc_type": "PER_BLOCK", "bw": 4, "is_sym": true, "scale": [1], "offset": [-8])"),
       "PER_BLOCK"},
      {entry(
           R"("dtype": "INT", "enc_type": "PER_TENSOR", "bw": "8", "is_sym": true, "scale": [1], "offset": [-8])"),
       "'bw'"},
      {entry(
           R"("dtype": "INT", "enc_type": "PER_TENSOR", "bw": 8, "is_sym": "maybe", "scale": [1], "offset": [-8])"),
       "'is_sym'"},
      {entry(R"("dtype": "BF", "enc_type": "PER_TENSOR", "bw": 8)"), "dtype 'BF'"},
      {R"({"activation_encodings": [{"dtype": "INT"}], "param_encodings": []})", "'name'"},
      {R"({"activation_encodings": [], "param_encodings": [
          {"name": "w", "dtype": "FLOAT", "enc_type": "PER_TENSOR", "bw": 16},
          {"name": "w", "dtype": "FLOAT", "enc_type": "PER_TENSOR", "bw": 16}]})",
       "duplicate"},
      {R"({"activation_encodings": {"t2": []}, "param_encodings": {}})", "non-empty list"},
      {R"({"activation_encodings": {"t2": [{"bitwidth": 8, "is_symmetric": "False", "offset": 0}]},
          "param_encodings": {}})",
       "missing 'scale'"},
  };
  for (const Bad& b : cases) {
    std::string err = error_of(b.text);
    EXPECT_NE(err.find(b.needle), std::string::npos) << b.text << "\n -> " << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;  // one line
  }
  // Errors about one entry name it.
  EXPECT_NE(error_of(entry(ok + R"(, "offset": [-3])")).find("'t1'"), std::string::npos);
  EXPECT_NE(error_of(R"({"activation_encodings": {"t2": []}, "param_encodings": {}})").find("'t2'"),
            std::string::npos);
  EXPECT_THROW(encodings_to_json(sample_set(), "2.0.0"), Error);
  EXPECT_THROW(load_encodings(test::binary_dir() + "/no_such_encodings.json"), Error);
}

}  // namespace edgeq
