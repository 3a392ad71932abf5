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
    """An nnplan error; see the module docstring for its attributes."""

    kind = None
    message = ""
    context = ()
    notes = ()
    candidates = ()
    node_id = None
    artifact = None


class InvalidInputError(NnplanError, ValueError):
    """A malformed input: a bad file, field or value, an unknown name, a broken graph."""


class NotFoundError(NnplanError, LookupError):
    """A name that does not exist: a profile, a capsule, a node id."""


class RejectedError(NnplanError):
    """A policy says no: a node without an admissible capsule, or a plan its gate rejected."""


class UnavailableError(NnplanError):
    """Something the plan needs is not present on this machine or in this build."""


class AlreadyExistsError(NnplanError):
    """A registry module or capsule name that is taken already."""


class UnsupportedError(NnplanError):
    """A valid model that uses something nnplan does not handle yet (an ONNX operator, ...)."""


class ResourceExhaustedError(NnplanError, MemoryError):
    """The process ran out of memory or another resource."""


class UnprobedProviderError(UnavailableError):
    """The plan needs a provider this machine's probe did not confirm; nothing ran."""


class UnprobedDeviceError(UnavailableError):
    """The plan needs a device this machine's probe did not confirm; nothing ran."""


class UnboundCapsuleError(UnavailableError):
    """A planned capsule has no handler in this build, or claims a guard it does not register."""


class GuardFailedError(NnplanError):
    """A runtime guard refused a launch: the operands are not what the kernel handles."""


class BadInputError(InvalidInputError):
    """The inputs of a run do not match the model's (name, dtype, shape)."""


class InternalError(NnplanError):
    """A broken internal invariant: always a bug in nnplan."""


_BY_KIND = {
    "invalid-input": InvalidInputError,
    "not-found": NotFoundError,
    "rejected-by-policy": RejectedError,
    "unavailable": UnavailableError,
    "already-exists": AlreadyExistsError,
    "unsupported": UnsupportedError,
    "resource-exhausted": ResourceExhaustedError,
    "unprobed-provider": UnprobedProviderError,
    "unprobed-device": UnprobedDeviceError,
    "unbound-capsule": UnboundCapsuleError,
    "guard-failed": GuardFailedError,
    "bad-input": BadInputError,
    "internal": InternalError,
}


def class_for_kind(kind):
    """The exception class for an error kind's spelling (InternalError for an unknown one)."""
    return _BY_KIND.get(kind, InternalError)
