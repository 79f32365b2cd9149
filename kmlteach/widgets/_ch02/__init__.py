"""The implementation modules of chapter 02's widgets; the public module is
:mod:`kmlteach.widgets.ch02`, which re-exports them (one module per chapter, so that
tools listing ``kmlteach/widgets/ch*.py`` see every chapter)."""
