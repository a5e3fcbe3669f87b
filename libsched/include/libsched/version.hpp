#pragma once
// Single source of the library version; CMake and pyproject read it from here.
#define LIBSCHED_VERSION_MAJOR 0
#define LIBSCHED_VERSION_MINOR 1
#define LIBSCHED_VERSION_PATCH 0
#define LIBSCHED_VERSION_STRING "0.1.0"
