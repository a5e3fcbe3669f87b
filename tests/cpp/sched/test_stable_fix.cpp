// sched/stable_fix.hpp: a release's patch level selects the rules stable updates took, as
// the stable review mails list them (first point release of each series).
#include <catch2/catch.hpp>
#include <libsched/sched/fair_params.hpp>
#include <libsched/sched/features.hpp>
#include <libsched/sched/stable_fix.hpp>
#include <libsched/sched/tunables.hpp>

using namespace libsched;

namespace test_stable_fix {

TEST_CASE("a fix is in its mainline release and later, and in a series from its point release") {
    CHECK(carries({6, 15}, idle_loses_protection));
    CHECK(carries({6, 18}, idle_loses_protection));
    CHECK_FALSE(carries({6, 12}, idle_loses_protection));
    CHECK_FALSE(carries({6, 12, 22}, idle_loses_protection));
    CHECK(carries({6, 12, 23}, idle_loses_protection));
    CHECK(carries({6, 13, 11}, idle_loses_protection));
    CHECK(carries({6, 14, 2}, idle_loses_protection));
    // No 6.6.y backport was found: every 6.6 patch level lacks it.
    CHECK_FALSE(carries({6, 6, 120}, idle_loses_protection));
    CHECK_FALSE(carries({5, 15, 190}, idle_loses_protection));
    CHECK(series_backport({6, 12, 1}, next_buddy_not_delayed) == kernel_version{6, 12, 7});
    CHECK_FALSE(series_backport({6, 11, 9}, next_buddy_not_delayed));
}

TEST_CASE("the 0.70 ms base slice follows the patch level (2ae891b82695)") {
    // normalized_sysctl_sched_base_slice: 0.70 ms from 6.15 and from 6.6.93, 6.12.31 and
    // 6.14.9; 0.75 ms before, and in 6.13 (no backport: 6.13.y had ended).
    CHECK(normalized_base_slice({6, 6}) == 750'000);
    CHECK(normalized_base_slice({6, 6, 92}) == 750'000);
    CHECK(normalized_base_slice({6, 6, 93}) == 700'000);
    CHECK(normalized_base_slice({6, 12, 30}) == 750'000);
    CHECK(normalized_base_slice({6, 12, 31}) == 700'000);
    CHECK(normalized_base_slice({6, 13, 12}) == 750'000);
    CHECK(normalized_base_slice({6, 14, 8}) == 750'000);
    CHECK(normalized_base_slice({6, 14, 9}) == 700'000);
    CHECK(normalized_base_slice({6, 15}) == 700'000);
    // 8 online CPUs: factor 4, so 3 ms before the fix and 2.8 ms with it.
    CHECK(default_tunables({6, 12, 30}, 8, 250).base_slice == 3'000'000);
    CHECK(default_tunables({6, 12, 31}, 8, 250).base_slice == 2'800'000);
}

TEST_CASE("PICK_BUDDY exists from 6.14 and from the point releases that took 2a77e4be12cb") {
    CHECK_FALSE(feature_exists(feature::pick_buddy, {6, 12}));
    CHECK_FALSE(feature_exists(feature::pick_buddy, {6, 12, 12}));
    CHECK(feature_exists(feature::pick_buddy, {6, 12, 13}));
    CHECK_FALSE(feature_exists(feature::pick_buddy, {6, 13, 1}));
    CHECK(feature_exists(feature::pick_buddy, {6, 13, 2}));
    CHECK(feature_exists(feature::pick_buddy, {6, 14}));
    CHECK_FALSE(feature_exists(feature::pick_buddy, {6, 11, 30}));
    CHECK(sched_features({6, 12, 13})(feature::pick_buddy));
    CHECK_FALSE(sched_features({6, 12, 12})(feature::pick_buddy));
    CHECK(feature_releases(info(feature::pick_buddy)) == "6.14 and later, 6.12.13+, 6.13.2+");
}

TEST_CASE("NI_RANDOM exists from 6.19 and from the point releases that took 33cf66d88306") {
    // 6.17 and 6.18 before 6.18.5 had 155213a2aed4's bump instead; 6.12.64 had its revert
    // without the proportional balance.
    CHECK_FALSE(feature_exists(feature::ni_random, {6, 17}));
    CHECK_FALSE(feature_exists(feature::ni_random, {6, 18, 4}));
    CHECK(feature_exists(feature::ni_random, {6, 18, 5}));
    CHECK_FALSE(feature_exists(feature::ni_random, {6, 12, 64}));
    CHECK(feature_exists(feature::ni_random, {6, 12, 65}));
    CHECK(feature_exists(feature::ni_random, {6, 6, 120}));
    CHECK(feature_exists(feature::ni_random, {6, 1, 160}));
    CHECK_FALSE(feature_exists(feature::ni_random, {5, 15, 200}));
    CHECK(sched_features({6, 19})(feature::ni_random));
    CHECK(feature_releases(info(feature::ni_random)) ==
          "6.19 and later, 6.1.160+, 6.6.120+, 6.12.65+, 6.18.5+");
}

TEST_CASE("RT_PUSH_IPI is on by default until the point releases that took dd29c017aed6") {
    // Every series the CVE lists, at the point release before the fix and at it.
    const kernel_version fixed[] = {{5, 10, 261}, {5, 15, 212}, {6, 1, 178},
                                    {6, 6, 145},  {6, 12, 96},  {6, 18, 39}};
    for (const kernel_version v : fixed) {
        INFO(v.str());
        CHECK(feature_exists(feature::rt_push_ipi, v));
        CHECK_FALSE(sched_features(v)(feature::rt_push_ipi));
        const kernel_version before{v.major, v.minor, v.patch - 1};
        CHECK(sched_features(before)(feature::rt_push_ipi));
        CHECK(feature_default(feature::rt_push_ipi, {v.major, v.minor}));
    }
    // 5.0 has it on; 6.19.y ended without the fix; a series between two fixed ones (6.14)
    // never took it.
    CHECK(sched_features({5, 0})(feature::rt_push_ipi));
    CHECK(sched_features({6, 19, 14})(feature::rt_push_ipi));
    CHECK(sched_features({6, 14, 11})(feature::rt_push_ipi));
    CHECK(feature_default_text(info(feature::rt_push_ipi)) ==
          "on; off from 5.10.261, 5.15.212, 6.1.178, 6.6.145, 6.12.96, 6.18.39, 7.2");
    CHECK(feature_default_text(info(feature::hrtick)) == "off");
    CHECK(feature_default_text(info(feature::place_lag)) == "on");
}

TEST_CASE("vlag and vprot are one union from 6.17 until 80390ead2080 (7.0, 6.18.45)") {
    for (const auto& [v, shared] :
         {std::pair{kernel_version{6, 16}, false}, std::pair{kernel_version{6, 17}, true},
          std::pair{kernel_version{6, 18, 44}, true}, std::pair{kernel_version{6, 18, 45}, false},
          std::pair{kernel_version{6, 19, 9}, true}, std::pair{kernel_version{7, 0}, false}}) {
        INFO(v.str() << "." << v.patch);
        CHECK(fair_params(v, default_tunables(v, 1, 250)).vprot_shares_vlag() == shared);
    }
}

} // namespace test_stable_fix
