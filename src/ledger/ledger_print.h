// Human-readable views of the ledger for `edgeq ledger list | show | diff`.
#pragma once
#include <ostream>
#include <vector>

#include "ledger/ledger.h"

namespace edgeq {

// One line per run: id, time, kind, tag, model hash, and the run's first kind columns.
void print_run_list(LedgerDb& ledger, const std::vector<LedgerRun>& runs, std::ostream& os);
// Everything about one run: fields, options, metrics.
void print_run(const LedgerRun& run, std::ostream& os);
// The metrics of two runs side by side with the change (a metric only one run has shows "-").
void print_run_diff(const LedgerRun& a, const LedgerRun& b, std::ostream& os);

}  // namespace edgeq
