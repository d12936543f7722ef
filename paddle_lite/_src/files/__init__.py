"""Files the library reads and writes: atomically written, read as untrusted data.

Every writer goes through ``atomic`` (a file is the old one or the new one, whole); every
reader checks sizes and structure before it allocates or interprets anything, and fails
with a typed error that names the file and the offset. No pickle runs code.

1. ``atomic`` -- atomic writes and the temporary files they leave nowhere.
2. ``params`` -- v2's parameter tar format byte for byte; ``tar_members`` reads a tar's
   member list whole; ``npz`` reads ``.npz`` parameter files as data only.
3. ``topology`` and ``codec`` -- topology JSON files and the JSON form of layer attributes;
   ``bounded_json`` -- JSON with bounded nesting.
4. ``safe_pickle`` over ``pickle_check`` -- the pickles v2 wrote, read without running code.
"""
