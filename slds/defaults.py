"""Defaults of the SLDS build, shared by its command-line options (:mod:`slds.plugin`, which
must not import the build itself: parsing ``courtbench build ecthr_npd`` would pay for it)
and its functions (:mod:`slds.build`)."""

#: Decisions of the built-in synthetic stand-in (3 rows each) unless --decisions says otherwise.
DEFAULT_SYNTHETIC_DECISIONS = 20_000
#: The licence SLDS states; a --source build's card carries it unless --license says otherwise.
SLDS_LICENSE = "cc-by-4.0"
#: The source shapes ``--format`` names, in the order of :data:`slds.readers.READERS`.
SOURCE_FORMATS = ("slds", "wide", "entscheidsuche")
