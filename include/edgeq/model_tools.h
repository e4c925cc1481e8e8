// Tools that make or change a model file: cut a YOLO11 model into an arm (with pooled feature
// taps), re-encode chosen activations of a QDQ model, build a synthetic zoo model, and the model
// summary as JSON. Each returns a Model (its bytes are the new file); nothing is written until
// save_model.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "edgeq/choices.h"
#include "edgeq/model.h"

namespace edgeq {

// Writes the model's bytes to `path` (atomically: a failed write leaves no half file).
void save_model(const Model& model, const std::string& path);
// How many nodes the model's graph has.
size_t node_count(const Model& model);
// A shape as messages and listings write it: "[1,3,640,640]" (-1 for a free dimension).
std::string shape_text(const std::vector<int64_t>& shape);
// The summary Model::summary() prints, as JSON text (2-space indent) with "model": name().
std::string model_summary_json(const Model& model);

// ---- Arms of a YOLO11 model (layers found from Ultralytics export names "/model.N/...") ----
// Arm A: layers 0-10, outputs the pooled taps only; B: layers 0-22, outputs P3/P4/P5 (layers 16,
// 19, 22) plus taps; C: the full model plus taps. A tap of layer N is its output's global average
// and global max pooling (outputs tap_avg{N}, tap_max{N}, [1,C,1,1]).
// Arm head: the raw head for NPUs that refuse float decode ops. The graph ends at the head's last
// convolutions, found by structure (per scale, stride ascending: the box distribution logits
// [1,4*reg_max,H,W], the class logits [1,nc,H,W] and for pose the keypoints [1,nk*kd,H,W]); the
// layout is in the metadata (edgeq_raw_head), and every edgeq command, Session and Python run the
// decode on the host and see output0 as from the full model (no flag). Quantize it like any model.
struct CutOptions {
  Arm arm = Arm::kC;        // name(): "A", "B", "C" or "head"; parse<Arm>() takes any case
  std::vector<int> taps;    // layer indices to tap
  bool taps_given = false;  // arm A: empty taps means 4, 6, 8, 10; B and C: empty means none
};
// The arm as a model of its own (dead nodes and unused weights removed). Throws for a model
// without Ultralytics names, a layer it lacks, or a bad arm or tap; for arm head, a model without a
// recognisable YOLO head or a quantized one (cut the float model, then quantize the raw head).
Model cut_model(const Model& model, const CutOptions& options);

// ---- Re-encoding activations of a QDQ model; everything else stays as it is ----
struct PatchOptions {
  std::vector<std::string> values;  // activation names (the float model's value names)
  double lo = 0, hi = 0;            // the new range
  int bits = 0;                     // 8 or 16; 0 keeps the first named value's width
};
struct PatchedModel {
  Model model;
  std::string encoding;                // the new encoding of every patched value, described
  std::vector<std::string> patched;    // the named values and the ones pulled in
  std::vector<std::string> pulled_in;  // "value (reason)": a shared encoding stays shared
};
// Throws one line naming the value at fault (not in the model, not quantized, a constant).
PatchedModel patch_activations(const Model& qdq_model, const PatchOptions& options);

// ---- The zoo: YOLO11 networks with the official topology and deterministic synthetic weights
// (exported as Ultralytics' ONNX export names them), for trying edgeq without a trained model ----
// "yolo11n", "yolo11s", "yolo11n-pose", "yolo11s-pose".
std::vector<std::string> zoo_model_names();
struct ZooModel {
  Model model;
  int64_t parameters = 0;  // the network's weights (Ultralytics' fused count)
};
// Input "images" [1,3,imgsz,imgsz] (imgsz a multiple of 32), output "output0". Throws listing the
// valid names for an unknown one.
ZooModel zoo_model(const std::string& name, int64_t imgsz = 640);

}  // namespace edgeq
