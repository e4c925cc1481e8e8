// The library's warnings: something skipped or doubtful that does not stop the call (an image of
// a folder that cannot be read, an undecodable video frame, a video that ends before the frames
// its header declares). They go to one handler per process, as llama.cpp's log lines go to the
// callback of llama_log_set: by default one line "edgeq: warning: ..." on stderr, with control
// and bidi characters escaped; a front end that draws its own output installs its handler.
#pragma once
#include <functional>
#include <string>

namespace edgeq {

// Called on the thread that warns, one call at a time (the library holds a lock around it), with
// the message as the library wrote it: a quoted error is escaped as every edgeq::Error is, a
// file name may not be, so a handler that prints escapes what it prints.
using WarningHandler = std::function<void(const std::string& message)>;

// Installs `handler` for every later warning (an empty one: the default, stderr) and returns the
// one it replaces (empty when that was the default).
WarningHandler set_warning_handler(WarningHandler handler);

}  // namespace edgeq
