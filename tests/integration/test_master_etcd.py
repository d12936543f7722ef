"""``paddle.master.client`` and ``cloud_reader`` against a real etcd on 127.0.0.1.

The data set is 3 v2 RecordIO files of 12 samples, in chunks of 3 records (4 chunks a file),
grouped 2 chunks a task: 6 tasks of 6 records. Leases live 1 s (etcd raises that to its
minimum, 2 s), so a killed client's tasks come back within a few seconds.
"""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import paddle_lite as paddle
from paddle_lite._src.master.etcd import Etcd
from paddle_lite._src.master.task_queue import PASS_END, WAIT, Task, TaskQueue
from paddle_lite._src.readers.recordio_v2 import read_records, write_recordio_v2
from paddle_lite.errors import ArgumentTypeError, DataError, MasterError

FAST = {"lease_ttl_sec": 1, "poll_sec": 0.05, "chunks_per_task": 2}
SAMPLES = 12


def _dataset(folder, name="part", files=3):
    """Write the files; return their glob and every record's bytes, in file order."""
    folder.mkdir(exist_ok=True)
    for f in range(files):
        samples = [(name, f, i) for i in range(SAMPLES)]
        # each pickled sample is 18 bytes ("other": 19): chunks of 3 records under 57 bytes
        write_recordio_v2(folder / f"{name}-{f:05d}", lambda s=samples: iter(s), max_chunk_size=57)
    pattern = str(folder / f"{name}-*")
    records = [r for f in range(files) for _, _, r in read_records(str(folder / f"{name}-{f:05d}"))]
    return pattern, records


@pytest.fixture
def data(tmp_path):
    return _dataset(tmp_path / "data")


@pytest.fixture
def prefix(request):
    return f"/test/{request.node.name}/"


def _client(server, prefix, buf_size=4, **options):
    return paddle.master.client(server.endpoint, 5, buf_size, prefix=prefix, **{**FAST, **options})


def _read_pass(client, pass_id):
    client.paddle_start_get_records(pass_id)
    got = []
    while True:
        record, err = client.next_record()
        if err == -2:
            return got
        assert err == 0, client.last_error
        got.append(record)


def test_the_data_set_is_split_into_tasks_of_chunks(shared_etcd, prefix, data):
    pattern, records = data
    c = _client(shared_etcd, prefix)
    c.set_dataset([pattern])
    assert len(records) == 36
    assert c.status() | {"client": None, "finished_tasks": None} == {
        "pass": 0, "todo": 6, "pending": 0, "next_pass": 0, "client": None, "finished_tasks": None
    }  # fmt: skip
    c.release()


def test_passes_end_with_minus_2_and_the_next_pass_starts(shared_etcd, prefix, data):
    pattern, records = data
    c = _client(shared_etcd, prefix)
    c.set_dataset(pattern)  # a str is read as comma-separated paths
    assert _read_pass(c, 0) == records  # one client reads the tasks in order
    assert c.status()["pass"] == 1
    assert sorted(_read_pass(c, 1)) == sorted(records)
    c.paddle_start_get_records(0)  # a pass before the current one has ended
    assert c.next_record() == (None, -2)
    assert [p for p, _ in c.status()["finished_tasks"]] == [0] * 6 + [1] * 6
    c.release()
    with pytest.raises(MasterError, match="was released"):
        c.set_dataset([pattern])


