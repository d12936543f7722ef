"""A trainer's master client in its own process, for the kill test: it reads ``count``
records of pass 0, prints them (hex, one a line), prints HOLDING and waits to be killed."""

import sys
import time

import paddle_lite as paddle

endpoint, prefix, pattern, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
client = paddle.master.client(
    endpoint, 5, 2, prefix=prefix, chunks_per_task=2, lease_ttl_sec=1, poll_sec=0.05
)
client.set_dataset([pattern])
client.paddle_start_get_records(0)
for _ in range(count):
    record, err = client.next_record()
    assert err == 0, err
    print(record.hex(), flush=True)
print("HOLDING", flush=True)
time.sleep(120)
