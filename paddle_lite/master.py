"""v2 ``paddle.master``: the client of v2's master, whose task queue lives in etcd.

See *Reading with v2's master (etcd)* in Scaling out.
"""

from paddle_lite._src.master.client import client

__all__ = ["client"]
