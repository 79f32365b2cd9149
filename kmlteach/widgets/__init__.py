"""Interactive figures (ipywidgets). Imported only from notebooks: ``import kmlteach``
never imports ipywidgets.

Convention: a builder ``make_<name>(...)`` in ``kmlteach/widgets/chNN.py`` returns a
:class:`~kmlteach.widgets._base.Explorer` (an ``ipywidgets.VBox``) whose ``.controls``
maps names to the control widgets and whose ``.state`` holds what the last redraw
computed. Tests set ``explorer.controls["lam"].value = 0.1`` and assert on
``explorer.state``; the figure is an ``ipywidgets.Image`` whose PNG bytes change with it.
"""
