#include "repair/conv_input_pass.h"

#include <omp.h>

#include <memory>

#include "core/error.h"
#include "core/interrupt.h"
#include "runtime/executor.h"

namespace edgeq {
namespace {

const Node& conv_named(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes)
    if (n.name == name) {
      EDGEQ_CHECK(n.op_type == "Conv" && n.domain.empty() && n.has_input(1),
                  "weight repair: ", n.describe(), " is not a Conv with a weight");
      return n;
    }
  fail("weight repair: no node named '", name, "' in the model");
}

ConvGeometry geometry_of(Executor& ex, const Node& conv) {
  return conv_geometry(conv, ex.desc(conv.inputs[0]).shape, ex.desc(conv.inputs[1]).shape);
}

}  // namespace

std::vector<std::vector<ConvInputRequest>> conv_input_rounds(
    const Graph& g, const std::vector<ConvInputRequest>& requests, size_t budget) {
  Executor shapes(g);
  std::vector<std::vector<ConvInputRequest>> rounds;
  size_t held = 0;
  for (const ConvInputRequest& r : requests) {
    const size_t bytes = moments_bytes(geometry_of(shapes, conv_named(g, r.conv)), r.gram);
    if (rounds.empty() || held + bytes > budget) {
      rounds.emplace_back();
      held = 0;
    }
    rounds.back().push_back(r);
    held += bytes;
  }
  return rounds;
}

ConvInputPass collect_conv_inputs(const Graph& g, const std::string& input,
                                  const std::vector<std::vector<ConvInputRequest>>& rounds,
                                  size_t count, const ImageLoader& load, int threads,
                                  const std::function<void()>& on_image,
                                  const std::function<void(const std::string&)>& on_skip,
                                  const std::function<void(ConvInputRound&&)>& on_round) {
  // The forward runs on one thread: oneDNN's summation order can depend on the number of threads,
  // and the moments must not. The threads go to the accumulation, which costs far more.
  ExecutorOptions eo;
  eo.threads = 1;
  Executor ex(g, eo);
  if (threads <= 0) threads = omp_get_max_threads();
  ConvInputPass pass;
  for (const std::vector<ConvInputRequest>& round : rounds) {
    // One accumulator per conv; convs reading the same value share its hook.
    std::map<std::string, std::unique_ptr<ConvInputAccumulator>> acc;
    std::map<std::string, std::vector<ConvInputAccumulator*>> by_value;
    ex.clear_hooks();
    for (const ConvInputRequest& r : round) {
      const Node& conv = conv_named(g, r.conv);
      auto& a = acc[r.conv];
      EDGEQ_CHECK(!a, "weight repair: conv '", r.conv, "' is requested twice");
      a = std::make_unique<ConvInputAccumulator>(geometry_of(ex, conv), r.gram);
      by_value[conv.inputs[0]].push_back(a.get());
    }
    for (auto& [value, list] : by_value)
      ex.add_hook(value, [&list = list, threads](const std::string&, const Tensor& t) {
        for (ConvInputAccumulator* a : list) a->add(t, threads);
      });
    ex.prepare();
    size_t used = 0;
    for (size_t i = 0; i < count; ++i) {
      Tensor x;
      try {
        x = load(i);
      } catch (const Error& e) {
        if (pass.rounds == 0) {
          ++pass.unreadable;
          if (on_skip) on_skip(e.what());
        }
        if (on_image) on_image();
        continue;
      }
      ex.run({{input, x}});
      ++used;
      if (on_image) on_image();
      throw_if_interrupted();
    }
    EDGEQ_CHECK(used > 0, "no readable image among the ", count, " selected; nothing written");
    pass.used = used;
    ConvInputRound moments;
    for (auto& [name, a] : acc) moments[name] = a->take();
    acc.clear();
    ++pass.rounds;
    if (on_round)
      on_round(std::move(moments));
    else
      pass.moments.merge(moments);
  }
  return pass;
}

}  // namespace edgeq
