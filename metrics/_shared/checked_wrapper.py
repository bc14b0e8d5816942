"""The ``evaluate`` wrapper behaviour every metric module shares: one rule for how a call is
checked, whichever module and whichever entry point (``compute``, ``add_batch``, ``add``).

- A wrong keyword (``prediction=`` for ``predictions=``) or an input that was not passed is a
  ``TypeError`` naming it — Python's own error for a wrong call, which the plain functions
  raise by themselves (``boundary.check_keywords``). ``ValueError`` stays what it means in
  the modules: a right argument with a bad value (a ``BoundaryError`` naming it), so a
  caller can tell the two apart. (Before, the ECtHR-NPD modules raised ``TypeError`` for a
  misspelled input and the SLDS modules a ``ValueError`` saying it was ``None``.)
- A batch is checked before evaluate queues it (evaluate's Arrow conversion would turn "12"
  or True into numbers), with the plain function's messages.
- One process with nothing queued calls the plain function directly: evaluate's Arrow round
  trip, which gathers inputs across processes, would only copy them.

One source (``metrics/_shared/checked_wrapper.py``), linked into every metric module's
folder; each module script imports it itself (``evaluate`` copies the sibling files a script
imports, not those its siblings import).
"""

from .boundary import check_keywords

#: The default of a wrapper's argument that was not passed (``None`` is a value, refused as
#: an input; an argument not passed at all is a ``TypeError``, as in the plain function).
ABSENT = object()
#: The keyword ``add()`` takes for a feature (evaluate's rule: ``prediction=`` and
#: ``reference=``; every other feature by its own name).
SINGULAR = {"predictions": "prediction", "references": "reference"}


def passed(**arguments):
    """The arguments a wrapper was actually given: those not :data:`ABSENT`."""
    return {name: value for name, value in arguments.items() if value is not ABSENT}


class CheckedWrapper:
    """Mixin placed before ``evaluate.Metric`` (or ``Comparison`` / ``Measurement``).

    A subclass sets ``FUNCTION`` (the plain function's name, shown in a ``TypeError``) and
    ``OPTIONS`` (the keyword options ``compute`` accepts besides the features), and
    implements :meth:`check_batch` (raise as the plain function does for a bad batch);
    :meth:`check_one` checks ``add()``'s single case (by default: as a batch of one).
    """

    FUNCTION = ""
    OPTIONS = ()

    def feature_names(self):
        """The module's evaluate features (its per-case inputs), in declaration order."""
        return tuple(self.features)

    def check_batch(self, batch):
        """Raise for a bad batch ``{feature: values}`` as the plain function would."""
        raise NotImplementedError

    def check_one(self, example):
        """Raise for a bad single case ``{keyword of add(): value}``."""
        self.check_batch({name: [example[SINGULAR.get(name, name)]]
                          for name in self.feature_names()})

    def compute(self, *, predictions=ABSENT, references=ABSENT, **kwargs):
        """The plain function's result; see the module description for the arguments."""
        names = self.feature_names()
        given = passed(predictions=predictions, references=references, **kwargs)
        queued = self.writer is not None
        check_keywords(self.FUNCTION, given, accepted=(*names, *self.OPTIONS),
                       required=() if queued else names)
        if self.num_process == 1 and not queued:
            return self._compute(**given)
        return super().compute(**given)

    def add_batch(self, *, predictions=ABSENT, references=ABSENT, **kwargs):
        """Queue a batch after the plain function's checks."""
        names = self.feature_names()
        given = passed(predictions=predictions, references=references, **kwargs)
        check_keywords("add_batch", given, accepted=names, required=names)
        self.check_batch(given)
        super().add_batch(**given)

    def add(self, *, prediction=ABSENT, reference=ABSENT, **kwargs):
        """Queue one case after the same checks as :meth:`add_batch`."""
        keywords = tuple(SINGULAR.get(name, name) for name in self.feature_names())
        given = passed(prediction=prediction, reference=reference, **kwargs)
        check_keywords("add", given, accepted=keywords, required=keywords)
        self.check_one(given)
        super().add(**given)
