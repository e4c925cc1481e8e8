// edgeq patch: re-encode chosen activations of a QDQ model (a shared encoding stays shared);
// everything else is written back unchanged.
#include <iostream>

#include "commands.h"
#include "edgeq/error.h"
#include "edgeq/files.h"
#include "edgeq/model_tools.h"
#include "edgeq/text.h"

namespace edgeq::cli {
namespace {

struct PatchArgs {
  std::string model, tensors, out;
  std::vector<double> range;
  int bits = 0;
};

void run_patch(const PatchArgs& a) {
  check_distinct_files({{"--model", a.model}}, {{"--out", a.out}});
  PatchOptions req;
  req.values = comma_list(a.tensors);
  check_unique(req.values, "--tensor");
  EDGEQ_CHECK(a.range.size() == 2, "--range needs two numbers: LO HI");
  req.lo = a.range[0];
  req.hi = a.range[1];
  if (a.bits) req.bits = a.bits;
  const PatchedModel res = patch_activations(Model::load(a.model), req);
  save_model(res.model, a.out);
  std::cout << "wrote " << printable(a.out) << ": " << res.patched.size() << " value"
            << (res.patched.size() == 1 ? "" : "s") << " re-encoded as " << res.encoding << "\n";
  for (const std::string& v : res.patched) std::cout << "  " << printable(v) << "\n";
  for (const std::string& p : res.pulled_in)
    std::cout << "  also re-encoded (shared encoding stays shared): " << printable(p) << "\n";
}

}  // namespace

void register_patch(CLI::App& app) {
  auto a = std::make_shared<PatchArgs>();
  auto* cmd = app.add_subcommand(
      "patch", "Re-encode chosen activations of a QDQ model, leaving everything else unchanged");
  cmd->add_option("--model", a->model, "QDQ ONNX model")->required();
  cmd->add_option("--tensor", a->tensors, "value name(s), comma-separated")->required();
  cmd->add_option("--range", a->range, "new range: LO HI")->required()->expected(2);
  cmd->add_option("--bits", a->bits, "8 or 16 (default: keep the current width)");
  cmd->add_option("--out", a->out, "ONNX file to write")->required();
  cmd->callback([a] { run_patch(*a); });
}

}  // namespace edgeq::cli
