"""The implementation modules of chapter 01's widgets; the public module is
:mod:`kmlteach.widgets.ch01`, which re-exports them (one module per chapter, so that
tools listing ``kmlteach/widgets/ch*.py`` see every chapter)."""
