"""One ios.Session shared by 4 Python threads: every run gives the outputs that the same inputs
give alone (the session runs one inference at a time; the GIL is released while it runs)."""
import threading

import numpy as np

import ios
from conftest import SMALL_MODEL, random_feeds


def test_four_threads_share_one_session():
    plan = ios.compile(SMALL_MODEL, device="sim:V100", schedule="greedy", batch=4)
    session = ios.Session(plan, force=True)
    feeds = [random_feeds(session, seed=seed) for seed in range(4)]
    expected = [session.run(f) for f in feeds]
    assert not np.array_equal(expected[0][session.outputs[0].name],
                              expected[1][session.outputs[0].name])
    failures, errors = [], []
    start = threading.Barrier(4)

    def work(index):
        try:
            start.wait()
            out = {o.name: np.empty(o.shape, o.dtype) for o in session.outputs}
            for round in range(40):
                mine = (index + round) % 4
                result = session.run(feeds[mine], out if round % 2 else None)
                for name, value in expected[mine].items():
                    if not np.array_equal(result[name], value):
                        failures.append((index, round, name))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert not failures
