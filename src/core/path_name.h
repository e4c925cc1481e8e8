// Paths with a NUL byte refused: declared in the public header edgeq/files.h (the front ends'
// door); this name stays for the library's own files.
#pragma once
#include "edgeq/files.h"
