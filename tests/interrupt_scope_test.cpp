// core/interrupt.h: one meaning for SIGINT and SIGTERM while a front end's InterruptScope is open,
// and the library's long calls stopping on it (edgeq::Cancelled) with no callback of their own.
#include <gtest/gtest.h>
#include <signal.h>

#include "core/interrupt.h"
#include "edgeq/bench.h"
#include "edgeq/error.h"
#include "eval/linear_models.h"
#include "ir/onnx_io.h"
#include "test_util.h"
#include "vision/augment.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {

void (*handler_of(int sig))(int) {
  struct sigaction now {};
  sigaction(sig, nullptr, &now);
  return now.sa_handler;
}

TEST(InterruptScope, SigtermRaisesTheFlagAndIsRemembered) {
  void (*const term_before)(int) = handler_of(SIGTERM);
  void (*const int_before)(int) = handler_of(SIGINT);
  {
    InterruptScope scope;
    EXPECT_FALSE(interrupt_requested());
    EXPECT_NO_THROW(throw_if_interrupted());
    raise(SIGTERM);  // handled: the process goes on
    EXPECT_TRUE(scope.interrupted());
    EXPECT_TRUE(interrupt_requested());
    EXPECT_EQ(scope.signal(), SIGTERM);
    EXPECT_THROW(throw_if_interrupted(), Cancelled);
  }
  EXPECT_FALSE(interrupt_requested());          // only while a scope is open
  EXPECT_EQ(last_interrupt_signal(), SIGTERM);  // for the exit status, 143
  EXPECT_EQ(handler_of(SIGTERM), term_before);  // the handlers from before
  EXPECT_EQ(handler_of(SIGINT), int_before);
}

TEST(InterruptScope, ScopesNestAndTheFirstSignalIsTheOneReported) {
  InterruptScope outer;
  raise(SIGINT);
  {
    InterruptScope inner;  // does not clear what the outer one caught
    EXPECT_TRUE(inner.interrupted());
    EXPECT_EQ(inner.signal(), SIGINT);
  }
  EXPECT_TRUE(outer.interrupted());
  EXPECT_EQ(last_interrupt_signal(), SIGINT);
}

TEST(InterruptScope, AnIgnoredSignalStaysIgnored) {
  // nohup, or a background job's SIGINT: the process asked not to be stopped by it.
  struct sigaction ign {
  }, old{};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGINT, &ign, &old);
  {
    InterruptScope scope;
    EXPECT_EQ(handler_of(SIGINT), SIG_IGN);
    EXPECT_NE(handler_of(SIGTERM), SIG_IGN);
    raise(SIGINT);
    EXPECT_FALSE(scope.interrupted());
  }
  EXPECT_EQ(handler_of(SIGINT), SIG_IGN);
  sigaction(SIGINT, &old, nullptr);
}

// Calls with no progress callback stop all the same: bench (before its next run), the probe's
// fits (before their next iteration), augment (between two variants, saying how many it wrote).
TEST(InterruptScope, LongCallsWithoutCallbacksStop) {
  const std::string d = test::temp_dir("interrupt_scope");
  save_onnx(build_yolo11("yolo11n", 160), d + "/m.onnx");
  const Model model = Model::load(d + "/m.onnx");
  InterruptScope scope;
  raise(SIGTERM);
  BenchOptions b;
  b.runs = 1000000;
  b.exec.threads = 1;
  EXPECT_THROW(bench(model, b), Cancelled);
  b.workers = 2;
  EXPECT_THROW(bench(model, b), Cancelled);

  Eigen::MatrixXd x = Eigen::MatrixXd::Random(8, 3);
  EXPECT_THROW(fit_logistic(x, {0, 1, 0, 1, 0, 1, 0, 1}, 2, 0.1), Cancelled);

  LabelledImage im;
  im.bgr = cv::Mat(120, 160, CV_8UC3, cv::Scalar(90, 90, 90));
  AugmentOptions a;
  a.n = 5;
  try {
    write_augmented_split({im}, d + "/aug", a);
    ADD_FAILURE() << "augment did not stop";
  } catch (const Cancelled& e) {
    EXPECT_NE(std::string(e.what()).find("0 of 5 variants"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace edgeq
