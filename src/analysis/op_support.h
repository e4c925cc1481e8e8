// Per-target op support: which ops a target runs quantized, which it may not (with a note), and
// which it cannot. The tables are data (data/targets/<name>.json, embedded at build time); a path
// ending in ".json" loads a table of the same form from disk.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "edgeq/choices.h"

namespace edgeq {

struct TargetOps {
  std::string target;  // "qnn-htp", "rknn", "cpu", ...
  std::string name;    // human-readable
  bool is_npu = false;
  bool shares_concat_encoding = false;    // the toolchain forces one encoding across a Concat
  Placement placement = Placement::kOrt;  // the quantize placement this target wants
  std::string placement_why;              // why, for the doctor
  std::string float_ops_run_on;           // what happens to ops left in float
  // How its int8 convolutions add u8 x s8 products (analysis/int8_saturation.h): "saturate" (in
  // int16 pairs that can overflow), "depends" (on the CPU), or "" (exactly / not judged).
  std::string int8_pairs;
  // What the target's runtime does with graph inputs / outputs that carry codes (quantize
  // --quantize-io) and with float ones; "" when the table does not say.
  std::string io;
  std::set<std::string> quantized;
  std::map<std::string, std::string> uncertain;    // op -> note
  std::map<std::string, std::string> unsupported;  // op -> note

  enum class Support { kYes, kUncertain, kNo, kUnknown };
  Support support(const std::string& op_type) const;
  // The note for an uncertain or unsupported op ("" otherwise).
  std::string note(const std::string& op_type) const;
};

// A builtin name or a path to a .json table; throws listing the builtin names otherwise.
TargetOps load_target(const std::string& name_or_path);
// Parses a table; throws naming `what` and the field at fault.
TargetOps parse_target(const std::string& json_text, const std::string& what);

// Ops that compute shapes or constants, never tensor data: not judged for placement.
bool is_shape_op(const std::string& op_type);

}  // namespace edgeq
