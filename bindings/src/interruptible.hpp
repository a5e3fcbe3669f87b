#pragma once
// Running the model from Python: without the GIL, and stoppable with Ctrl-C.
#include <atomic>
#include <libsched/io/interrupt.hpp>
#include <optional>
#include <pybind11/pybind11.h>

namespace libsched::python {

// Calls run(flag) without the GIL; run stops the model once *flag reads true (flag may be
// nullptr) and returns whether it stopped early, which raises KeyboardInterrupt here. Ctrl-C
// sets the flag in the main thread only: Python delivers signals there alone.
template <class Run> void run_interruptible(Run run) {
    namespace py = pybind11;
    const py::object threading = py::module_::import("threading");
    std::optional<interrupt_guard> ctrl_c;
    const std::atomic<bool>* flag = nullptr;
    if (threading.attr("current_thread")().is(threading.attr("main_thread")())) {
        ctrl_c.emplace();
        flag = ctrl_c->flag();
    }
    bool interrupted = false;
    {
        py::gil_scoped_release no_gil; // the model touches no Python object
        interrupted = run(flag);
    }
    if (interrupted) {
        PyErr_SetNone(PyExc_KeyboardInterrupt);
        throw py::error_already_set();
    }
}

} // namespace libsched::python
