"""hp.Diagnostic: a warning or remark of a pass, as Python reads it."""


class Diagnostic(str):
    """A warning or remark of a pass or the verifier: its line as compilers
    print it (``location: severity: message``; a ``str``, so existing text
    checks still read it), and its parts. ``kind`` says what it is about
    where hp's passes say so (``"runs-replicated"``, ``"gathers-whole"``;
    ``""`` for any other), with the ``op`` it concerns and the
    ``parameter`` (a ``dtensor.arg_name``) it names (``""`` where none):
    filter by those, not by the words of ``message``."""

    def __new__(cls, severity, location, message, kind="", op="", parameter=""):
        self = super().__new__(cls, f"{location}: {severity}: {message}")
        self.severity = severity
        self.location = location
        self.message = message
        self.kind = kind
        self.op = op
        self.parameter = parameter
        return self

    def __repr__(self):
        return f"Diagnostic({str.__repr__(self)}, kind={self.kind!r})"
