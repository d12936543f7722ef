"""paddle.init: v2 keywords, PADDLE_INIT_* environment variables, errors."""

import re

import pytest

from paddle_lite._src import config
from paddle_lite.errors import ConfigError, TrainingWarning


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

    from paddle_lite._src.distributed import parallel as distributed
    from paddle_lite.errors import TrainingWarning

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
    with pytest.raises(ConfigError, match="'trainer_count' expects an int; received 'two'"):
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


# Flags v2's C++ core defined beyond Flags.cpp and Trainer.cpp (PaddlePaddle/Paddle, late
# 2017): name -> (gflags type, a value of that type, the value paddle_lite records).
V2_CORE_FLAGS = {
    "profile_signal": ("int", 12, 12),  # utils/Util.cpp (perftools builds)
    "profile_data_file": ("str", "gperf.prof", "gperf.prof"),
    "warpctc_dir": ("str", "/opt/warpctc/lib", "/opt/warpctc/lib"),  # DynamicLoader.cpp
    "lapack_dir": ("str", "", ""),
    "layer_stack_error_only_current_thread": ("bool", False, False),  # CustomStackTrace
    "log_barrier_abstract": ("bool", True, True),  # utils/BarrierStat.cpp
    "log_barrier_lowest_nodes": ("int", 5, 5),
    "log_barrier_show_log": ("bool", "true", True),
    "pool_limit_size": ("int", 536870912, 536870912),  # math/Storage.cpp
    "cudnn_conv_workspace_limit_in_mb": ("int", "4096", 4096),  # cuda/src/hl_cuda_cudnn.cc
    "nnpack_allocate_outside": ("bool", 1, True),  # function/nnpack/NNPACKConvOp.cpp
    "nnpack_num_threads": ("int", 0, 0),
    "rnn_use_batch": ("bool", True, True),  # gserver/layers/RecurrentLayer.cpp
    "use_nnpack": ("bool", "0", False),  # gserver/layers/ExpandConvLayer.cpp
    "diy_beam_search_prob_so": ("str", "libprob.so", "libprob.so"),  # RecurrentGradientMachine
    "memory_threshold_on_load_data": ("float", 1, 1.0),  # dataproviders/ProtoDataProvider
    "enable_grad_share": ("int", 100 * 1024 * 1024, 104857600),  # parameter/Parameter.cpp
    "grad_share_block_num": ("int", 64, 64),
    "small_messages": ("bool", "yes", True),  # pserver/LightNetwork.cpp
    "sock_send_buf_size": ("int", 1024 * 1024 * 40, 41943040),
    "sock_recv_buf_size": ("int", "0x2800000", 41943040),
    "pserver_num_threads": ("int", 1, 1),  # pserver/ParameterServer2.cpp
    "async_lagged_ratio_min": ("float", 1.0, 1.0),
    "async_lagged_ratio_default": ("float", "1.5", 1.5),
    "check_sparse_distribution_batches": ("int", 100, 100),  # SparseParameterDistribution
    "check_sparse_distribution_ratio": ("float", 0.6, 0.6),
    "check_sparse_distribution_unbalance_degree": ("float", 2, 2.0),
    "use_old_updater": ("bool", False, False),  # trainer/TrainerInternalConfig.cpp
    "logtostderr": ("bool", True, True),  # glog v0.3.5
    "alsologtostderr": ("bool", False, False),
    "colorlogtostderr": ("bool", False, False),
    "drop_log_memory": ("bool", True, True),
    "alsologtoemail": ("str", "", ""),
    "log_prefix": ("bool", True, True),
    "minloglevel": ("int", 1, 1),
    "logbuflevel": ("int", -1, -1),
    "logbufsecs": ("int", 30, 30),
    "logemaillevel": ("int", 999, 999),
    "logmailer": ("str", "/bin/mail", "/bin/mail"),
    "stderrthreshold": ("int", 2, 2),
    "log_dir": ("str", "/tmp/logs", "/tmp/logs"),
    "log_link": ("str", "", ""),
    "max_log_size": ("int", 1800, 1800),
    "stop_logging_if_full_disk": ("bool", False, False),
    "log_backtrace_at": ("str", "Layer.cpp:42", "Layer.cpp:42"),
    "v": ("int", 3, 3),
    "vmodule": ("str", "RecurrentLayer=2", "RecurrentLayer=2"),
    "symbolize_stacktrace": ("bool", True, True),
}
_WRONG = {"bool": "maybe", "int": "many", "float": "lots"}


