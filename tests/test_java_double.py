"""``jarcompat.java_double`` (Java's ``Double.toString``, every number the scorer prints): its shortcut through
Python's ``repr`` for the plain range (1e-3 to 1e7) gives what the digits spelled out give, on every kind of double."""

from __future__ import annotations

import random
import struct

from meteor_lite.jarcompat import _java_double_spelled, java_double


def test_the_shortcut_is_the_spelled_out_form() -> None:
    rnd = random.Random(34)
    edges = [1e-3, 1e7, 9999999.999999998, 0.0009999999999999998, 1e-3 * (1 + 2**-52), -1e-3, -1e7, 100.0, 1.0, 0.5,
             2.0 / 3, 1e-4, 123456.0, -0.0, 0.0, float("nan"), float("inf"), float("-inf"), 5e-324, 1.7976931348623157e308]
    values = list(edges)
    for _ in range(100_000):
        values.append(struct.unpack("<d", struct.pack("<Q", rnd.getrandbits(64)))[0])  # any bit pattern
        values.append(rnd.uniform(-2e7, 2e7))
        values.append(rnd.uniform(0, 0.01))
        values.append(float(rnd.randint(0, 10**7)))  # counts, as the statistics hold
        values.append(rnd.randint(0, 60) / rnd.randint(1, 60))  # scores and ratios
    differ = [v for v in values if java_double(v) != _java_double_spelled(v)]
    assert differ == []
    assert sum(1e-3 <= abs(v) < 1e7 for v in values) > 300_000, "the shortcut's range is exercised"
    assert [java_double(v) for v in (1.0, 0.3204832379614146, 1e-4, 1e7, 0.001)] == [
        "1.0", "0.3204832379614146", "1.0E-4", "1.0E7", "0.001"]
