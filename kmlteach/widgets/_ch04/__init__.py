"""The implementation modules of chapter 04's widgets; the public module is
:mod:`kmlteach.widgets.ch04`, which re-exports them (one module per chapter, so that
tools listing ``kmlteach/widgets/ch*.py`` see every chapter)."""