def test_the_first_set_dataset_wins(shared_etcd, prefix, tmp_path, data):
    pattern, records = data
    other, _ = _dataset(tmp_path / "other", "other")
    clients = [_client(shared_etcd, prefix) for _ in range(4)]
    threads = [
        threading.Thread(target=c.set_dataset, args=([pattern if i % 2 else other],))
        for i, c in enumerate(clients)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = _read_pass(clients[0], 0)
    assert len(got) == 36 and (got == records or all(b"other" in r for r in got))
    clients[1].set_dataset([other if got == records else pattern])  # later calls change nothing
    assert sorted(_read_pass(clients[0], 1)) == sorted(got)
    for c in clients:
        c.release()


def test_two_clients_share_each_pass(shared_etcd, prefix, data):
    pattern, records = data
    clients = [_client(shared_etcd, prefix, buf_size=1) for _ in range(2)]
    for c in clients:
        c.set_dataset([pattern])
    for pass_id in range(2):
        results = [[], []]

        def read(i, pass_id=pass_id, results=results):
            results[i].extend(_read_pass(clients[i], pass_id))

        threads = [threading.Thread(target=read, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(results[0] + results[1]) == sorted(records)  # each record exactly once
    for c in clients:
        c.release()


def test_a_killed_clients_tasks_are_read_again_in_the_same_pass(shared_etcd, prefix, data, fault):
    pattern, records = data
    child = subprocess.Popen(
        [sys.executable, os.path.join(os.path.dirname(__file__), "_master_child.py"),
         shared_etcd.endpoint, prefix, pattern, "8"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    read_by_child = []
    for line in child.stdout:
        if line.strip() == "HOLDING":
            break
        read_by_child.append(bytes.fromhex(line.strip()))
    fault.case(
        "master (etcd)",
        "SIGKILL of a trainer holding a task (8 records read: one task done, one begun)",
        "its task returns after its lease; every record of the pass arrives",
    )
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()
    assert read_by_child == records[:8]
    c = _client(shared_etcd, prefix)
    c.set_dataset([pattern])
    start = time.monotonic()
    got = _read_pass(c, 0)
    assert set(read_by_child) | set(got) == set(records)
    assert records[6] in got and records[7] in got  # the task it had begun came back
    assert not set(records[:6]) & set(got)  # the task it finished did not
    fault.observed(
        f"the killed client's task came back after {time.monotonic() - start:.1f} s; the "
        f"survivor read {len(got)} records, 36 of 36 arrived"
    )
    c.release()


def test_a_task_that_fails_more_than_3_times_waits_for_the_next_pass(shared_etcd, prefix, data):
    pattern, _ = data
    queue = TaskQueue(Etcd([shared_etcd.endpoint], 5), prefix, chunks_per_task=2)
    lease = queue.etcd.grant(30)
    assert queue.set_dataset([pattern], "me", lease)
    dispatched = []
    while isinstance(task := queue.claim(0, "me", lease), Task):
        dispatched.append((task.id, task.failures))
        assert queue.fail(task) if task.id == 0 else queue.finish(task)
        assert not queue.fail(task)  # a second report of the same dispatch changes nothing
    # v2: a failed task goes to the end of todo; its 4th failure (> 3) sends it to the next pass
    assert dispatched == [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (0, 1), (0, 2), (0, 3)]
    assert task == PASS_END and queue.current_pass() == 1
    order = []
    while isinstance(task := queue.claim(1, "me", lease), Task):
        order.append((task.id, task.failures))
        assert queue.finish(task)
    assert order == [(1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (0, 4)]  # done first, failed last


def test_a_task_held_past_its_timeout_goes_to_another_client(shared_etcd, prefix, data):
    pattern, _ = data
    queue = TaskQueue(Etcd([shared_etcd.endpoint], 5), prefix, chunks_per_task=12, task_timeout=0.3)
    lease = queue.etcd.grant(30)
    queue.set_dataset([pattern], "slow", lease)  # one task of all 12 chunks
    held = queue.claim(0, "slow", lease)
    assert queue.claim(0, "fast", lease) == WAIT  # its owner is alive and within its time
    time.sleep(0.4)
    assert queue.claim(0, "fast", lease) == WAIT  # this look re-queues it, failures 1
    retaken = queue.claim(0, "fast", lease)
    assert (retaken.id, retaken.failures) == (held.id, 1)
    assert not queue.finish(held)  # the late owner's finish is ignored (v2's epoch)
    assert queue.finish(retaken)


def test_request_save_model_approves_one_trainer_per_window(shared_etcd, prefix):
    clients = [_client(shared_etcd, prefix) for _ in range(4)]
    answers = [None] * 4

    def ask(i):
        answers[i] = clients[i].request_save_model(i, 1500)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers) == [0, 0, 0, 1]
    saver = answers.index(1)
    other = (saver + 1) % 4
    assert clients[saver].request_save_model(saver, 1500) == 1  # the saver again: renewed
    assert clients[other].request_save_model(other, 1500) == 0
    time.sleep(1.6)
    assert clients[other].request_save_model(other, 1500) == 1  # the window is over
    assert clients[saver].request_save_model("", 1500) == -1  # v2: an empty trainer id
    for c in clients:
        c.release()


def test_an_etcd_restart_keeps_the_queue(etcd, tmp_path, fault):
    pattern, records = _dataset(tmp_path / "data")
    c = _client(etcd, "/restart/", buf_size=1)
    c.set_dataset([pattern])
    c.paddle_start_get_records(0)
    before = [c.next_record()[0] for _ in range(8)]  # one task done, one begun
    fault.case(
        "master (etcd)",
        "etcd stopped and restarted on its data dir mid-pass",
        "the queue is kept: the pass goes on and no finished task is read again",
    )
    etcd.stop()
    etcd.start()
    after = []
    while (item := c.next_record())[1] != -2:
        after.append(item[0])
    assert before + after == records
    status = c.status()
    assert (status["pass"], status["todo"], status["pending"]) == (1, 6, 0)
    fault.observed(f"36 records read once each across the restart; {status}")
    c.release()


def test_cloud_reader_reads_decoded_samples_pass_by_pass(shared_etcd, prefix, data):
    pattern, _ = data
    reader = paddle.reader.creator.cloud_reader(
        [pattern], shared_etcd.endpoint, prefix=prefix, **FAST
    )
    expected = [("part", f, i) for f in range(3) for i in range(SAMPLES)]
    assert list(reader()) == expected
    assert sorted(reader()) == expected  # the reader's second call reads pass 1
    assert reader.master.status()["pass"] == 2
    reader.master.release()


def test_cloud_reader_names_a_corrupt_chunk(shared_etcd, prefix, tmp_path):
    pattern, _ = _dataset(tmp_path / "bad", files=1)
    path = tmp_path / "bad" / "part-00000"
    raw = path.read_bytes()
    path.write_bytes(raw[:-1] + bytes([raw[-1] ^ 0xFF]))  # the last chunk fails its checksum
    reader = paddle.reader.creator.cloud_reader(
        [pattern], shared_etcd.endpoint, prefix=prefix, **FAST
    )
    with pytest.raises(DataError, match=r"chunk 3 \(byte \d+\) of .*part-00000.* CRC-32"):
        list(reader())
    reader.master.release()


def test_set_dataset_refuses_what_the_master_cannot_split(shared_etcd, prefix, tmp_path):
    c = _client(shared_etcd, prefix)
    with pytest.raises(DataError, match="match no file"):
        c.set_dataset([str(tmp_path / "nothing-*")])
    with pytest.raises(DataError, match="no path given"):
        c.set_dataset([])
    with pytest.raises(ArgumentTypeError, match="paths must be a list"):
        c.set_dataset(7)
    lite = tmp_path / "lite.rec"
    paddle.reader.creator.write_recordio(lite, lambda: iter([1]))
    with pytest.raises(DataError, match="paddle_lite record file.*write_recordio_v2"):
        c.set_dataset([str(lite)])
    assert c.status()["pass"] is None  # nothing was set: a later call may still set it
    c.release()


def test_an_unreachable_etcd_is_a_master_error_naming_it():
    with pytest.raises(MasterError, match=r"no etcd endpoint answered .*127\.0\.0\.1:9"):
        paddle.master.client("127.0.0.1:9", 1)
    with pytest.raises(ArgumentTypeError, match="etcd_endpoints must be"):
        paddle.master.client(42, 1)
