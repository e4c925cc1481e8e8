// An ONNX model as edgeq reads it: loaded once (bounded, checked), with its SHA-256 (statistics
// record the model they were computed for) and its graph inputs and outputs.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace edgeq {

struct ValueDescription {
  std::string name;
  std::string dtype;           // "float32", "uint8", ...
  std::vector<int64_t> shape;  // -1 for a dimension without a fixed size
};

namespace detail {
struct ApiAccess;
struct ModelImpl;
}  // namespace detail

class Model {
 public:
  // Reads and parses an ONNX file; throws edgeq::Error naming the path (missing, not a regular
  // file, too large, malformed, an unsupported form).
  static Model load(const std::string& path);
  // Parses ONNX bytes held in memory; `name` is what messages call the model.
  static Model from_bytes(std::string bytes, const std::string& name = "model");

  const std::string& name() const;    // the path, or the name given to from_bytes
  const std::string& sha256() const;  // of the bytes, lower-case hex
  const std::string& bytes() const;   // the serialized model
  std::vector<ValueDescription> inputs() const;
  std::vector<ValueDescription> outputs() const;
  // Layers, parameters, FLOPs per module and bytes per frame, as `edgeq inspect` prints them.
  std::string summary() const;

 private:
  friend struct detail::ApiAccess;  // the library's own code reaches the handle's state
  using Impl = detail::ModelImpl;
  explicit Model(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;  // immutable: copies share it
};

}  // namespace edgeq
