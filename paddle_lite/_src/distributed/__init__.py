"""Training on several devices and processes, on JAX's own runtime.

Read in this order:

1. ``parallel`` -- the data-parallel mesh (``trainer_count``, ``paddle.init`` over
   processes), which rows each process reads (``LocalRows``) and the small agreements
   between processes (``exchange`` over the coordination service).
2. ``launcher`` -- ``python -m paddle_lite.launch --nproc P``: P local processes, one job,
   SIGTERM forwarded.
3. ``kubernetes`` -- ``paddle.dist_train``: the same job on a cluster (a manifest, or the
   running pod's rank).
"""
