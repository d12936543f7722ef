"""The training engine: ``trainer.SGD`` and everything one ``train`` call runs.

Read in this order; data flows through the modules the same way:

1. ``trainer`` -- ``SGD``: the v2 surface (``train``, ``test``, checkpoints). ``train``
   checks its arguments once into ``loop.Settings``, takes the checkpoint folder's lock
   (``folder_lock``) and the signals (``signals``: Ctrl-C deferred while the state
   changes, SIGTERM checkpoints), and starts the ``DeviceState``.
2. ``loop`` -- ``TrainCall``: the passes of one call. Per pass it reads the reader
   through ``chunks`` and, per chunk, dispatches, emits the events, lets the watch read
   the non-finite flag and writes checkpoints when due; at the pass end it reads the
   pass totals once, into the ``history``.
3. ``chunks`` -- reader batches -> ``Chunk`` s of ``K >= 1`` batches of one signature
   (converted by the feeder, on the device ahead when computing on an accelerator).
4. ``device_state`` -- ``DeviceState``: the ``steps.TrainState`` on the device, its
   programs, the optimizer state between calls, and the sync with the user's
   ``Parameters`` (``attach`` / ``receive`` / ``version``), every change inside the
   ``signals.Guard`` every reader (another thread too) takes.
5. ``programs`` -- ``TrainProgram``: the jitted functions of one (frozen set,
   precision, ``OnNan``): ``run_for`` (``K`` steps per call), the optimizer's init, the
   pass-end catch-up and the evaluation view.
   ``packing`` -- the state's small leaves in one vector, as the program takes them.
6. ``steps`` -- the step body (forward, gradients, update, the non-finite check, the
   pass totals): all of a training step's device work.
7. ``emitter`` -- the one place that builds v2's events (none without a handler).
8. ``watch`` and ``nonfinite`` -- naming and diagnosing a non-finite step.
9. ``checkpoints`` (over ``checkpoint_folders``) -- save / load a run; ``snapshot`` --
   a ``DeviceState.snapshot`` (what ``DeviceState.restore`` takes back) and its files;
   ``resume`` -- where training stands (``Position``), what a checkpoint records of it,
   which passes the next call runs and how it resumes there, checked;
   ``history`` -- what ``train`` returns; ``trained_set`` -- parameters and costs the
   trainer keeps beside the user's.
10. ``testing`` -- ``SGD.test``: cost and metrics over a reader, in test mode (its
    jitted test step).
11. ``events`` -- v2's event classes; ``functional`` -- ``paddle.train`` / ``paddle.test``
    over a trainer; ``gradient_machine`` -- ``event.gm``, v2's GradientMachine as events
    expose it.
"""
