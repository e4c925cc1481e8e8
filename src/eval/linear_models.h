// Linear models for task probes (Eigen): standardization, ridge regression and multinomial
// logistic regression with an L2 penalty. Intercepts are never penalized.
//
//   ridge:     minimize ||y - X w - b||^2 + l2 ||w||^2, solved in closed form on centred data
//              (w = (Xc'Xc + l2 I)^-1 Xc'yc, or through the n x n system when n < d).
//   logistic:  minimize mean_i CE(softmax(W' x_i + b), y_i) + l2 / 2 ||W||_F^2, W: d x K, by
//              accelerated gradient descent (Nesterov, step 1/L with L the Lipschitz bound
//              0.5 ||X||_2^2 / n + l2, restarted when the loss rises) until the gradient's max
//              entry is below tol. Deterministic.
#pragma once
#include <Eigen/Dense>
#include <vector>

namespace edgeq {

// Per-column mean and standard deviation (population) from training rows; columns with zero
// deviation are left centred, not scaled.
struct Standardizer {
  Eigen::RowVectorXd mean, scale;
  static Standardizer fit(const Eigen::MatrixXd& x);
  Eigen::MatrixXd apply(const Eigen::MatrixXd& x) const;
};

struct RidgeModel {
  Eigen::VectorXd w;
  double b = 0;
  Eigen::VectorXd predict(const Eigen::MatrixXd& x) const;
};
RidgeModel fit_ridge(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, double l2);

struct LogisticModel {
  Eigen::MatrixXd w;     // d x K
  Eigen::RowVectorXd b;  // K
  int iterations = 0;
  bool converged = false;
  Eigen::MatrixXd probabilities(const Eigen::MatrixXd& x) const;  // n x K
  std::vector<int> predict(const Eigen::MatrixXd& x) const;       // argmax (lowest on ties)
};
// Labels in 0..classes-1.
LogisticModel fit_logistic(const Eigen::MatrixXd& x, const std::vector<int>& y, int classes,
                           double l2, int max_iterations = 20000, double tol = 1e-7);

}  // namespace edgeq
