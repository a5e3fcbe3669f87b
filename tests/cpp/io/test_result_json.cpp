// io/result_json.hpp on the hand-made run of sample_run.hpp.
#include "sample_run.hpp"
#include <catch2/catch.hpp>
#include <libsched/io/result_json.hpp>
#include <libsched/model/fair_params_of.hpp>
#include <libsched/version.hpp>
#include <sstream>

using namespace libsched;

namespace test_result_json {

TEST_CASE("the JSON document has the scenario, every repetition and the summary") {
    const nlohmann::json j = to_json(sample_run::result(), sample_run::scenario());
    CHECK(j["scenario"] == "sample");
    CHECK_FALSE(j.contains("machine"));
    CHECK(j["window"]["end"] == nsec_per_sec);
    CHECK(j["reference"] == "b");
    REQUIRE(j["repetitions"].size() == 3);

    const nlohmann::json& rep = j["repetitions"][1];
    CHECK(rep["model"]["seed"] == 2);
    CHECK(rep["model"]["events"] == 1000);
    REQUIRE(rep["tasks"].size() == 3);
    const nlohmann::json& a0 = rep["tasks"][0];
    CHECK(a0["name"] == "a.0");
    CHECK(a0["stat_utime_start"] == 5);
    CHECK(a0["stat_utime"] == 35); // the window's delta
    CHECK(a0["exited"].is_null());
    CHECK(a0["wakeup_latency"]["count"] == 0);
    CHECK(a0["wakeup_latency"]["p99"].is_null());
    CHECK(a0["nr_migrations"] == 3);
    CHECK(a0["window_nr_migrations"] == 2);
    const nlohmann::json& b = j["repetitions"][0]["tasks"][2];
    CHECK(b["exited"] == 900'000'000);
    CHECK(b["wakeup_latency"]["count"] == 2);
    CHECK(b["wakeup_latency"]["max"] == 3'000);
    CHECK(b["wakeup_latency"]["p50"] == 1'000);
    CHECK(b["wakeup_latency"]["p90"] == 3'000);
    CHECK(b["wakeup_latency"]["p99_9"] == 3'000);
    CHECK(rep["cpus"][0]["nr_switches"] == 500);
    CHECK(rep["cpus"][0]["model"]["irq"] == 0);
    // Observables at the top of a task, the model's tick samples below "model".
    CHECK_FALSE(a0.contains("utime_ticks"));
    CHECK(a0["model"]["utime_ticks"] == 0);

    REQUIRE(j["summary"].size() == 2);
    CHECK(j["summary"][0]["entry"] == "a");
    CHECK(j["summary"][0]["share"].get<double>() == Approx(0.65));
    CHECK(j["summary"][0]["ratio"].get<double>() == Approx(7.0 / 3));
    CHECK(j["summary"][0]["ru_ratio"].get<double>() == Approx(6));
    CHECK(j["summary"][1]["nvcsw_per_s"].get<double>() == Approx(20));
    CHECK_FALSE(j.contains("measured"));
    CHECK_FALSE(j.contains("error"));
}

TEST_CASE("the provenance names the model, its release and every parameter in effect") {
    scenario sc = sample_run::scenario();
    sc.machine.online_cpus = 8;
    sc.machine.features["run_to_parity"] = false;
    sc.machine.tick_latency = {distribution::kind::uniform, 10'000, 30'000};
    sc.machine.sleep_cost = distribution{distribution::kind::constant, 12'000};
    run_result r = sample_run::result();
    r.provenance = simulated_provenance(sc, make_fair_params(sc.machine), 41);
    const nlohmann::json p = to_json(r, sc)["provenance"];
    CHECK(p["source"] == "simulated");
    CHECK(p["producer"] == "libsched");
    CHECK(p["producer_version"] == LIBSCHED_VERSION_STRING);
    CHECK(p["kernel"] == "6.8");
    CHECK(p["scheduler"] == "eevdf");
    CHECK(p["hz"] == 250);
    CHECK(p["cpus"] == 1);
    CHECK(p["online_cpus"] == 8);
    CHECK(p["tunables"]["factor"] == 4);
    CHECK(p["tunables"]["base_slice_ns"] == 3'000'000); // 0.75 ms x (1 + log2 8)
    CHECK_FALSE(p["tunables"].contains("latency_ns"));  // old CFS only
    // Every feature of 6.8 with its value, the override applied; none 6.8 lacks.
    CHECK(p["features"]["run_to_parity"] == false);
    CHECK(p["features"]["place_lag"] == true);
    CHECK_FALSE(p["features"].contains("delay_dequeue")); // 6.12+
    CHECK_FALSE(p["features"].contains("gentle_fair_sleepers"));
    CHECK(p["irq_time_accounting"] == true);
    CHECK(p["preempt"] == "none");
    CHECK(p["host_name"].is_null());
    CHECK(p["model"]["calc_delta"] == "inverse");
    CHECK(p["model"]["resched_latency"] == 1'000);
    CHECK(p["model"]["tick_irq"] == 2'000);
    CHECK(p["model"]["sleep_cost"] == nlohmann::json{{"dist", "constant"}, {"value", 12'000}});
    CHECK(p["model"]["seed"] == 41);
    CHECK(p["model"]["tick_latency"] ==
          nlohmann::json{{"dist", "uniform"}, {"low", 10'000}, {"high", 30'000}});
    CHECK(p["model"]["newidle_ratio"].is_null()); // 6.8 has no NI_RANDOM

    // NI_RANDOM's starting rate of each CPU: sd_init()'s 512, or the scenario's.
    scenario two = sc;
    two.machine.cpus = 2;
    two.machine.kernel = {6, 19};
    const auto rates = [&](std::vector<int> set) {
        two.machine.newidle_ratio = std::move(set);
        r.provenance = simulated_provenance(two, make_fair_params(two.machine), 41);
        return to_json(r, two)["provenance"]["model"]["newidle_ratio"];
    };
    CHECK(rates({}) == nlohmann::json{512, 512});
    CHECK(rates({30}) == nlohmann::json{30, 30});
    CHECK(rates({0, 1024}) == nlohmann::json{0, 1024});

    sc.machine.kernel = {5, 15};
    r.provenance = simulated_provenance(sc, make_fair_params(sc.machine), 41);
    const nlohmann::json cfs = to_json(r, sc)["provenance"]["tunables"];
    CHECK(cfs["latency_ns"] == 24'000'000);
    CHECK(cfs["sched_nr_latency"] == 8);
    CHECK_FALSE(cfs.contains("base_slice_ns"));
}

TEST_CASE("measured values bring the prediction's error") {
    scenario sc = sample_run::scenario();
    sc.measured.source = "notes";
    sc.measured.share = {{"a", 0.60}};
    sc.measured.ratio = {{"a", 2.0}};
    const nlohmann::json j = to_json(sample_run::result(), sc);
    CHECK(j["measured"]["source"] == "notes");
    CHECK(j["measured"]["share"]["a"] == 0.60);
    CHECK(j["error"]["share"]["a"].get<double>() == Approx(5.0));
    CHECK(j["error"]["ratio"]["a"].get<double>() == Approx(100.0 / 6));
    CHECK(j["measured"]["tolerance"]["share"].is_null());
    CHECK(j["within_tolerance"]["share"]["a"].is_null());

    sc.measured.tolerance.share = 0.06; // +-6 points: +5 is within
    const nlohmann::json judged = to_json(sample_run::result(), sc);
    CHECK(judged["measured"]["tolerance"]["share"] == 0.06);
    CHECK(judged["within_tolerance"]["share"]["a"] == true);
    CHECK(judged["within_tolerance"]["ratio"]["a"].is_null());

    const nlohmann::json empty = to_json(run_result{}, sc);
    CHECK(empty["repetitions"].empty());
    CHECK(empty["summary"].empty());
    CHECK(empty["error"]["share"]["a"].is_null());
}

TEST_CASE("the JSON document has per-CPU balancing counters and perf stat's totals") {
    const run_result r = sample_run::result();
    const scenario sc = sample_run::scenario();
    const nlohmann::json j = to_json(r, sc);
    const nlohmann::json& cpu = j["repetitions"][0]["cpus"][0];
    for (const char* key :
         {"lb_count", "lb_failed", "lb_gained", "alb_pushed", "newidle", "nohz_kicks"}) {
        INFO(key);
        CHECK(cpu["balance"][key] == 0);
        CHECK(cpu["window_balance"][key] == 0);
    }
    for (std::size_t i = 0; i < r.repetitions.size(); ++i) {
        const repetition_result& rep = r.repetitions[i];
        const nlohmann::json& perf = j["repetitions"][i]["perf_stat"];
        double cs = 0, wcs = 0, mig = 0, wclock = 0;
        for (const task_result& t : rep.tasks) {
            cs += static_cast<double>(t.nvcsw + t.nivcsw);
            wcs += static_cast<double>(t.window_nvcsw + t.window_nivcsw);
            mig += static_cast<double>(t.nr_migrations);
            wclock += static_cast<double>(t.window_runtime) / nsec_per_msec;
        }
        CHECK(perf["run"]["context_switches"].get<double>() == cs);
        CHECK(perf["window"]["context_switches"].get<double>() == wcs);
        CHECK(perf["run"]["cpu_migrations"].get<double>() == mig);
        CHECK(perf["window"]["task_clock_ms"].get<double>() == Approx(wclock));
        const double window_ms = static_cast<double>(sc.window_stop() - sc.window_start) /
                                 static_cast<double>(nsec_per_msec);
        CHECK(perf["window"]["cpus_utilized"].get<double>() == Approx(wclock / window_ms));
    }
    for (const char* span : {"window", "run"})
        for (const char* key :
             {"context_switches", "cpu_migrations", "task_clock_ms", "cpus_utilized"})
            CHECK(j["perf_stat"][span].contains(key));
}

TEST_CASE("RT tasks: the policy and priority of each task, the RT settings in effect") {
    scenario sc = sample_run::scenario();
    sc.machine.kernel = {6, 18};
    sc.machine.sched_rt_runtime = runtime_inf;
    run_result r = sample_run::result();
    r.repetitions[0].tasks[0].policy = sched_policy::fifo;
    r.repetitions[0].tasks[0].rt_priority = 80;
    r.provenance = simulated_provenance(sc, make_fair_params(sc.machine), 1);
    const nlohmann::json j = to_json(r, sc);
    CHECK(j["repetitions"][0]["tasks"][0]["policy"] == "fifo");
    CHECK(j["repetitions"][0]["tasks"][0]["rt_priority"] == 80);
    CHECK(j["repetitions"][0]["tasks"][1]["policy"] == "normal");
    CHECK(j["repetitions"][0]["tasks"][1]["rt_priority"] == 0);
    const nlohmann::json& t = j["provenance"]["tunables"];
    CHECK(t["sched_rt_runtime_us"] == -1);
    CHECK(t["sched_rt_period_us"] == 1'000'000);
    CHECK(t["sched_rr_timeslice_jiffies"] == 25);
    CHECK(t["fair_server_runtime_ns"] == 50'000'000);
}

TEST_CASE("write_json writes the text of to_json(...).dump() one task at a time") {
    const run_result r = sample_run::result();
    const scenario sc = sample_run::scenario();
    for (const int indent : {-1, 0, 2, 4}) {
        std::ostringstream streamed;
        write_json(streamed, r, sc, indent);
        CHECK(streamed.str() == to_json(r, sc).dump(indent));
    }
    // Nested as the element of an outer array, as the CLI writes several documents.
    std::ostringstream nested;
    nested << "[\n  ";
    write_json(nested, r, sc, 2, 1);
    nested << "\n]";
    CHECK(nested.str() == nlohmann::json::array({to_json(r, sc)}).dump(2));
    // Empty repetitions and task lists are [] as in dump().
    std::ostringstream empty;
    write_json(empty, run_result{}, sc, 2);
    CHECK(empty.str() == to_json(run_result{}, sc).dump(2));
}

TEST_CASE("a measured run leaves what user space cannot see null, and streams the same") {
    run_result r = sample_run::result();
    r.provenance.source = result_source::measured;
    r.provenance.preempt.reset(); // a host that does not show it
    const nlohmann::json j = to_json(r, sample_run::scenario());
    CHECK(j["provenance"]["source"] == "measured");
    CHECK(j["provenance"]["preempt"].is_null());
    const nlohmann::json& rep = j["repetitions"][0];
    CHECK(rep["model"].is_null());
    CHECK(rep["tasks"][2]["model"].is_null());
    CHECK(rep["tasks"][2]["wakeup_latency"].is_null());
    // Of the run delay /proc/PID/schedstat shows the waits' count and sum, not each one.
    const nlohmann::json& delay = rep["tasks"][2]["run_delay"];
    CHECK(delay["count"] == 4);
    CHECK(delay["sum"] == 100'000'000);
    CHECK(delay["mean"].get<double>() == Approx(25'000'000));
    CHECK(delay["p50"].is_null());
    CHECK(delay["max_at"].is_null());
    CHECK(j["summary"][1]["run_delay_share"].get<double>() == Approx(0.2));
    CHECK(rep["tasks"][2]["window_runtime"] == r.repetitions[0].tasks[2].window_runtime);
    CHECK(rep["cpus"][0]["nr_switches"].is_null());
    CHECK(rep["cpus"][0]["balance"].is_null());
    CHECK(rep["cpus"][0]["busy"] == r.repetitions[0].cpus[0].busy);
    CHECK(j["summary"][0]["wakeup_latency"].is_null());
    // The summary is the simulated run's: the same figures from the same tasks.
    CHECK(j["summary"][0]["share"].get<double>() == Approx(0.65));
    std::ostringstream streamed;
    write_json(streamed, r, sample_run::scenario(), -1);
    CHECK(nlohmann::json::parse(streamed.str()) == j);
}

} // namespace test_result_json
