// The corpus of malformed scenarios (tests/common/bad_inputs.hpp): each must be refused
// with an error naming the exact field (the first error's field).
#include <bad_inputs.hpp>
#include <catch2/catch.hpp>
#include <libsched/io/scenario_toml.hpp>

using namespace libsched;

namespace test_bad_inputs {

using bad_inputs::bad_input;
using bad_inputs::corpus;

TEST_CASE("every malformed scenario of the corpus names its field") {
    CHECK(corpus.size() >= 60);
    for (const bad_input& b : corpus) {
        INFO("scenario:\n" << b.text);
        try {
            parse_scenario(b.text, "bad.toml");
            FAIL("accepted");
        } catch (const scenario_error& e) {
            INFO(e.what());
            CHECK(e.field() == b.field);
            CHECK_FALSE(e.reason().empty());
        }
    }
}

TEST_CASE("a huge count of tasks is an error, not an allocation") {
    CHECK_THROWS_AS(parse_scenario("[[tasks]]\nname = \"a\"\ncount = 2147483647\n", "big.toml"),
                    scenario_error);
}

} // namespace test_bad_inputs