def test_flags_of_v2s_whole_core_are_accepted_with_their_types():
    # v2 passed every keyword to gflags, which knew the flags of every linked file
    from paddle_lite._src.compat.flags import FLAGS

    assert {name: FLAGS.get(name) for name in V2_CORE_FLAGS} == {
        name: kind for name, (kind, _, _) in V2_CORE_FLAGS.items()
    }
    settings = config.init(**{name: value for name, (_, value, _) in V2_CORE_FLAGS.items()})
    for name, (kind, _, recorded) in V2_CORE_FLAGS.items():
        assert settings[name] == recorded and type(settings[name]).__name__ == kind, name


@pytest.mark.parametrize("name", [n for n, (k, _, _) in V2_CORE_FLAGS.items() if k != "str"])
def test_flags_of_v2s_core_refuse_a_value_of_another_type(name):
    kind = V2_CORE_FLAGS[name][0]
    wrong = _WRONG[kind]
    article = "an" if kind == "int" else "a"
    message = f"paddle.init(): flag '{name}' expects {article} {kind}; received '{wrong}'."
    with pytest.raises(ConfigError, match=re.escape(message)):
        config.init(**{name: wrong})


def test_string_flags_take_any_value_as_text_as_v2_did():
    # v2 wrote str(value) into --name=value; a string flag refuses nothing
    settings = config.init(log_dir=5, vmodule=None)
    assert settings["log_dir"] == "5" and settings["vmodule"] == "None"


def test_values_are_read_as_gflags_read_them(monkeypatch):
    monkeypatch.setenv("PADDLE_INIT_RNN_USE_BATCH", "T")
    monkeypatch.setenv("PADDLE_INIT_SMALL_MESSAGES", "n")
    monkeypatch.setenv("PADDLE_INIT_POOL_LIMIT_SIZE", "0X10")
    settings = config.init(beam_size=2.0)
    assert settings["rnn_use_batch"] is True and settings["small_messages"] is False
    assert settings["pool_limit_size"] == 16 and settings["beam_size"] == 2
    with pytest.raises(ConfigError, match="'beam_size' expects an int; received 2.5"):
        config.init(beam_size=2.5)  # v2 refused "2.5" too; never truncated


def test_unknown_flags_and_flags_only_v2s_binaries_had_are_refused():
    with pytest.raises(ConfigError, match="unknown flag 'rnn_use_batches'.*'rnn_use_batch'"):
        config.init(rnn_use_batches=True)
    with pytest.raises(ConfigError, match="unknown flag 'sock_send_buf'.*'sock_send_buf_size'"):
        config.init(sock_send_buf=1)
    # --job and --start_pserver lived in paddle_trainer's main(), not in py_paddle
    for name in ("job", "start_pserver"):
        with pytest.raises(ConfigError, match=f"unknown flag '{name}'"):
            config.init(**{name: "train"})


def test_parallel_nn_from_the_environment_is_accepted_with_a_warning(monkeypatch):
    # v2 asserted only on the keyword; PADDLE_INIT_PARALLEL_NN went on to gflags
    with pytest.raises(ConfigError, match="parallel_nn is not supported"):
        config.init(parallel_nn=False)
    monkeypatch.setenv("PADDLE_INIT_PARALLEL_NN", "1")
    with pytest.warns(TrainingWarning, match="PADDLE_INIT_PARALLEL_NN: parallel_nn has no"):
        settings = config.init()
    assert settings["parallel_nn"] is True
