#pragma once
// One registration function per bound area, called by module.cpp.
#include <pybind11/pybind11.h>

namespace libsched::python {

void register_weight(pybind11::module_& m);
void register_run(pybind11::module_& m);
void register_kernel(pybind11::module_& m);
void register_theory(pybind11::module_& m);
void register_measure(pybind11::module_& m);
void register_system(pybind11::module_& m);
void register_scenario(pybind11::module_& m);

} // namespace libsched::python
