#include "eval/linear_models.h"

#include <cmath>

#include "core/error.h"
#include "core/interrupt.h"

namespace edgeq {
namespace {

// Row-wise softmax of logits.
Eigen::MatrixXd softmax_rows(const Eigen::MatrixXd& z) {
  Eigen::MatrixXd p = z;
  for (Eigen::Index i = 0; i < p.rows(); ++i) {
    const double m = p.row(i).maxCoeff();
    p.row(i) = (p.row(i).array() - m).exp().matrix();
    p.row(i) /= p.row(i).sum();
  }
  return p;
}

struct LossGrad {
  double loss = 0;
  Eigen::MatrixXd gw;
  Eigen::RowVectorXd gb;
};

LossGrad logistic_loss(const Eigen::MatrixXd& x, const Eigen::MatrixXd& onehot,
                       const Eigen::MatrixXd& w, const Eigen::RowVectorXd& b, double l2) {
  const double n = static_cast<double>(x.rows());
  Eigen::MatrixXd z = x * w;
  z.rowwise() += b;
  LossGrad r;
  for (Eigen::Index i = 0; i < z.rows(); ++i) {
    const double m = z.row(i).maxCoeff();
    const double lse = m + std::log((z.row(i).array() - m).exp().sum());
    r.loss += (lse - (z.row(i).array() * onehot.row(i).array()).sum()) / n;
  }
  r.loss += 0.5 * l2 * w.squaredNorm();
  const Eigen::MatrixXd d = (softmax_rows(z) - onehot) / n;
  r.gw = x.transpose() * d + l2 * w;
  r.gb = d.colwise().sum();
  return r;
}

}  // namespace

Standardizer Standardizer::fit(const Eigen::MatrixXd& x) {
  EDGEQ_CHECK(x.rows() > 0, "standardize: no rows");
  Standardizer s;
  s.mean = x.colwise().mean();
  s.scale = ((x.rowwise() - s.mean).array().square().colwise().mean()).sqrt().matrix();
  for (Eigen::Index j = 0; j < s.scale.size(); ++j)
    if (!(s.scale[j] > 1e-12)) s.scale[j] = 1;
  return s;
}

Eigen::MatrixXd Standardizer::apply(const Eigen::MatrixXd& x) const {
  return ((x.rowwise() - mean).array().rowwise() / scale.array()).matrix();
}

Eigen::VectorXd RidgeModel::predict(const Eigen::MatrixXd& x) const {
  return (x * w).array() + b;
}

RidgeModel fit_ridge(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, double l2) {
  EDGEQ_CHECK(x.rows() == y.size() && x.rows() > 0, "ridge: ", x.rows(), " rows, ", y.size(),
              " targets");
  EDGEQ_CHECK(l2 > 0, "ridge: the penalty must be positive");
  const Eigen::RowVectorXd mx = x.colwise().mean();
  const double my = y.mean();
  const Eigen::MatrixXd xc = x.rowwise() - mx;
  const Eigen::VectorXd yc = y.array() - my;
  RidgeModel m;
  if (xc.rows() < xc.cols()) {  // w = Xc' (Xc Xc' + l2 I)^-1 yc
    Eigen::MatrixXd k = xc * xc.transpose();
    k.diagonal().array() += l2;
    m.w = xc.transpose() * k.ldlt().solve(yc);
  } else {
    Eigen::MatrixXd a = xc.transpose() * xc;
    a.diagonal().array() += l2;
    m.w = a.ldlt().solve(xc.transpose() * yc);
  }
  m.b = my - mx.dot(m.w);
  return m;
}

Eigen::MatrixXd LogisticModel::probabilities(const Eigen::MatrixXd& x) const {
  Eigen::MatrixXd z = x * w;
  z.rowwise() += b;
  return softmax_rows(z);
}

std::vector<int> LogisticModel::predict(const Eigen::MatrixXd& x) const {
  const Eigen::MatrixXd p = probabilities(x);
  std::vector<int> out(p.rows());
  for (Eigen::Index i = 0; i < p.rows(); ++i) {
    Eigen::Index k = 0;
    p.row(i).maxCoeff(&k);
    out[i] = static_cast<int>(k);
  }
  return out;
}

LogisticModel fit_logistic(const Eigen::MatrixXd& x, const std::vector<int>& y, int classes,
                           double l2, int max_iterations, double tol) {
  EDGEQ_CHECK(x.rows() == static_cast<Eigen::Index>(y.size()) && x.rows() > 0,
              "logistic: ", x.rows(), " rows, ", y.size(), " labels");
  EDGEQ_CHECK(classes >= 2, "logistic: at least two classes");
  EDGEQ_CHECK(l2 > 0, "logistic: the penalty must be positive");
  const Eigen::Index n = x.rows(), d = x.cols();
  Eigen::MatrixXd onehot = Eigen::MatrixXd::Zero(n, classes);
  for (Eigen::Index i = 0; i < n; ++i) {
    EDGEQ_CHECK(y[i] >= 0 && y[i] < classes, "logistic: label ", y[i], " outside 0..", classes - 1);
    onehot(i, y[i]) = 1;
  }
  // Lipschitz bound of the gradient: softmax's Hessian is at most 1/2 in the operator norm; the
  // intercept is an extra column of ones.
  Eigen::MatrixXd xa(n, d + 1);
  xa << x, Eigen::VectorXd::Ones(n);
  const Eigen::MatrixXd gram = xa * xa.transpose();  // n x n: ||X||_2^2 is its top eigenvalue
  const double sigma2 =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(gram).eigenvalues().maxCoeff();
  const double step = 1.0 / (0.5 * sigma2 / static_cast<double>(n) + l2);

  LogisticModel m;
  m.w = Eigen::MatrixXd::Zero(d, classes);
  m.b = Eigen::RowVectorXd::Zero(classes);
  Eigen::MatrixXd vw = m.w;
  Eigen::RowVectorXd vb = m.b;
  double t = 1;
  double last_loss = logistic_loss(x, onehot, m.w, m.b, l2).loss;
  for (int it = 1; it <= max_iterations; ++it) {
    throw_if_interrupted();  // a front end's Ctrl-C / SIGTERM: fits can take minutes
    const LossGrad g = logistic_loss(x, onehot, vw, vb, l2);
    if (t == 1 && std::max(g.gw.cwiseAbs().maxCoeff(), g.gb.cwiseAbs().maxCoeff()) < tol) {
      m.converged = true;  // at the last iterate (no momentum): its gradient vanishes
      break;
    }
    const Eigen::MatrixXd nw = vw - step * g.gw;
    const Eigen::RowVectorXd nb = vb - step * g.gb;
    const LossGrad at_new = logistic_loss(x, onehot, nw, nb, l2);
    m.iterations = it;
    const double gmax = std::max(at_new.gw.cwiseAbs().maxCoeff(), at_new.gb.cwiseAbs().maxCoeff());
    if (at_new.loss > last_loss) {  // restart the momentum from the last iterate
      vw = m.w;
      vb = m.b;
      t = 1;
      continue;
    }
    const double t_next = 0.5 * (1 + std::sqrt(1 + 4 * t * t));
    vw = nw + ((t - 1) / t_next) * (nw - m.w);
    vb = nb + ((t - 1) / t_next) * (nb - m.b);
    m.w = nw;
    m.b = nb;
    t = t_next;
    last_loss = at_new.loss;
    if (gmax < tol) {
      m.converged = true;
      break;
    }
  }
  return m;
}

}  // namespace edgeq
