"""A scenario built in code: two CPU burners on one CPU, the second one reniced from 0 to
15 in steps of 5, each variant a copy made with with_values(). Prints each variant's
shares beside the ratio of the kernel's weights, which the split follows."""

from __future__ import annotations

import libsched
from libsched import Scenario


def main() -> None:
    base = Scenario(
        name="renice-sweep",
        length="4s",
        window=["1s", "4s"],
        repetitions=3,
        machine={"kernel": "6.12", "cpus": 1},
        tasks=[{"name": "a"}, {"name": "b"}],
        reference="b",
    )
    print("nice b  share a %  share b %  ratio a/b  weight ratio  switches/s")
    for nice in range(0, 20, 5):
        result = libsched.simulate(base.with_values({"tasks.b.nice": nice}))
        a, b = result.summary
        weights = libsched.nice_to_weight(0) / libsched.nice_to_weight(nice)
        seconds = (result.window.end - result.window.start) / 1e9
        # involuntary switches in the window, both tasks, mean over the repetitions
        switches = result.task_array("window_nivcsw").sum(axis=1).mean() / seconds
        print(
            f"{nice:6}  {100 * a.share:9.2f}  {100 * b.share:9.2f}  {a.ratio:9.2f}  "
            f"{weights:12.2f}  {switches:10.1f}"
        )


if __name__ == "__main__":
    main()
