"""paddle.init: v2 keywords, PADDLE_INIT_* environment variables, errors."""

import pytest

from paddle_lite._src import config
from paddle_lite._src.errors import ConfigError, TrainingWarning


@pytest.fixture(autouse=True)
def _restore_settings():
    saved = dict(config._SETTINGS)
    yield
    config._SETTINGS.clear()
    config._SETTINGS.update(saved)


def test_keywords_and_defaults(monkeypatch):
    monkeypatch.delenv("PADDLE_INIT_SEED", raising=False)
    settings = config.init(trainer_count=1, seed=7, port=7164, pservers="127.0.0.1")
    assert settings["use_gpu"] is False and settings["trainer_count"] == 1
    assert config.default_seed() == 7 and config.get("pservers") == "127.0.0.1"


def test_environment_variables_and_override(monkeypatch):
    monkeypatch.setenv("PADDLE_INIT_TRAINER_COUNT", "3")
    monkeypatch.setenv("PADDLE_INIT_SEED", "11")
    monkeypatch.setenv("PADDLE_INIT_LOCAL", "true")
    settings = config.init(seed=5, trainer_count=1)
    assert settings["trainer_count"] == 1 and settings["seed"] == 5 and settings["local"] is True


def test_more_trainers_than_jax_has_devices_train_on_those_it_has(monkeypatch):
    # v2 ran the extra trainer threads on the devices there were (on a GPU, all on one)
    import jax

    from paddle_lite._src import distributed
    from paddle_lite._src.errors import TrainingWarning

    jax.devices()  # JAX runs now, with the devices it started with
    have = len(jax.devices())
    monkeypatch.setenv("PADDLE_INIT_TRAINER_COUNT", str(have + 1))
    try:
        with pytest.warns(TrainingWarning, match="call paddle.init before any JAX work"):
            config.init()
        assert distributed.mesh().devices.size == have
    finally:
        monkeypatch.delenv("PADDLE_INIT_TRAINER_COUNT")
        config.init(trainer_count=1)
    assert distributed.mesh() is None


def test_every_flag_of_v2s_core_is_accepted():
    # v2's paddle.init passed each keyword on as --name=value to its C++ flags
    # (paddle/utils/Flags.cpp, paddle/trainer/Trainer.cpp)
    flags = dict(
        load_missing_parameter_strategy="rand",
        checkgrad_eps=1e-5,
        show_layer_stat=False,
        comment="x",
        log_period_server=500,
        predict_file="",
        config_args="a=1",
        save_only_one=True,
        average_test_period=0,
    )
    settings = config.init(**flags)
    assert {k: settings[k] for k in flags} == flags


def test_unknown_flags_are_errors(monkeypatch):
    with pytest.raises(
        ConfigError, match="unknown flag 'trainer_cont'.*Did you mean 'trainer_count'"
    ):
        config.init(trainer_cont=1)
    monkeypatch.setenv("PADDLE_INIT_BOGUS", "1")
    with pytest.raises(
        ConfigError, match="environment variable PADDLE_INIT_BOGUS: unknown flag 'bogus'"
    ):
        config.init()


def test_bad_values_and_refused_flags(monkeypatch):
    with pytest.raises(ConfigError, match="'trainer_count' expects a int; received 'two'"):
        config.init(trainer_count="two")
    with pytest.raises(ConfigError, match="parallel_nn"):
        config.init(parallel_nn=True)
    with pytest.raises(ConfigError, match="trainer_count must be >= 1"):
        config.init(trainer_count=0)


def test_use_gpu_without_gpu_warns_and_runs_on_the_cpu():
    import jax

    if jax.default_backend() == "gpu":
        pytest.skip("this machine has a GPU; the fallback needs a CPU-only machine")
    with pytest.warns(TrainingWarning, match="no GPU .* on the CPU"):
        settings = config.init(use_gpu=True)
    assert settings["use_gpu"] is False
