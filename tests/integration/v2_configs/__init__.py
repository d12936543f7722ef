"""v2's golden network configs written with paddle_lite's v2 API.

One module per config of v2's ``trainer_config_helpers/tests/configs/file_list.sh``, named
like it. Each defines ``network()`` returning ``(outputs, extra_layers)``: the layers v1's
``outputs(...)`` declared (its cost layers when there are any, as v1 does) and the layers the
golden config also holds that are not reachable from them. The layers are built in the
config's order with its names and arguments, v1 helper names mapped to v2's as
``paddle/v2/layer.py`` does (``fc_layer`` -> ``paddle.layer.fc``, ``data_layer(name, size)``
-> ``paddle.layer.data(name, type=dense_vector(size))``, ...).
"""
