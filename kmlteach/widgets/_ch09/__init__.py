"""The implementation modules of chapter 09's widgets; the public module is
:mod:`kmlteach.widgets.ch09`, which re-exports them (one module per chapter, so that
tools listing ``kmlteach/widgets/ch*.py`` see every chapter)."""
