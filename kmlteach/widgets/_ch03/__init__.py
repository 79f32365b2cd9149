"""The implementation modules of chapter 03's widgets; the public module is
:mod:`kmlteach.widgets.ch03`, which re-exports them (one module per chapter, so that
tools listing ``kmlteach/widgets/ch*.py`` see every chapter)."""
