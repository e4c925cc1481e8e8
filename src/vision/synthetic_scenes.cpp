#include "vision/synthetic_scenes.h"

#include <cstdio>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <random>

#include "core/error.h"
#include "core/file_io.h"
#include "core/option_range.h"

namespace edgeq {
namespace {

cv::Scalar random_color(std::mt19937& rng) {
  std::uniform_int_distribution<int> c(20, 235);
  return cv::Scalar(c(rng), c(rng), c(rng));
}

// A stick figure standing at (x, feet_y) with the given height, roughly COCO-17 proportions.
void draw_person(cv::Mat& img, int x, int feet_y, int h, std::mt19937& rng) {
  const cv::Scalar body = random_color(rng), skin(120, 150, 200);
  const int t = std::max(2, h / 18);
  const cv::Point hip(x, feet_y - h * 48 / 100), neck(x, feet_y - h * 82 / 100);
  const cv::Point head(x, feet_y - h * 91 / 100);
  cv::circle(img, head, std::max(3, h / 11), skin, cv::FILLED, cv::LINE_AA);
  cv::line(img, neck, hip, body, t + 2, cv::LINE_AA);
  const int sw = h / 7;
  for (int s : {-1, 1}) {
    cv::Point shoulder(x + s * sw, neck.y + h / 40), elbow(x + s * sw * 3 / 2, neck.y + h / 6);
    cv::Point wrist(x + s * sw * 5 / 4, hip.y), knee(x + s * sw * 2 / 3, feet_y - h / 4);
    cv::line(img, neck, shoulder, body, t, cv::LINE_AA);
    cv::line(img, shoulder, elbow, body, t, cv::LINE_AA);
    cv::line(img, elbow, wrist, skin, t, cv::LINE_AA);
    cv::line(img, hip, knee, body, t + 1, cv::LINE_AA);
    cv::line(img, knee, cv::Point(x + s * sw * 3 / 4, feet_y), cv::Scalar(40, 40, 40), t + 1,
             cv::LINE_AA);
  }
}

}  // namespace

cv::Mat synthetic_scene(int index, uint32_t seed, int width, int height) {
  std::mt19937 rng(seed * 7919u + static_cast<uint32_t>(index));
  cv::Mat img(height, width, CV_8UC3);
  // Sky-to-ground gradient.
  cv::Scalar top = random_color(rng), bottom = random_color(rng);
  for (int y = 0; y < height; ++y) {
    double a = double(y) / (height - 1);
    img.row(y).setTo(top * (1 - a) + bottom * a);
  }
  // Buildings and objects.
  std::uniform_int_distribution<int> ux(0, width - 1), uy(0, height - 1);
  for (int k = 0; k < 6; ++k) {
    cv::Point a(ux(rng), uy(rng) / 2), b(ux(rng), height * 2 / 3 + uy(rng) / 3);
    cv::rectangle(img, a, b, random_color(rng), cv::FILLED);
  }
  // People of several sizes (small ones far away, as in the field's truncation case).
  std::uniform_int_distribution<int> n_people(1, 5);
  int n = n_people(rng);
  for (int k = 0; k < n; ++k) {
    int h = std::uniform_int_distribution<int>(height / 8, height * 3 / 4)(rng);
    int feet = std::uniform_int_distribution<int>(h, height - 1)(rng);
    draw_person(img, ux(rng), feet, h, rng);
  }
  // Sensor-like noise, from a generator of this scene's own (OpenCV's global one, cv::randn's,
  // carries state from whatever drew from it before, in this process and thread).
  cv::Mat noise(img.size(), CV_8UC3);
  cv::RNG noise_rng((uint64_t(seed) << 32 | uint32_t(index)) ^ 0x9E3779B97F4A7C15ull);
  noise_rng.fill(noise, cv::RNG::NORMAL, cv::Scalar::all(0), cv::Scalar::all(6));
  cv::Mat noisy;
  img.convertTo(noisy, CV_16SC3);
  noise.convertTo(noise, CV_16SC3);
  noisy += noise - cv::Scalar::all(0);
  noisy.convertTo(img, CV_8UC3);
  return img;
}

std::vector<std::string> write_synthetic_scenes(const std::string& dir, int n, uint32_t seed) {
  check_option("n", n, ranges::kFrames);
  ensure_dir(dir);
  std::vector<std::string> paths;
  for (int i = 0; i < n; ++i) {
    char name[64];
    std::snprintf(name, sizeof(name), "/scene_%03d.jpg", i);
    std::string path = dir + name;
    std::vector<uchar> bytes;
    EDGEQ_CHECK(cv::imencode(".jpg", synthetic_scene(i, seed), bytes), "cannot encode a scene");
    write_file_atomic(path, std::string(bytes.begin(), bytes.end()));
    paths.push_back(path);
  }
  return paths;
}

}  // namespace edgeq
