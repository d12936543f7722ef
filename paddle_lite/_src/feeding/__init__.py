"""From a reader's samples to the arrays a compiled step takes (v2's ``DataFeeder``).

A minibatch is a list of samples, each a tuple of fields; ``feeding`` says which field each
data layer reads. Everything here runs on the host, before the device sees anything.
Read in this order:

1. ``fields`` -- v2's ``feeding``: which field of a sample each data layer reads.
2. ``feeder`` -- ``DataFeeder``: a minibatch to one dict of numpy arrays.
3. ``items`` -- one field, item by item, by its type: ``dense_rows``, ``ids``,
   ``sparse_items``; ``field_context`` -- the field an error names.
4. ``buckets`` -- the padded length of a sequence batch (``seq_buckets``).
5. ``checks`` and ``lengths`` -- readers, batches and empty sequences checked; inputs meant
   to have equal lengths checked batch by batch.
6. ``aligned`` -- host arrays JAX's CPU client adopts without a copy.
"""
