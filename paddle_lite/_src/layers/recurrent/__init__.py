"""Recurrent layers: whole-sequence recurrences, recurrent groups and generation.

Sequences are padded (``values.Seq``); every recurrence runs one ``lax.scan`` over time and
ignores padding exactly. Read in this order:

1. ``scan`` -- the scan over padded sequences every recurrence uses.
2. ``basic`` -- ``recurrent``, ``lstmemory``, ``grumemory``, over ``common`` (their
   checks, attributes and builders).
3. ``memory`` -- defining a recurrent group's step: placeholders, ``memory``,
   ``StaticInput``; ``group`` -- ``recurrent_group``, its step compiled into one scan body;
   ``tail`` -- step layers no memory needs, computed after the scan for all steps at once.
4. ``lstm_step`` and ``gru_step`` -- one step of an LSTM or a GRU, inside a group.
5. ``generation`` -- ``GeneratedInput``, ``beam_search``, ``eos``, ``sampling_id``, over
   ``beam_search`` (one ``lax.while_loop`` on ``[batch, beam]`` state).
"""
