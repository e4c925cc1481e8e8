// Progress lines on stderr: declared in the public header edgeq/progress_bar.h (the front ends' door); this
// name stays for the library's own files.
#pragma once
#include "edgeq/progress_bar.h"
