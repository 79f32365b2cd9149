"""The implementation modules of chapter 05's widgets; the public module is
:mod:`kmlteach.widgets.ch05`, which re-exports them (one module per chapter, so that
tools listing ``kmlteach/widgets/ch*.py`` see every chapter)."""
