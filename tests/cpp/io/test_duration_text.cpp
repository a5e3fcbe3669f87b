// scenario/duration_text.hpp: the duration strings of scenario files, parsed exactly and
// printed back in the shortest exact form.
#include <catch2/catch.hpp>
#include <libsched/scenario/duration_text.hpp>
#include <limits>
#include <optional>

using namespace libsched;

namespace test_duration_text {

TEST_CASE("durations with units parse to exact nanoseconds") {
    CHECK(parse_duration("2s") == 2'000'000'000);
    CHECK(parse_duration("750us") == 750'000);
    CHECK(parse_duration("750\xC2\xB5s") == 750'000);
    CHECK(parse_duration("1.5ms") == 1'500'000);
    CHECK(parse_duration("10ms") == 10'000'000);
    CHECK(parse_duration("100ns") == 100);
    CHECK(parse_duration("10 ms") == 10'000'000);
    CHECK(parse_duration("0.000000001s") == 1);
    CHECK(parse_duration("1.250000s") == 1'250'000'000);
    CHECK(parse_duration("-3ms") == -3'000'000);
    CHECK(parse_duration("0s") == 0);
    CHECK(parse_duration("9223372036854775807ns") == std::numeric_limits<duration>::max());
    CHECK(parse_duration("9223372036854775808ns") == std::nullopt);
}

TEST_CASE("malformed durations are rejected") {
    for (const char* bad :
         {"5 parsecs", "", "s", "ms", "1", "1.5", "1.5ns", "0.0000000001s", "1e3ms", "1,5ms",
          "one second", "2 s s", "99999999999999999999s", "9300000000s", "--1s", " 1s"}) {
        INFO(bad);
        CHECK(parse_duration(bad) == std::nullopt);
    }
}

TEST_CASE("format_duration uses the largest unit and round-trips") {
    CHECK(format_duration(0) == "0s");
    CHECK(format_duration(2'000'000'000) == "2s");
    CHECK(format_duration(1'500'000) == "1.5ms");
    CHECK(format_duration(750'000) == "750us");
    CHECK(format_duration(1'234'567) == "1.234567ms");
    CHECK(format_duration(999) == "999ns");
    CHECK(format_duration(-4'000'000) == "-4ms");
    for (const duration d :
         {duration{1}, duration{999}, duration{1'000}, duration{1'001}, duration{123'456'789},
          duration{9'000'000'000'000'000'000}, duration{-17}, duration{-2'500'000'000}}) {
        INFO(d);
        CHECK(parse_duration(format_duration(d)) == d);
    }
}

} // namespace test_duration_text
