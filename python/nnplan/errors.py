"""The exceptions nnplan raises: one class per kind of nnplan error.

Every class derives from NnplanError and carries the library error's structured context:

    kind        the error kind's stable spelling ("invalid-input", "rejected-by-policy", ...)
    message     the first line
    context     the context frames, innermost first ("in profile=", "planning node 3 (relu)")
    notes       further facts about the failure
    candidates  for planning failures: every capsule implementing the op, as
                {"capsule", "provider", "device", "reasons": [{"code", "detail"}]}
    node_id     the node the error refers to, or None
    artifact    for a node without an admissible capsule: the nnplan.plan.v1 document recording
                the failure (what `nnplan plan --json` prints), else None

str(error) is the whole rendering the command line prints after "nnplan: error:".
"""


class NnplanError(Exception):
    """An nnplan error; see the module docstring for its attributes. Each subclass's `kind` is
    the kind it is raised for; an instance raised by the library carries the same."""

    kind = None
    message = ""
    context = ()
    notes = ()
    candidates = ()
    node_id = None
    artifact = None


class InvalidInputError(NnplanError, ValueError):
    """A malformed input: a bad file, field or value, an unknown name, a broken graph."""

    kind = "invalid-input"


class NotFoundError(NnplanError, LookupError):
    """A name that does not exist: a profile, a capsule, a node id."""

    kind = "not-found"


class RejectedError(NnplanError):
    """A policy says no: a node without an admissible capsule, or a plan its gate rejected."""

    kind = "rejected-by-policy"


class UnavailableError(NnplanError):
    """Something the plan needs is not present on this machine or in this build."""

    kind = "unavailable"


class AlreadyExistsError(NnplanError):
    """A registry module or capsule name that is taken already."""

    kind = "already-exists"


class UnsupportedError(NnplanError):
    """A valid model that uses something nnplan does not handle yet (an ONNX operator, ...)."""

    kind = "unsupported"


class ResourceExhaustedError(NnplanError, MemoryError):
    """The process ran out of memory or another resource."""

    kind = "resource-exhausted"


class UnprobedProviderError(UnavailableError):
    """The plan needs a provider this machine's probe did not confirm; nothing ran."""

    kind = "unprobed-provider"


class UnprobedDeviceError(UnavailableError):
    """The plan needs a device this machine's probe did not confirm; nothing ran."""

    kind = "unprobed-device"


class UnboundCapsuleError(UnavailableError):
    """A planned capsule has no handler in this build, or claims a guard it does not register."""

    kind = "unbound-capsule"


class GuardFailedError(NnplanError):
    """A runtime guard refused a launch: the operands are not what the kernel handles."""

    kind = "guard-failed"


class BadInputError(InvalidInputError):
    """The inputs of a run do not match the model's (name, dtype, shape)."""

    kind = "bad-input"


class InternalError(NnplanError):
    """A broken internal invariant: always a bug in nnplan."""

    kind = "internal"


_BY_KIND = {cls.kind: cls for cls in (
    InvalidInputError, NotFoundError, RejectedError, UnavailableError, AlreadyExistsError,
    UnsupportedError, ResourceExhaustedError, UnprobedProviderError, UnprobedDeviceError,
    UnboundCapsuleError, GuardFailedError, BadInputError, InternalError)}


def class_for_kind(kind):
    """The exception class for an error kind's spelling (InternalError for an unknown one)."""
    return _BY_KIND.get(kind, InternalError)
