// The typed vocabulary of edgeq/choices.h: every enum's names parse back to the value they name,
// any case is accepted, and a bad value is refused in one line naming the option and every
// accepted value.
#include "edgeq/choices.h"

#include <gtest/gtest.h>

#include <string>

namespace edgeq {
namespace {

template <class E>
void expect_round_trip() {
  const auto names = choice_names<E>();
  ASSERT_FALSE(names.empty());
  for (size_t i = 0; i < names.size(); ++i) {
    const E e = static_cast<E>(i);
    EXPECT_EQ(name(e), names[i]);
    EXPECT_EQ(parse<E>(names[i]), e);
    std::string upper = names[i], lower = names[i];
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(parse<E>(upper), e) << upper;
    EXPECT_EQ(parse<E>(lower), e) << lower;
  }
}

template <class E>
void expect_refused(const std::string& option) {
  try {
    parse<E>("bogus");
    FAIL() << option << " accepted 'bogus'";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(option + ": 'bogus' is not one of ", 0), 0u) << m;
    for (const std::string& n : choice_names<E>()) EXPECT_NE(m.find(n), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST(Choices, EveryNameParsesBackInAnyCase) {
  expect_round_trip<Scheme>();
  expect_round_trip<RangeMethod>();
  expect_round_trip<Placement>();
  expect_round_trip<Qdq16>();
  expect_round_trip<QuantizeIo>();
  expect_round_trip<ExecMode>();
  expect_round_trip<Int8Emulation>();
  expect_round_trip<PipelineMode>();
  expect_round_trip<Severity>();
  expect_round_trip<Arm>();
}

TEST(Choices, BadValueNamesTheOptionAndEveryChoice) {
  expect_refused<Scheme>("scheme");
  expect_refused<RangeMethod>("range");
  expect_refused<Placement>("placement");
  expect_refused<Qdq16>("qdq16");
  expect_refused<QuantizeIo>("quantize_io");
  expect_refused<ExecMode>("exec");
  expect_refused<Int8Emulation>("emulate");
  expect_refused<PipelineMode>("pipeline_mode");
  expect_refused<Severity>("severity");
  expect_refused<Arm>("arm");
}

TEST(Choices, HandWrittenCases) {
  EXPECT_EQ(parse<Scheme>("W8A16"), Scheme::kW8A16);
  EXPECT_EQ(name(Arm::kB), "B");
  EXPECT_EQ(parse<Arm>("b"), Arm::kB);
  EXPECT_EQ(choices_text<Placement>(), "ort, qnn, cpu");
  EXPECT_THROW(parse<Scheme>(""), Error);
  EXPECT_THROW(parse<Scheme>("w8a8 "), Error);  // no trimming: the value is what was given
  EXPECT_THROW(name(static_cast<Scheme>(7)), Error);
  try {
    parse<RangeMethod>("max", "study config: range");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "study config: range: 'max' is not one of minmax, percentile, "
                 "entropy, mse");
  }
  // Severity orders by weight, as findings sort.
  EXPECT_LT(Severity::kInfo, Severity::kWarning);
  EXPECT_LT(Severity::kWarning, Severity::kError);
}

}  // namespace
}  // namespace edgeq
