"""What runs inside the student's kernel: the one boundary the student's code shares.

These modules are not imported there: the grader reads their text and sends it as the
text of one cell (:func:`.startup.startup_code`, the one place that builds it), which
rebuilds them as a private package in the kernel, calls :func:`.server.setup` and drops
them from ``sys.modules`` again. They import only each other (relative imports resolve in
that private package), the standard library and NumPy, and hold no secret: the student's
code, in a probe's child, could read their text.

* :mod:`.server` — the fork server: set-up in named steps, then one child per probe;
* :mod:`.disarm` — the references out of reach (the exercises stub, the guards);
* :mod:`.lock` — what keeps a child out of the kernel, and the child's own file rules;
* :mod:`.reaping` — what a child leaves (processes, files) ended after each probe;
* :mod:`.codec` — plain values in and out.

The grader's side of the same boundary: ``grade/kernel.py`` (the client), ``grade/codec.py``
(the strict parser of replies), ``grade/isolation/`` (everything around the kernel).
"""
