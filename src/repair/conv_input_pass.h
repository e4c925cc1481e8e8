// The calibration pass weight repair needs: the FP32 model run over calibration images with hooks
// on the inputs of chosen Conv nodes, summing their im2col moments (repair/conv_input_moments.h).
//
// Streamed: one image at a time, nothing kept but the sums. Bounded: the convs whose Gram matrices
// are wanted are split into rounds whose moments fit a memory budget (a conv larger than the
// budget gets a round of its own), and each round is one pass over the images. The forward runs on
// one thread (oneDNN's summation order can depend on the thread count), images are added in index
// order and each sum by one thread in a fixed order, so the moments are bit-identical for any
// number of threads.
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "calib/calibration_run.h"
#include "ir/graph.h"
#include "repair/conv_input_moments.h"

namespace edgeq {

struct ConvInputRequest {
  std::string conv;   // Conv node name
  bool gram = false;  // also the second moment
};

// One round's moments, by conv node name.
using ConvInputRound = std::map<std::string, ConvInputMoments>;

struct ConvInputPass {
  ConvInputRound moments;           // every round's, unless on_round took them
  size_t used = 0, unreadable = 0;  // images (per round)
  int rounds = 0;
};

// The requests split into rounds whose moments fit `budget` bytes together, in request order.
std::vector<std::vector<ConvInputRequest>> conv_input_rounds(
    const Graph& g, const std::vector<ConvInputRequest>& requests, size_t budget);

// Every round of `rounds` is one pass over images 0 .. count-1 of `load`, fed to `input`. An
// edgeq::Error from `load` skips the image (on_skip, first round only); on_image is called once per
// image and round. on_round, when given, takes each round's moments as the round ends (so that
// only one round's are ever held); otherwise they are returned. Throws if no image was readable or
// a request names no Conv of `g`.
ConvInputPass collect_conv_inputs(const Graph& g, const std::string& input,
                                  const std::vector<std::vector<ConvInputRequest>>& rounds,
                                  size_t count, const ImageLoader& load, int threads,
                                  const std::function<void()>& on_image = nullptr,
                                  const std::function<void(const std::string&)>& on_skip = nullptr,
                                  const std::function<void(ConvInputRound&&)>& on_round = nullptr);

}  // namespace edgeq
