"""The ``paddle`` logger prints at INFO after ``import paddle_lite``, as after v2's import
(its config parser ran ``logging.basicConfig`` and set the ``paddle`` logger to INFO)."""

import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def _run(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": ROOT, "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    return done.stderr


def test_a_programs_paddle_logger_prints_in_v2s_format_once():
    # a generation program's train.py: getLogger("paddle").setLevel(INFO) and no handler
    err = _run(
        "import logging\n"
        "import paddle_lite as paddle\n"
        "logger = logging.getLogger('paddle')\n"
        "logger.info('Pass %d, Batch %d', 0, 10)\n"
        "logging.getLogger('paddle.reader').debug('hidden')\n"
        "logging.basicConfig(format='ROOT %(message)s')\n"  # the program's own setup
        "logger.info('after setup')\n"
        "logging.getLogger('mine').info('not paddle, not shown')\n"
    )
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert re.fullmatch(r"\[INFO \d{4}-\d\d-\d\d [\d:,]+ <string>:4\] Pass 0, Batch 10", lines[0])
    assert lines[1] == "ROOT after setup"  # once: the fallback is silent under a root handler


def test_a_level_the_program_set_is_kept():
    import logging

    import paddle_lite  # noqa: F401
    from paddle_lite._src.compat import log as v2_logging

    logger = logging.getLogger("paddle")
    assert logger.level == logging.INFO
    logger.setLevel(logging.WARNING)
    try:
        v2_logging.install()
        assert logger.level == logging.WARNING
        assert sum(isinstance(h, v2_logging._FallbackHandler) for h in logger.handlers) == 1
    finally:
        logger.setLevel(logging.INFO)
