"""Defaults of the ECtHR-NPD build, shared by its command-line options (:mod:`ecthr_npd.plugin`,
which must not import the build itself: parsing any ``courtbench`` command line would pay for
numpy and pyarrow) and the modules that use them."""

#: Cases of the release, and of the built-in synthetic stand-in unless --n says otherwise.
DEFAULT_ROWS = 14_575
#: What the facts leakage screen may do with award passages (--facts-screen).
SCREEN_MODES = ("refuse", "warn", "mask")
#: Cases of the release's ID test view.
ID_SIZE = 1000
