#pragma once
// Everything of the library that needs only Boost's headers: the engine, the scheduler
// model, scenarios and their results, statistics. Left out on purpose: io/ (scenario
// files, JSON, reports and the CLI need toml++, nlohmann_json and CLI11; include
// <libsched/io/...> and link libsched::io) and every detail/ header.
#include <libsched/version.hpp>

#include <libsched/des/event_key.hpp>
#include <libsched/des/event_queue.hpp>
#include <libsched/des/member_call.hpp>
#include <libsched/des/random.hpp>
#include <libsched/des/simulator.hpp>
#include <libsched/des/timer.hpp>

#include <libsched/sched/calc_delta.hpp>
#include <libsched/sched/cfs.hpp>
#include <libsched/sched/cfs_rq.hpp>
#include <libsched/sched/core.hpp>
#include <libsched/sched/cputime.hpp>
#include <libsched/sched/deadline.hpp>
#include <libsched/sched/debug.hpp>
#include <libsched/sched/eevdf.hpp>
#include <libsched/sched/fair.hpp>
#include <libsched/sched/fair_params.hpp>
#include <libsched/sched/features.hpp>
#include <libsched/sched/flags.hpp>
#include <libsched/sched/idle.hpp>
#include <libsched/sched/kernel_version.hpp>
#include <libsched/sched/rq.hpp>
#include <libsched/sched/rt.hpp>
#include <libsched/sched/rt_rq.hpp>
#include <libsched/sched/sched_class.hpp>
#include <libsched/sched/sched_dl_entity.hpp>
#include <libsched/sched/sched_entity.hpp>
#include <libsched/sched/sched_policy.hpp>
#include <libsched/sched/sched_rt_entity.hpp>
#include <libsched/sched/task.hpp>
#include <libsched/sched/trace.hpp>
#include <libsched/sched/tunables.hpp>
#include <libsched/sched/types.hpp>
#include <libsched/sched/weight.hpp>

#include <libsched/scenario/duration_text.hpp>
#include <libsched/scenario/provenance.hpp>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/scenario/scenario_error.hpp>
#include <libsched/scenario/validate.hpp>

#include <libsched/model/fair_params_of.hpp>
#include <libsched/model/observe.hpp>
#include <libsched/model/simulate.hpp>
#include <libsched/model/system.hpp>
#include <libsched/model/workload.hpp>

#include <libsched/stats/comparison.hpp>
#include <libsched/stats/entry_summary.hpp>
#include <libsched/stats/summary.hpp>
#include <libsched/stats/theory.hpp>
