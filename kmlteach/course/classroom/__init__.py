"""The instructor's side of the hub's classroom (docs/classroom.md): :mod:`.collect`
(``collect``), :mod:`.giveback` (``return``), :mod:`.lms` (the ``late`` column and
``grade --lms``), over :mod:`.exchange` (the service's exchange folder, read and written
safely as root); :mod:`.cli` adds them to ``python -m kmlteach``.

Nothing is imported here: every ``python -m kmlteach`` command imports :mod:`.cli` to list
its subcommands, and :mod:`.collect` brings the grader with it (Numba included), 0.4 s of
CPU that ``release`` or ``--help`` never needs."""
