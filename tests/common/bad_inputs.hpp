#pragma once
// A corpus of malformed scenarios: syntax, unknown and misspelt keys at every level, wrong
// types, out-of-range and overflowing values, contradictory settings and hostile names,
// each with the field its first error must name. test_bad_inputs checks the errors; the
// fuzz seeds (fuzz_seeds) start from them.
#include <string>
#include <vector>

namespace bad_inputs {

struct bad_input {
    std::string text;
    const char* field; // the field the first error names
};

inline const std::vector<bad_input> corpus = {
    // misspelt and unknown keys, at every level
    {"lenght = \"1s\"\n[[tasks]]\nname = \"a\"\n", "lenght"},
    {"[machine]\ncpu = 2\n[[tasks]]\nname = \"a\"\n", "machine.cpu"},
    {"[[tasks]]\nname = \"a\"\nnicee = 1\n", "tasks[0].nicee"},
    {"[[tasks]]\nname = \"a\"\nbehaviour = { type = \"periodic\", run = \"1ms\", slep = \"1ms\" "
     "}\n",
     "tasks[0].behaviour.sleep"},
    {"[[tasks]]\nname = \"a\"\nbehaviour = { type = \"random\", run = { dist = \"uniform\", low "
     "= \"1ms\", hihg = \"2ms\" }, sleep = \"1ms\" }\n",
     "tasks[0].behaviour.run.high"},
    {"[[tasks]]\nname = \"a\"\nbehaviour = { type = \"steps\", steps = [{ run = \"1ms\", "
     "slep = \"1ms\" }] }\n",
     "tasks[0].behaviour.steps[0].slep"},
    {"[[tasks]]\nname = \"a\"\nbehaviour = { type = \"steps\", phases = [{ lop = 2, steps = "
     "[{ run = \"1ms\" }] }] }\n",
     "tasks[0].behaviour.phases[0].lop"},
    {"[[tasks]]\nname = \"a\"\nrenice = [{ at = \"1ms\", nice = 1, when = 2 }]\n",
     "tasks[0].renice[0].when"},
    {"[machine]\n[machine.features]\nrun_to_parityy = true\n[[tasks]]\nname = \"a\"\n",
     "machine.features.run_to_parityy"},
    {"[[cgroups]]\nname = \"g\"\nshare = 10\n[[tasks]]\nname = \"a\"\n", "cgroups[0].share"},
    {"[[sessions]]\nname = \"s\"\nnicee = 1\n[[tasks]]\nname = \"a\"\n", "sessions[0].nicee"},
    {"window = { start = \"1s\", stop = \"2s\" }\n[[tasks]]\nname = \"a\"\n", "window.stop"},
    {"[measured]\nshares = { a = 1.0 }\n[[tasks]]\nname = \"a\"\n", "measured.shares"},
    // wrong types
    {"length = 10\n[[tasks]]\nname = \"a\"\nnice = \"five\"\n", "tasks[0].nice"},
    {"[machine]\ncpus = \"two\"\n[[tasks]]\nname = \"a\"\n", "machine.cpus"},
    {"[machine]\nkernel = 6.10\n[[tasks]]\nname = \"a\"\n", "machine.kernel"},
    {"[machine]\nhz = 250.5\n[[tasks]]\nname = \"a\"\n", "machine.hz"},
    {"[machine]\nautogroup = \"yes\"\n[[tasks]]\nname = \"a\"\n", "machine.autogroup"},
    {"[[tasks]]\nname = \"a\"\naffinity = 0\n", "tasks[0].affinity"},
    {"[[tasks]]\nname = \"a\"\nstart = \"soon\"\n", "tasks[0].start"},
    {"[[tasks]]\nname = \"a\"\nbehaviour = 3\n", "tasks[0].behaviour"},
    {"tasks = 1\n", "tasks"},
    {"[tasks]\nname = \"a\"\n", "tasks"},
    {"[[cgroups]]\nname = \"g\"\nidle = 1\n[[tasks]]\nname = \"a\"\n", "cgroups[0].idle"},
    {"[[tasks]]\nname = 7\n", "tasks[0].name"},
    {"seed = -1\n[[tasks]]\nname = \"a\"\n", "seed"},
    // out of range
    {"[[tasks]]\nname = \"a\"\nnice = 42\n", "tasks[0].nice"},
    {"[[tasks]]\nname = \"a\"\nnice = -100\n", "tasks[0].nice"},
    {"[machine]\ncpus = 0\n[[tasks]]\nname = \"a\"\n", "machine.cpus"},
    {"[machine]\ncpus = 100000\n[[tasks]]\nname = \"a\"\n", "machine.cpus"},
    {"[machine]\nhz = 123\n[[tasks]]\nname = \"a\"\n", "machine.hz"},
    {"[machine]\nkernel = \"4.19\"\n[[tasks]]\nname = \"a\"\n", "machine.kernel"},
    {"[machine]\nkernel = \"banana\"\n[[tasks]]\nname = \"a\"\n", "machine.kernel"},
    {"[machine]\ncpus = 2\n[[tasks]]\nname = \"a\"\naffinity = [2]\n", "tasks[0].affinity"},
    {"[[tasks]]\nname = \"a\"\ncount = 0\n", "tasks[0].count"},
    {"[[tasks]]\nname = \"a\"\ncount = 1000000\n", "tasks[0].count"},
    {"repetitions = 0\n[[tasks]]\nname = \"a\"\n", "repetitions"},
    {"length = \"0s\"\n[[tasks]]\nname = \"a\"\n", "length"},
    {"length = \"-1s\"\n[[tasks]]\nname = \"a\"\n", "length"},
    {"length = \"1s\"\n[[tasks]]\nname = \"a\"\nstart = \"2s\"\n", "tasks[0].start"},
    {"[[tasks]]\nname = \"a\"\nsystem_share = 1.5\n", "tasks[0].system_share"},
    {"[[tasks]]\nname = \"a\"\nrt_priority = 10\n", "tasks[0].rt_priority"},
    {"[[tasks]]\nname = \"a\"\npolicy = \"fifo\"\nrt_priority = 100\n", "tasks[0].rt_priority"},
    {"[[tasks]]\nname = \"a\"\npolicy = \"realtime\"\n", "tasks[0].policy"},
    {"[machine]\ncgroup_version = 1\n[[cgroups]]\nname = \"g\"\nshares = -5\n" + std::string{} +
         "[[tasks]]\nname = \"a\"\n",
     "cgroups[0].shares"},
    {"[[cgroups]]\nname = \"g\"\nweight = 20000\n[[tasks]]\nname = \"a\"\n", "cgroups[0].weight"},
    {"[[cgroups]]\nname = \"g\"\nweight_nice = 30\n[[tasks]]\nname = \"a\"\n",
     "cgroups[0].weight_nice"},
    {"[machine]\nkernel = \"6.6\"\n[[cgroups]]\nname = \"g\"\nquota = \"0.5ms\"\n[[tasks]]\nname "
     "= \"a\"\n",
     "cgroups[0].quota"},
    {"[machine]\nkernel = \"6.6\"\n[[cgroups]]\nname = \"g\"\nquota = \"10ms\"\nperiod = "
     "\"2s\"\n[[tasks]]\nname = \"a\"\n",
     "cgroups[0].period"},
    {"[[sessions]]\nname = \"s\"\nnice = 20\n[[tasks]]\nname = \"a\"\nsession = \"s\"\n",
     "sessions[0].nice"},
    {"[machine]\ncgroup_version = 3\n[[tasks]]\nname = \"a\"\n", "machine.cgroup_version"},
    {"[machine]\ntick_irq = \"1s\"\n[[tasks]]\nname = \"a\"\n", "machine.tick_irq"},
    {"[machine]\nipi_latency = \"4ms\"\n[[tasks]]\nname = \"a\"\n", "machine.ipi_latency"},
    {"[machine]\ntick_latency = \"-2us\"\n[[tasks]]\nname = \"a\"\n", "machine.tick_latency"},
    {"[machine]\ntick_latency = { dist = \"uniform\", low = \"10us\", high = \"4ms\" }\n"
     "[[tasks]]\nname = \"a\"\n",
     "machine.tick_latency.high"},
    {"[machine]\ntick_latency = { dist = \"uniform\", low = \"30us\", high = \"10us\" }\n"
     "[[tasks]]\nname = \"a\"\n",
     "machine.tick_latency"},
    {"[machine]\ntick_latency = { dist = \"exponential\", mean = \"20us\" }\n[[tasks]]\nname = "
     "\"a\"\n",
     "machine.tick_latency"},
    {"[machine]\ntick_latency = { dist = \"uniform\", low = \"10us\" }\n[[tasks]]\nname = "
     "\"a\"\n",
     "machine.tick_latency.high"},
    {"[machine]\nidle_exit_latency = \"-1us\"\n[[tasks]]\nname = \"a\"\n",
     "machine.idle_exit_latency"},
    {"[machine]\nsleep_cost = \"5ms\"\n[[tasks]]\nname = \"a\"\n", "machine.sleep_cost"},
    {"[machine]\nsleep_cost = { dist = \"exponential\", mean = \"10us\" }\n[[tasks]]\nname = "
     "\"a\"\n",
     "machine.sleep_cost"},
    {"[machine]\ntimer_slack = \"-1ns\"\n[[tasks]]\nname = \"a\"\n", "machine.timer_slack"},
    {"[[tasks]]\nname = \"a\"\ntimer_slack = \"-5us\"\n", "tasks[0].timer_slack"},
    {"[[tasks]]\nname = \"a\"\ncpu_clock_reads = \"500ns\"\n", "tasks[0].cpu_clock_reads"},
    {"[[tasks]]\nname = \"a\"\ncpu_clock_reads = \"0s\"\n", "tasks[0].cpu_clock_reads"},
    {"[[tasks]]\nname = \"a\"\ncpu_clock_reads = true\n", "tasks[0].cpu_clock_reads"},
    // overflowing times
    {"length = \"1s\"\n[[tasks]]\nname = \"a\"\nlifetime = \"9223372036.854s\"\n",
     "tasks[0].lifetime"},
    {"length = \"1s\"\n[[tasks]]\nname = \"a\"\nbehaviour = { type = \"periodic\", run = \"1ms\", "
     "sleep = \"9223372036.854s\" }\n",
     "tasks[0].behaviour.sleep"},
    {"length = \"99999999999s\"\n[[tasks]]\nname = \"a\"\n", "length"},
    {"[[tasks]]\nname = \"a\"\nnice = 99999999999999999999\n", ""}, // a TOML syntax error
    // contradictory settings
    {"[[tasks]]\nname = \"a\"\nbehaviour = { type = \"periodic\", run = \"1ms\", sleep = \"1ms\", "
     "period = \"5ms\" }\n",
     "tasks[0].behaviour.period"},
    {"[[tasks]]\nname = \"a\"\n[[tasks]]\nname = \"a\"\n", "tasks[1].name"},
    {"[[tasks]]\nname = \"a.b\"\n", "tasks[0].name"},
    {"[[tasks]]\nname = \"a\"\ncgroup = \"nowhere\"\n", "tasks[0].cgroup"},
    {"[[cgroups]]\nname = \"p\"\n[[cgroups]]\nname = \"p/c\"\n[[tasks]]\nname = \"a\"\ncgroup = "
     "\"p\"\n",
     "tasks[0].cgroup"},
    {"[machine]\ncgroup_version = 2\n[[cgroups]]\nname = \"g\"\nshares = 512\n[[tasks]]\nname = "
     "\"a\"\n",
     "cgroups[0].shares"},
    {"[[cgroups]]\nname = \"g\"\nweight = 100\nweight_nice = 0\n[[tasks]]\nname = \"a\"\n",
     "cgroups[0].weight_nice"},
    {"[[tasks]]\nname = \"a\"\ncpuset = \"fast\"\n", "tasks[0].cpuset"},
    {"[[tasks]]\nname = \"a\"\nafter = \"b\"\n", "tasks[0].after"},
    {"[machine]\nkernel = \"6.6\"\n[[tasks]]\nname = \"a\"\nslice = \"1ms\"\n", "tasks[0].slice"},
    {"[machine]\nkernel = \"5.10\"\n[[cgroups]]\nname = \"g\"\nidle = true\n[[tasks]]\nname = "
     "\"a\"\n",
     "cgroups[0].idle"},
    {"reference = \"z\"\n[[tasks]]\nname = \"a\"\n", "reference"},
    // hostile names
    {"[[tasks]]\nname = \"a\\u001b[2J\"\n", "tasks[0].name"},
    {"[[tasks]]\nname = \"line\\nbreak\"\n", "tasks[0].name"},
    {"[[cgroups]]\nname = \"../etc\"\n[[tasks]]\nname = \"a\"\n", "cgroups[0].name"},
    {"[[cgroups]]\nname = \"g\\u0007\"\n[[tasks]]\nname = \"a\"\n", "cgroups[0].name"},
    {"[[tasks]]\nname = \"\"\n", "tasks[0].name"},
    // syntax
    {"[[tasks]\nname = \"a\"\n", ""},
    {"[[tasks]]\nname = \"a\n", ""},
    {"[[tasks]]\nname = \"a\"\nname = \"b\"\n", ""},
    {"", "tasks"},
};

} // namespace bad_inputs
