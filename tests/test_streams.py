"""The order a pool's workers take partitions in (`auditor.engines.streams`): each worker goes on to the
partition after its last while it is free, a worker with nothing to go on to starts in the middle of the
largest stretch nobody has taken, and every partition is taken exactly once whatever order the workers
finish in."""

from __future__ import annotations

import random

from auditor.engines.streams import Streams


def test_two_workers_read_two_halves_in_order():
    order = Streams([100] * 10)
    assert [order.next(), order.next()] == [0, 5]  # the second starts half way through the rest
    assert order.next(0) == 1 and order.next(5) == 6 and order.next(1) == 2 and order.next(6) == 7


def test_a_worker_whose_next_is_taken_steals_the_middle_of_the_largest_free_stretch():
    order = Streams([100] * 10)
    a, b = order.next(), order.next()
    for finished in (a, 1, 2, 3):  # the first worker reads 0-4 while the second is still on 5
        order.next(finished)
    assert order.next(4) == 8  # 5 is taken: 6-9 is free, the worker on 5 will reach 6 and 7 first
    assert order.next(b) == 6 and order.next(6) == 7 and order.next(7) == 9
    assert order.next(8) is None and order.next(9) is None


def test_the_middle_is_by_estimated_hands_not_by_count():
    order = Streams([1000, 10, 10, 10, 10, 10, 10, 1000, 10])
    assert order.next() == 0
    assert order.next() == 7  # positions 1-8 hold 1,070 hands; half of them come before 7


def test_a_stretch_nobody_reads_into_is_started_at_its_start():
    order = Streams([5] * 3)
    assert order.next() == 0 and order.next(0) == 1 and order.next(1) == 2 and order.next(2) is None
    assert Streams([]).next() is None


def test_every_partition_is_taken_once_whatever_order_workers_finish_in():
    rng = random.Random(16)
    for _ in range(300):
        n, jobs = rng.randint(1, 40), rng.randint(1, 6)
        sizes = [rng.choice([1, 50, 20_000, 100_000]) for _ in range(n)]
        order = Streams(sizes)
        taken, running = [], []
        for _ in range(jobs):
            position = order.next()
            if position is not None:
                taken.append(position)
                running.append(position)
        while running:
            finished = running.pop(rng.randrange(len(running)))
            position = order.next(finished)
            if position is not None:
                taken.append(position)
                running.append(position)
        assert sorted(taken) == list(range(n))


def test_a_worker_goes_on_to_the_next_partition_whenever_it_is_free():
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(2, 30)
        order = Streams([rng.randint(1, 1000) for _ in range(n)])
        running = [p for p in (order.next(), order.next(), order.next()) if p is not None]
        while running:
            finished = running.pop(rng.randrange(len(running)))
            free = finished + 1 < n and not order.taken[finished + 1]
            position = order.next(finished)
            if free:
                assert position == finished + 1
            if position is not None:
                running.append(position)
