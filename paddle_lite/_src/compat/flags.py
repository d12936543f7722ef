"""The flags ``paddle.init(**kwargs)`` accepts, with the type each value must have.

v2's ``paddle.init`` passed every keyword on as ``--name=value`` to the command-line
parser of its C++ core (gflags), which knew every ``DEFINE_*`` flag linked into
``py_paddle`` -- those of paddle/utils, math, cuda, gserver, parameter, pserver and
trainer, and glog's own -- and refused only unknown names. The table lists them by the
file that defined them (PaddlePaddle/Paddle of late 2017, v0.11/v0.12); gflags' int32,
int64 and uint64 are ``INT`` here and its double is ``FLOAT``. Most have no effect in
paddle_lite: they are checked by type and recorded (``config.get``).
"""

from __future__ import annotations

BOOL, INT, STR, FLOAT = "bool", "int", "str", "float"
PRECISION, BUCKETS = "precision", "seq_buckets"

FLAGS: dict[str, str] = {
    # paddle/utils/Flags.cpp (parallel_nn: refused as a keyword, as v2 refused it)
    "use_gpu": BOOL,
    "use_mkldnn": BOOL,
    "use_mkl_packed": BOOL,
    "parallel_nn": BOOL,
    "trainer_count": INT,
    "gpu_id": INT,
    "port": INT,
    "ports_num": INT,
    "ports_num_for_sparse": INT,
    "nics": STR,
    "rdma_tcp": STR,
    "trainer_id": INT,
    "num_gradient_servers": INT,
    "comment": STR,
    "load_missing_parameter_strategy": STR,
    "log_period": INT,
    "log_period_server": INT,
    "checkgrad_eps": FLOAT,
    "enable_parallel_vector": INT,
    "loadsave_parameters_in_pserver": BOOL,
    "beam_size": INT,
    "show_layer_stat": BOOL,
    "predict_file": STR,
    "prev_batch_state": BOOL,
    "init_model_path": STR,
    # paddle/utils/Util.cpp (profile_*: builds WITH_GOOGLE_PERFTOOLS only)
    "seed": INT,
    "profile_signal": INT,
    "profile_data_file": STR,
    # paddle/utils/DynamicLoader.cpp
    "cudnn_dir": STR,
    "cuda_dir": STR,
    "warpctc_dir": STR,
    "lapack_dir": STR,
    # paddle/utils/ThreadLocal.cpp, CustomStackTrace.cpp
    "thread_local_rand_use_global_seed": BOOL,
    "layer_stack_error_only_current_thread": BOOL,
    # paddle/utils/BarrierStat.cpp
    "log_barrier_abstract": BOOL,
    "log_barrier_lowest_nodes": INT,
    "log_barrier_show_log": BOOL,
    # paddle/math/Storage.cpp
    "pool_limit_size": INT,
    # paddle/cuda/src/hl_cuda_cudnn.cc
    "cudnn_conv_workspace_limit_in_mb": INT,
    # paddle/function/nnpack/NNPACKConvOp.cpp (builds WITH_NNPACK only)
    "nnpack_allocate_outside": BOOL,
    "nnpack_num_threads": INT,
    # paddle/gserver/layers: Layer.cpp, RecurrentLayer.cpp, ExpandConvLayer.cpp
    "log_error_clipping": BOOL,
    "rnn_use_batch": BOOL,
    "use_nnpack": BOOL,
    # paddle/gserver/gradientmachines: MultiGradientMachine.cpp, RecurrentGradientMachine.cpp
    "allow_only_one_model_on_one_gpu": BOOL,
    "diy_beam_search_prob_so": STR,
    # paddle/gserver/dataproviders/ProtoDataProvider.cpp
    "memory_threshold_on_load_data": FLOAT,
    # paddle/parameter: Parameter.cpp, FirstOrderOptimizer.cpp
    "enable_grad_share": INT,
    "grad_share_block_num": INT,
    "log_clipping": BOOL,
    # paddle/pserver/ParameterClient2.cpp, LightNetwork.cpp
    "pservers": STR,
    "parallel_thread_num": INT,
    "small_messages": BOOL,
    "sock_send_buf_size": INT,
    "sock_recv_buf_size": INT,
    # paddle/pserver/ParameterServer2.cpp
    "pserver_num_threads": INT,
    "async_lagged_ratio_min": FLOAT,
    "async_lagged_ratio_default": FLOAT,
    # paddle/pserver/SparseParameterDistribution.cpp
    "check_sparse_distribution_in_pserver": BOOL,
    "show_check_sparse_distribution_log": BOOL,
    "check_sparse_distribution_batches": INT,
    "check_sparse_distribution_ratio": FLOAT,
    "check_sparse_distribution_unbalance_degree": FLOAT,
    # paddle/trainer/Trainer.cpp
    "config": STR,
    "test_period": INT,
    "local": BOOL,
    "test_all_data_in_one_period": BOOL,
    "average_test_period": INT,
    "saving_period": INT,
    "saving_period_by_batches": INT,
    "save_dir": STR,
    "start_pass": INT,
    "test_pass": INT,
    "test_wait": INT,
    "with_cost": BOOL,
    "distribute_test": BOOL,
    "num_passes": INT,
    "config_args": STR,
    "save_only_one": BOOL,
    "feat_file": STR,
    "predict_output_dir": STR,
    "model_list": STR,
    # paddle/trainer/TrainerInternalConfig.cpp
    "show_parameter_stats_period": INT,
    "dot_period": INT,
    "use_old_updater": BOOL,
    # glog v0.3.5 (cmake/external/glog.cmake, built WITH_GFLAGS): logging.cc,
    # vlog_is_on.cc, utilities.cc
    "logtostderr": BOOL,
    "alsologtostderr": BOOL,
    "colorlogtostderr": BOOL,
    "drop_log_memory": BOOL,
    "alsologtoemail": STR,
    "log_prefix": BOOL,
    "minloglevel": INT,
    "logbuflevel": INT,
    "logbufsecs": INT,
    "logemaillevel": INT,
    "logmailer": STR,
    "stderrthreshold": INT,
    "log_dir": STR,
    "log_link": STR,
    "max_log_size": INT,
    "stop_logging_if_full_disk": BOOL,
    "log_backtrace_at": STR,
    "v": INT,
    "vmodule": STR,
    "symbolize_stacktrace": BOOL,
    # not among v2's flags; accepted since paddle_lite's first paddle.init
    "trainer_role": STR,
    "learning_rate": FLOAT,
    # paddle_lite's own settings
    "precision": PRECISION,
    "seq_buckets": BUCKETS,
    "coordinator_address": STR,
    "num_processes": INT,
    "process_id": INT,
}
