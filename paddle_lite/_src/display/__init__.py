"""What a user sees of a running job: progress, live plots, pictures of topologies.

These modules read events and topologies; nothing in the engine imports them. Read in this
order:

1. ``progress`` -- ``paddle.event.progress()``: a progress bar on a terminal, one image in
   a notebook, plain lines in a log.
2. ``plot`` -- ``paddle.plot.Ploter``, over ``draw`` (how the lines are drawn) and
   ``notebook`` (one image per cell, updated in place).
3. ``dot`` -- a topology as Graphviz DOT, SVG or an HTML table.
"""
