// The YOLO11 backbone/neck modules (ultralytics/nn/modules/block.py), written as ONNX nodes in
// the order and with the names an Ultralytics export gives them. Channel arguments are the
// already-scaled numbers that parse_model hands to each module.
#pragma once
#include <cstdint>

#include "zoo/ultra_builder.h"

namespace edgeq::zoo {

// Bottleneck(c1, c2, shortcut, k=(k1, k2), e): cv1 k1 -> c2*e, cv2 k2 -> c2, residual add
// when shortcut and c1 == c2.
Feat bottleneck(UltraBuilder& b, const Scope& s, const Feat& x, int64_t c2, bool shortcut, int k1,
                int k2, double e);
// C3k(c1, c2, n, shortcut, e=0.5, k=3): cv3(cat(m(cv1(x)), cv2(x))).
Feat c3k(UltraBuilder& b, const Scope& s, const Feat& x, int64_t c2, int n, bool shortcut);
// C3k2(c1, c2, n, c3k, e): C2f layout (cv1, Split, n blocks, Concat, cv2) whose blocks are
// C3k (c3k true) or Bottleneck(e=0.5).
Feat c3k2(UltraBuilder& b, const Scope& s, const Feat& x, int64_t c2, int n, bool use_c3k,
          double e);
// SPPF(c1, c2, k=5): cv1 -> c1/2, three chained MaxPool k (scopes m, m_1, m_2), Concat, cv2.
Feat sppf(UltraBuilder& b, const Scope& s, const Feat& x, int64_t c2, int k);
// C2PSA(c1, c2, n, e=0.5): cv1, Split, n PSABlocks (num_heads = c/64) on the second half,
// Concat, cv2.
Feat c2psa(UltraBuilder& b, const Scope& s, const Feat& x, int64_t c2, int n);
// nn.Upsample(scale 2, nearest) as the exporter writes it: Resize with scales [1, 1, 2, 2].
Feat upsample2x(UltraBuilder& b, const Scope& s, const Feat& x);

}  // namespace edgeq::zoo
