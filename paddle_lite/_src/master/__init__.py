"""v2's master (``paddle.master.client``, ``reader.creator.cloud_reader``) over etcd."""
