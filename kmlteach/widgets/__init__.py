"""Interactive figures (ipywidgets). Imported only from notebooks: ``import kmlteach``
never imports ipywidgets.

Layout: one package per chapter, ``kmlteach/widgets/chNN/`` with one module per widget
family (``ch05/viterbi.py`` holds ``make_viterbi_trace``), its ``__init__`` re-exporting the
builders (``from kmlteach.widgets.ch05 import make_viterbi_trace``); a small chapter is a
single module (``ch06.py``, ``ch07.py``, ``ch08.py``, ``welcome.py`` for chapter 00). A
widget's picture is drawn by the module of the same name in :mod:`kmlteach.plots`
(``plots/ch05/viterbi.py``): ``draw_<name>(ax, ...)`` once, ``set_<name>(artists, ...)`` on
every update — the same code as the static figure ``plot_<name>``. The shared machinery:
:mod:`._base` (the :class:`~kmlteach.widgets._base.Explorer`), :mod:`._predict` (the
prediction mode), :mod:`._drag` (mouse drags), :mod:`._catalog` (every builder, for tests and
benchmarks), :mod:`._threads`; the blitting renderer is :mod:`kmlteach._render`.

Convention: a builder ``make_<name>(...)`` returns an
:class:`~kmlteach.widgets._base.Explorer` (an ``ipywidgets.VBox``) whose ``.controls``
maps names to the control widgets and whose ``.state`` holds what the last redraw
computed. Tests set ``explorer.controls["lam"].value = 0.1`` and assert on
``explorer.state``; the figure is an ``ipywidgets.Image`` whose PNG bytes change with it.
"""
