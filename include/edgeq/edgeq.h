// edgeq's public C++ API: include this one header (or the ones it includes) and link edgeq::edgeq.
//
//   edgeq::Model m = edgeq::Model::load("yolo11n-pose.onnx");
//   edgeq::Calibration cal = edgeq::calibrate(m, edgeq::ImageSource::from_path("calib/"));
//   edgeq::QuantizeOptions o;
//   o.scheme = edgeq::Scheme::kW8A16;  // or edgeq::parse<edgeq::Scheme>("w8a16")
//   edgeq::quantize(m, cal.stats, o).save("q.onnx");
//
// Every failure is an edgeq::Error with a one-line message.
#pragma once
#include "edgeq/arm_stats.h"
#include "edgeq/bench.h"
#include "edgeq/calibrate.h"
#include "edgeq/calibrate_shard.h"
#include "edgeq/choices.h"
#include "edgeq/compare.h"
#include "edgeq/data.h"
#include "edgeq/detect.h"
#include "edgeq/doctor.h"
#include "edgeq/error.h"
#include "edgeq/exec_options.h"
#include "edgeq/images.h"
#include "edgeq/inert_options.h"
#include "edgeq/infer.h"
#include "edgeq/ledger.h"
#include "edgeq/machine.h"
#include "edgeq/mixed_set.h"
#include "edgeq/model.h"
#include "edgeq/model_tools.h"
#include "edgeq/probe.h"
#include "edgeq/progress.h"
#include "edgeq/quantize.h"
#include "edgeq/quantize_io.h"
#include "edgeq/report_json.h"
#include "edgeq/session.h"
#include "edgeq/study.h"
#include "edgeq/warning.h"
