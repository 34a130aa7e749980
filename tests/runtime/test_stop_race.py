"""A query the job runner stops once its work is committed may report the stop's interrupt
as an error (HDFS's client turns it into a plain ``IOException("Failed to shutdown
streamer")`` when the interrupt lands while Spark writes the next epoch's offsets): the job
has finished, not failed. An error before that point still fails the job. The interrupt is a
race a real HDFS gives once in many runs, so this injects it with a stand-in query."""
import threading

import pytest

from sqlengine.runtime.job import Job, JobRunner


class _Driver:
    done_epoch = 3
    last_epoch = 3
    busy = False
    stopping = False

    def __init__(self):
        self.lock = threading.Lock()


class _Query:
    """Spark's StreamingQuery as the runner sees it: active until stopped; ``error`` is what
    ``exception()`` reports after the stop (or at once, with ``fails_early``)."""

    name = "q"

    def __init__(self, error, batch=3, fails_early=False):
        self.active = not fails_early
        self.error = error
        self.lastProgress = {"batchId": batch}
        self.stops = 0

    @property
    def isActive(self):
        return self.active

    def awaitTermination(self, timeout):
        return not self.active

    def stop(self):
        self.stops += 1
        self.active = False

    def exception(self):
        return None if self.active else self.error


class _EQ:
    def __init__(self, query):
        self.query, self.driver, self.writers = query, _Driver(), []


def _drive(query, stop=False):
    job = Job("j")
    job.queries = [_EQ(query)]
    if stop:  # a stop asked for (Flink's stop), before any epoch ran: it ends at once
        job.stop_event.set()
        job.queries[0].driver.last_epoch = None
    JobRunner._drive_queries(object.__new__(JobRunner), job)
    return job


def test_an_interrupt_reported_after_the_finishing_stop_does_not_fail_the_job():
    q = _Query(IOError("Failed to shutdown streamer"))
    job = _drive(q)
    assert q.stops == 1 and job.status == "FINISHED"


def test_an_error_before_the_last_commit_still_fails_the_job():
    q = _Query(IOError("disk full"), batch=2, fails_early=True)
    with pytest.raises(IOError, match="disk full"):
        _drive(q)
    assert q.stops == 0


def test_an_interrupt_reported_after_a_stop_at_an_epoch_boundary_leaves_the_job_stopped():
    q = _Query(IOError("Failed to shutdown streamer"), batch=1)  # not finished: input remains
    job = _drive(q, stop=True)
    assert q.stops == 1 and job.status == "STOPPED"
