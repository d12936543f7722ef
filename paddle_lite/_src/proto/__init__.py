"""v2's protobuf messages, by hand (no protobuf dependency): read, written and shown.

1. ``wire`` -- the proto2 wire format: varints, fields, and a reader that skips what it
   does not know.
2. ``parameter_config`` -- ``ParameterConfig``, the ``<name>.protobuf`` member of every
   parameter in a v2 tar.
3. ``model_config`` -- v2's ``ModelConfig``, decoded; ``inference_payload`` -- the pickle
   of the files v2's ``serialize_for_inference`` wrote; ``inference_file`` -- their
   ModelConfig rebuilt as a topology.
4. ``layers`` and ``image`` -- how one layer reads in a ModelConfig (its ``LayerConfig``
   fields, its image fields); ``views`` -- a topology shown as v2's ModelConfig text and as
   a summary table.
"""
