"""nnplan: decide which backend kernel may run each operation of a model, prove why, and run it.

The functions mirror the command line (`nnplan --help`): plan, explain, verify, probe, run,
capsules, targets and profiles. A model is a path to an ONNX file or a torchlean.ir.v1 JSON graph.
Every planning function takes the same configuration keywords as the command line's flags:

    profile     maintained profile to start from (nnplan.profiles()); default checked_cpu, or the
                maintained profile for `device` when only that is given
    device      cpu or cuda
    prefer      a provider planning tries first (reference, onednn, cublas, libtorch, ...)
    only        the one provider planning may use
    assurance   verified, checked or external
    vjp         none, torchlean-tape or backend-vjp (the gradient mode the run needs)
    target      a target preset (nnplan.targets())
    registries  registry files (nnplan.capsules.v1) whose modules are added to the profile
    lowering    singleton, coalesced or fused
    input_shapes  {input name: [dims]} fixing an ONNX model's dynamic input dimensions

Errors are exceptions of nnplan.errors (NnplanError and one class per kind), carrying the
structured context.

Example:
    >>> import numpy, nnplan
    >>> plan = nnplan.plan("examples/cnn.json")
    >>> plan.accepted
    True
    >>> outputs = nnplan.run("examples/cnn.json", {"image": numpy.load("examples/cnn_input.npy")})
"""

import collections as _collections
import difflib as _difflib
import json as _json
import os as _os
import shutil as _shutil
import subprocess as _subprocess

from . import _nnplan
from .errors import (  # noqa: F401  (re-exported)
    AlreadyExistsError,
    BadInputError,
    GuardFailedError,
    InternalError,
    InvalidInputError,
    NnplanError,
    NotFoundError,
    RejectedError,
    ResourceExhaustedError,
    UnavailableError,
    UnboundCapsuleError,
    UnprobedDeviceError,
    UnprobedProviderError,
    UnsupportedError,
)

__version__ = _nnplan.version

__all__ = [
    "Session",
    "IOInfo",
    "Plan",
    "plan",
    "report",
    "convert",
    "explain",
    "verify",
    "probe",
    "run",
    "capsules",
    "targets",
    "profiles",
    "NnplanError",
]


def _path(value, what):
    # As the bytes the file system names it by (os.fsencode): a path that is not UTF-8 comes from
    # os.listdir and sys.argv as a str with surrogate escapes, which only its bytes can carry.
    if not isinstance(value, (str, _os.PathLike)):
        raise TypeError(f"{what} must be a path (str or os.PathLike), not {type(value).__name__}")
    return _os.fsencode(value)


def _config(profile, device, prefer, only, assurance, vjp, target, registries, lowering,
            input_shapes):
    for name, value in (("profile", profile), ("device", device), ("prefer", prefer),
                        ("only", only), ("assurance", assurance), ("vjp", vjp),
                        ("target", target), ("lowering", lowering)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be a str or None, not {type(value).__name__}")
    if prefer is not None and only is not None:
        raise InvalidInputError("prefer= and only= exclude each other; give one of them")
    if isinstance(registries, (str, _os.PathLike)):
        registries = [registries]
    shapes = None
    if input_shapes is not None:
        if not isinstance(input_shapes, dict):
            raise TypeError("input_shapes must be a dict {input name: [dims]}")
        shapes = {}
        for name, dims in input_shapes.items():
            dims = list(dims)
            if not dims or not all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
                raise TypeError(f"input_shapes[{name!r}] must be a non-empty list of ints")
            for d in dims:
                if not 0 <= d < 2**63:
                    raise InvalidInputError(f"input_shapes[{name!r}]: dimension {d} is outside "
                                            f"0 to 2^63 - 1")
            shapes[str(name)] = dims
    return {
        "profile": profile, "device": device, "prefer": prefer, "only": only,
        "assurance": assurance, "vjp": vjp, "target": target, "lowering": lowering,
        "registries": [_path(r, "each registry") for r in (registries or [])],
        "input_shapes": shapes,
    }


class Plan:
    """A planned model: its groups, audit and gate verdict, as `nnplan plan` reports them.

    Attributes (plain Python data, from the nnplan.plan.v1 artifact):
        accepted       True when every node was planned and the gate passed
        profile        the profile's record {name, device, preference, assurance, vjp, target,
                       lowering, modules}
        groups         the lowered groups in execution order, each {node_ids, kinds, op, capsule,
                       provider, device, trust, grouping}
        audit          {kernels: one entry per distinct capsule with its four contracts, evidence
                       and numerical policy; rows: each group's index into kernels;
                       trusted_external_ops}
        gate_failures  each {kind, groups, node_ids, obligations}, in the gate's order
        symbolic_dims  the input dimensions the model leaves open, and the size each was
                       planned at (1 unless input_shapes gave one)

    Methods: report() the text report, to_json() the artifact, dot() the placement picture
    (Graphviz DOT), save(path) writes the artifact, run(inputs) runs the plan (made with
    weights=True).
    """

    def __init__(self, native):
        self._native = native
        self._artifact = None

    def _document(self):
        if self._artifact is None:
            self._artifact = _json.loads(self._native.artifact())
        return self._artifact

    @property
    def accepted(self):
        return self._native.accepted

    @property
    def symbolic_dims(self):
        """The input dimensions the model leaves open: [{input, axis, name, size, fixed}], name
        the model's ('' when unnamed), size what this plan was made for, fixed whether
        input_shapes gave it (a Session's plan for a new shape gives them; else it was planned
        at 1)."""
        return [{"input": i, "axis": a, "name": n, "size": size, "fixed": fixed}
                for i, a, n, size, fixed in self._native.symbolic_dims()]

    @property
    def profile(self):
        return self._document()["profile"]

    @property
    def groups(self):
        return self._document()["groups"]

    @property
    def audit(self):
        return self._document()["audit"]

    @property
    def gate_failures(self):
        return self._document()["gate_failures"]

    def report(self):
        """The text report `nnplan plan MODEL` prints."""
        return self._native.report()

    def to_json(self):
        """The nnplan.plan.v1 artifact `nnplan plan MODEL --json` prints (a str)."""
        return self._native.artifact()

    def dot(self):
        """The Graphviz DOT picture `nnplan dot MODEL` prints: groups colored by provider."""
        return self._native.dot()

    def save(self, path):
        """Writes the artifact to `path` (atomically; never onto the model or its payload file).

        Check it later with nnplan.verify(model, path).
        """
        self._native.save(_path(path, "path"))

    def run(self, inputs, trace=None, threads=None):
        """Runs the accepted plan on `inputs` and returns {output name: numpy.ndarray}.

        inputs   {input name: numpy array of float32}; a single-input model also takes one array
        trace    a path: writes what ran as Chrome Trace Event JSON (open it in ui.perfetto.dev)
        threads  threads each onednn command may use (default: every core); the reference
                 provider always runs on the calling thread

        The first run for a `threads` value compiles the plan (after checking this machine's
        probe confirms its providers); later runs reuse the compiled buffer and its arena.
        The returned arrays own their memory: nothing is copied out of the run.
        """
        threads = _threads(threads)
        return self._native.run(_bind_inputs(self, inputs, threads), threads,
                                None if trace is None else _path(trace, "trace"))

    def compiled(self, threads=None):
        """How the plan compiles for `threads`: {commands, reorders, peak_arena_bytes, inputs,
        outputs}, inputs and outputs as (name, shape) pairs."""
        return self._native.compiled(_threads(threads))

    def __repr__(self):
        verdict = "accepted" if self.accepted else "rejected"
        return f"<nnplan.Plan {self._native.path!r} under {self._native.profile_name}: {verdict}>"


def _threads(threads):
    """The native thread bound of `threads=` (0 for None: every core), or InvalidInputError."""
    if threads is None:
        return 0
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
        raise InvalidInputError(f"threads={threads!r}: needs a whole number, at least 1")
    if threads > _nnplan.max_threads():
        raise InvalidInputError(f"threads={threads!r}: more threads than this machine can use; "
                                f"give {_nnplan.thread_range()}")
    return threads


def _is_array_like(value):
    return hasattr(value, "__array__") or hasattr(value, "__dlpack__")


def _as_array(name, value):
    """`value` as a NumPy array: an ndarray as it is; an object with DLPack (a torch tensor on the
    CPU, a JAX or CuPy array) through numpy.from_dlpack, which shares its memory; else one with
    __array__ through numpy.asarray (no copy where the object allows it). The native run copies
    the elements once, into the run's own input buffer."""
    import numpy
    if isinstance(value, numpy.ndarray):
        return value
    if hasattr(value, "__dlpack__"):
        try:
            return numpy.from_dlpack(value)
        except (RuntimeError, TypeError, BufferError, ValueError) as error:
            hint = (" (call .detach() on a tensor that requires grad, and .cpu() on one on a "
                    "GPU)") if hasattr(value, "detach") and "detach" not in str(error) else ""
            if not hasattr(value, "__array__"):
                raise TypeError(f"input {name!r}: its DLPack export failed: {error}{hint}") from None
            try:
                return numpy.asarray(value)
            except (RuntimeError, TypeError, ValueError):
                raise TypeError(f"input {name!r}: cannot be read as an array: {error}{hint}") \
                    from None
    if hasattr(value, "__array__"):
        return numpy.asarray(value)
    raise TypeError(f"input {name!r} must be a numpy array, or an object with __array__ or "
                    f"__dlpack__ (a torch tensor), not {type(value).__name__}")


def _bind_inputs(plan, inputs, threads):
    if not plan.accepted:
        return {}  # the native run refuses a rejected plan before it reads an input
    if _is_array_like(inputs) and not isinstance(inputs, dict):
        names = [name for name, _ in plan._native.compiled(threads)["inputs"]]
        if len(names) != 1:
            raise BadInputError(
                f"an array alone names the model's only input; the model has {len(names)}: "
                f"{names}; pass a dict {{name: array}}")
        return {names[0]: _as_array(names[0], inputs)}
    if not isinstance(inputs, dict):
        raise TypeError(f"inputs must be a dict {{name: array}}, not {type(inputs).__name__}")
    return {str(name): _as_array(name, value) for name, value in inputs.items()}


def _did_you_mean(name, known):
    """"did you mean 'x'? " for the closest of `known`, or "" when none is close."""
    close = _difflib.get_close_matches(name, known, n=1)
    return f"did you mean {close[0]!r}? " if close else ""


# What the importer notes on a failure that may come from planning open dimensions at 1.
_OPEN_DIMS_NOTE = "the dimensions the model leaves open were planned at"


IOInfo = _collections.namedtuple("IOInfo", ["name", "dtype", "shape"])
IOInfo.__doc__ = """One input or output of a Session: its name, its NumPy dtype name ('float32',
'int64' or 'bool') and its shape: a tuple of ints where a dimension the model leaves open is its
name in the model ('batch'), or None when unnamed."""


class Session:
    """A model planned and compiled for this machine, run many times: nnplan's counterpart of
    onnxruntime.InferenceSession.

        >>> session = nnplan.Session("model.onnx", profile="fast_cpu")
        >>> [(i.name, i.dtype, i.shape) for i in session.inputs]
        [('input', 'float32', ('batch', 3, 224, 224))]
        >>> y = session.run({"input": x})["output"]      # x: numpy array or torch tensor

    profile and the keywords are those of nnplan.plan (device, prefer, only, assurance, vjp,
    target, registries, lowering, input_shapes); threads bounds each onednn command's threads
    (default: every core). Creating the session plans the model with its weights, checks this
    machine's probe confirms every provider and device of the plan, and compiles it: a plan its
    gate rejects raises RejectedError (its report says why), a provider this machine lacks raises
    UnprobedProviderError. Nothing falls back to another provider or device.

    Dimensions the model leaves open (a dynamic batch axis) and input_shapes does not fix appear
    in `inputs` by their name in the model ('batch', or None when unnamed) and are planned at 1
    at first. Each run whose inputs hold other sizes plans, gates and compiles the model for
    those shapes on its first call, and keeps that compiled plan for later calls: at most
    max_shapes of them (default 8), the least recently used dropped first. A run's trace says
    which shapes it ran and whether they were compiled for it. An ONNX model that cannot be
    planned with its open dimensions at 1 (a kernel wider than a 1-pixel image) takes its
    inputs and outputs from the model's declaration and is planned at its first run's shapes
    (plan is None until then).

    Attributes: inputs, outputs (lists of IOInfo), plan (the nnplan.Plan of the last run's
    shapes: its groups, audit and gate verdict), compiled_shapes (the shapes with a compiled
    plan, least recently used first). Methods: run(feeds, outputs=None, trace=None), report().
    """

    def __init__(self, model, profile=None, *, threads=None, max_shapes=8, device=None,
                 prefer=None, only=None, assurance=None, vjp=None, target=None, registries=(),
                 lowering=None, input_shapes=None):
        self._threads = _threads(threads)
        if not isinstance(max_shapes, int) or isinstance(max_shapes, bool) or max_shapes < 1:
            raise InvalidInputError(f"max_shapes={max_shapes!r}: needs a whole number, at least 1")
        self._max_shapes = max_shapes
        # The model is read again for each new set of shapes: by an absolute path (the working
        # directory may change), and checked to be the same file (its digest) each time.
        self._model = _os.fsdecode(_os.path.abspath(_path(model, "model")))
        self._profile = profile
        self._keywords = dict(device=device, prefer=prefer, only=only, assurance=assurance,
                              vjp=vjp, target=target, registries=registries, lowering=lowering)
        self._input_shapes = dict(input_shapes or {})
        self._cache = _collections.OrderedDict()
        try:
            first = plan(self._model, profile, weights=True, input_shapes=input_shapes,
                         **self._keywords)
        except InvalidInputError as error:
            # A model that cannot be planned with its open dimensions at 1 (a kernel wider than
            # a 1-pixel image: the importer's note says so) is planned at the first run's shapes
            # instead; any other error (a profile, a flag, a malformed model) is the caller's.
            if (_OPEN_DIMS_NOTE not in error.message and _OPEN_DIMS_NOTE not in str(error)) or \
                    not self._plan_at_first_run():
                raise
            return
        self.plan = self._accepted(first)
        self._digest = self.plan._document()["graph"]["digest"]
        io = self.plan._native.io(self._threads)
        # Open dimensions: (input, axis) -> the model's name for it (None when unnamed).
        self._open = {(i, axis): (name or None)
                      for i, axis, name, _size, fixed in self.plan._native.symbolic_dims()
                      if not fixed}
        open_outputs = {(o, axis): (name or None)
                        for o, axis, name, _size, _fixed in
                        self.plan._native.symbolic_output_dims()}

        def shown(name, shape, open_dims):
            return tuple(open_dims.get((name, axis), d) for axis, d in enumerate(shape))

        self.inputs = [IOInfo(name, dtype, shown(name, shape, self._open))
                       for name, dtype, shape in io["inputs"]]
        self.outputs = [IOInfo(name, dtype, shown(name, shape, open_outputs))
                        for name, dtype, shape in io["outputs"]]
        self._cache[self._signature_of({i.name: shape for i, (_, _, shape) in
                                        zip(self.inputs, io["inputs"])})] = self.plan

    def _plan_at_first_run(self):
        """For an ONNX model with dimensions input_shapes leaves open: takes its inputs and
        outputs from the model's declared interface, leaves `plan` None until the first run and
        returns True; False for any other model."""
        try:
            interface = _nnplan.onnx_interface(_path(self._model, "model"))
        except NnplanError:
            return False

        if any(dtype is None or dims is None for _name, dtype, dims in interface["inputs"]):
            return False
        # A named dimension input_shapes gives one input is that size in every input naming it.
        sizes = {}
        for name, _dtype, dims in interface["inputs"]:
            if name in self._input_shapes:
                for d, size in zip(dims, self._input_shapes[name]):
                    if isinstance(d, str):
                        sizes.setdefault(d, size)
        self.inputs = [IOInfo(name, dtype,
                              tuple(self._input_shapes[name]) if name in self._input_shapes
                              else tuple(sizes.get(d, d) if isinstance(d, str) else d
                                         for d in dims))
                       for name, dtype, dims in interface["inputs"]]
        self._open = {(name, axis): d for name, _dtype, dims in self.inputs
                      for axis, d in enumerate(dims) if d is None or isinstance(d, str)}
        if not self._open:
            return False
        import hashlib
        with open(self._model, "rb") as f:
            self._digest = "sha256:" + hashlib.file_digest(f, "sha256").hexdigest()
        self.plan = None
        self.outputs = [IOInfo(name, dtype, dims) for name, dtype, dims in interface["outputs"]]
        return True

    def _accepted(self, planned, shapes=None):
        if not planned.accepted:
            kinds = sorted({f["kind"] for f in planned.gate_failures})
            where = "" if shapes is None else f" for input shapes {shapes}"
            raise RejectedError(
                f"the gate of profile {planned.profile['name']} rejected the plan of "
                f"{planned._native.path}{where} ({', '.join(kinds)}); nothing can run. "
                f"nnplan.plan(...).report() shows each failure")
        return planned

    def _signature_of(self, shapes):
        """The shapes of the inputs with an open dimension: the key of the compiled plans."""
        return tuple((i.name, tuple(shapes[i.name])) for i in self.inputs
                     if any(isinstance(d, str) or d is None for d in i.shape))

    def _check_unchanged(self, digest):
        """InvalidInputError when the model file is no longer the one this session was made
        from: `digest` is a new plan's, or None to hash the file (a plan that failed)."""
        if digest is None:
            import hashlib
            try:
                with open(self._model, "rb") as f:
                    digest = "sha256:" + hashlib.file_digest(f, "sha256").hexdigest()
            except OSError:
                digest = None
        if digest != self._digest:
            raise InvalidInputError(
                f"{self._model} changed since this session was made (its digest is no longer "
                f"{self._digest}); make a new Session to run the new model")

    def _check_names(self, arrays):
        """BadInputError for a name the model has no input of, or an input not given."""
        known = [i.name for i in self.inputs]
        listed = ", ".join(f"{i.name!r} {list(i.shape)}" for i in self.inputs)
        for name in arrays:
            if name not in known:
                raise BadInputError(f"input {name!r} is not an input of the model; "
                                    f"{_did_you_mean(name, known)}its inputs: {listed}")
        missing = [name for name in known if name not in arrays]
        if missing:
            raise BadInputError(f"input {missing[0]!r} is not given; the model's inputs: {listed}")

    def _check_shapes(self, arrays):
        """BadInputError for an array of another dtype than its input's, one whose rank or fixed
        dimensions differ from the input's or with an empty dimension, or two sizes for one
        named dimension."""
        import numpy
        sizes = {}
        for info in self.inputs:
            if info.name not in arrays:
                continue
            want = numpy.dtype(info.dtype)
            have = arrays[info.name].dtype
            if have.kind != want.kind or have.itemsize != want.itemsize:
                spelled = "bool_" if info.dtype == "bool" else info.dtype
                raise BadInputError(f"input {info.name!r}: dtype {have}; the model expects "
                                    f"{info.dtype} (convert it with array.astype(numpy."
                                    f"{spelled}))")
            got = tuple(arrays[info.name].shape)
            if 0 in got:
                raise BadInputError(f"input {info.name!r} has shape {list(got)}, with an empty "
                                    f"dimension; nnplan runs inputs of at least one element")
            fits = len(got) == len(info.shape) and all(
                isinstance(want, str) or want is None or want == size
                for want, size in zip(info.shape, got))
            if not fits:
                raise BadInputError(f"input {info.name!r} has shape {list(got)}; the model "
                                    f"expects {list(info.shape)}")
            for want, size in zip(info.shape, got):
                if isinstance(want, str):
                    first = sizes.setdefault(want, (info.name, size))
                    if first[1] != size:
                        raise BadInputError(
                            f"dimension {want!r} is {first[1]} in input {first[0]!r} but {size} "
                            f"in input {info.name!r}; the model names both {want!r}, one size")

    def _plan_for(self, arrays):
        """The plan compiled for the arrays' shapes, and whether it was made for this call."""
        if not self._open:
            return self.plan, False
        self._check_shapes(arrays)
        key = self._signature_of({name: a.shape for name, a in arrays.items()})
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key], False
        shapes = dict(self._input_shapes)
        shapes.update({name: list(shape) for name, shape in key})
        try:
            planned = plan(self._model, self._profile, weights=True, input_shapes=shapes,
                           **self._keywords)
        except NnplanError as error:
            self._check_unchanged(None)
            if not isinstance(error, InvalidInputError):
                raise
            # The model imports at other sizes but not at these (two unnamed dimensions that
            # must agree, a reshape these sizes do not divide): the inputs' fault.
            raise BadInputError(f"the model could not be planned for input shapes {shapes}: "
                                f"{error.message}") from None
        self._check_unchanged(planned._document()["graph"]["digest"])
        self._accepted(planned, shapes)
        self._cache[key] = planned
        while len(self._cache) > self._max_shapes:
            self._cache.popitem(last=False)
        return planned, True

    @property
    def compiled_shapes(self):
        """The input shapes with a compiled plan, least recently used first: a list of
        {input name: shape} of the inputs with an open dimension (empty for a model without
        one). The plan made when the session was created (open dimensions at 1) is the first."""
        if not self._open:
            return []
        return [{name: shape for name, shape in key} for key in self._cache]

    def run(self, feeds, outputs=None, *, trace=None):
        """Runs the model on `feeds` and returns {output name: numpy.ndarray}.

        feeds    {input name: array}; each array a NumPy array or anything with __array__ or
                 __dlpack__ (a torch tensor), of the input's dtype and shape (session.inputs;
                 an open dimension takes any size); one array alone for a single-input model
        outputs  the output names to return (default: every output); the model computes all
        trace    a path: writes what ran as Chrome Trace Event JSON (open it in ui.perfetto.dev)

        A wrong name, dtype or shape raises BadInputError naming the input and what the model
        expects. The returned arrays own their memory.
        """
        if outputs is not None:
            if isinstance(outputs, str):
                raise TypeError("outputs must be a list of output names (str)")
            outputs = list(outputs)
            if not all(isinstance(o, str) for o in outputs):
                raise TypeError("outputs must be a list of output names (str)")
            known = [o.name for o in self.outputs]
            for name in outputs:
                if name not in known:
                    raise NotFoundError(f"output {name!r} is not an output of the model; "
                                        f"{_did_you_mean(name, known)}its outputs: {known}")
        if _is_array_like(feeds) and not isinstance(feeds, dict):
            if len(self.inputs) != 1:
                raise BadInputError(
                    f"an array alone names the model's only input; the model has "
                    f"{len(self.inputs)}: {[i.name for i in self.inputs]}; pass a dict "
                    f"{{name: array}}")
            feeds = {self.inputs[0].name: feeds}
        if not isinstance(feeds, dict):
            raise TypeError(f"feeds must be a dict {{name: array}}, not {type(feeds).__name__}")
        arrays = {str(name): _as_array(name, value) for name, value in feeds.items()}
        self._check_names(arrays)
        planned, compiled_now = self._plan_for(arrays)
        self.plan = planned
        ran = planned._native.run(arrays, self._threads,
                                  None if trace is None else _path(trace, "trace"),
                                  (compiled_now, len(self._cache), self._max_shapes))
        return ran if outputs is None else {name: ran[name] for name in outputs}

    def report(self):
        """The text report of the plan of the last run's shapes (`nnplan plan MODEL`)."""
        if self.plan is None:
            raise InvalidInputError(
                f"{self._model} could not be planned with its open dimensions at 1, so it is "
                f"planned at the shapes of the first run; run it first")
        return self.plan.report()

    def __repr__(self):
        profile = (self.plan._native.profile_name if self.plan is not None
                   else self._profile or "the default profile")
        return (f"<nnplan.Session {self._model!r} under {profile}: {len(self.inputs)} inputs, "
                f"{len(self.outputs)} outputs>")


def _draw_svg(dot_text):
    """(SVG of a DOT document by Graphviz's `dot`, "") or (None, why there is none)."""
    dot = _shutil.which("dot")
    if dot is None:
        return None, "graphviz (dot) was not found on PATH; install graphviz to draw the picture"
    try:
        done = _subprocess.run([dot, "-Tsvg"], input=dot_text.encode(), capture_output=True,
                               timeout=60, check=False)
    except (OSError, _subprocess.SubprocessError) as error:
        return None, f"graphviz (dot) could not run: {error}"
    if done.returncode != 0:
        return None, f"graphviz (dot) exited with status {done.returncode}"
    return done.stdout.decode("utf-8", "replace"), ""


def plan(model, profile=None, *, device=None, prefer=None, only=None, assurance=None, vjp=None,
         target=None, registries=(), lowering=None, input_shapes=None, weights=False):
    """Plans a model graph: lowered groups, full audit and gate verdict (`nnplan plan`).

    Returns a Plan; a plan its gate rejects is returned with accepted False and its
    gate_failures. Raises RejectedError when some node has no admissible capsule (its
    `candidates` say why each was rejected, its `artifact` records the failure),
    InvalidInputError for an unreadable or malformed model or an unknown name,
    UnsupportedError for a valid model that uses something nnplan does not support.
    weights=True also reads the weights, so that Plan.run can run it.

    Example:
        >>> p = nnplan.plan("examples/cnn.json", profile="checked_cuda")
        >>> [(g["op"], g["capsule"]) for g in p.groups]
        >>> p.save("cnn.plan.json")
        >>> nnplan.plan("model.onnx", input_shapes={"input": [1, 3, 224, 224]}).report()
    """
    config = _config(profile, device, prefer, only, assurance, vjp, target, registries, lowering,
                     input_shapes)
    return Plan(_nnplan.plan(_path(model, "model"), config, bool(weights)))


def report(model, profile=None, *, path=None, picture=True, expanded=False, device=None,
           prefer=None, only=None,
           assurance=None, vjp=None, target=None, registries=(), lowering=None,
           input_shapes=None):
    """The auditor's self-contained HTML page for a model's plan (`nnplan report`).

    Returns the page (a str); with path=, also writes it there (atomically, never over the
    model or its weights). A model whose gate rejects the plan still gets its page, saying why;
    one with nodes no capsule may run gets a page naming each with every candidate's reasons,
    and the capsule each other node would run on; a model the importer does not support gets a
    page listing every unsupported node. An accepted plan is compiled for this machine (reading
    the weights) so that each group says the layout it runs in beside its layout contract. The
    placement picture is drawn by Graphviz's `dot` when it is on PATH (picture=False leaves it
    out; without dot the page says so). expanded=True writes every group open, a page to print
    or read whole. For a model with open dimensions, the page says the sizes it was planned for.

    Example:
        >>> nnplan.report("model.onnx", "fast_cpu", path="model.html")
    """
    config = _config(profile, device, prefer, only, assurance, vjp, target, registries, lowering,
                     input_shapes)
    draw = _draw_svg if picture else (lambda _dot: (None, "left out on request (picture=False)"))
    page, _accepted = _nnplan.report_html(_path(model, "model"), config, draw,
                                          None if path is None else _path(path, "path"),
                                          bool(expanded))
    return page


def convert(model, output, *, input_shapes=None):
    """Converts an ONNX model to a graph file plus its payload file (`nnplan convert`).

    Writes `output` (torchlean.ir.v1, or nnplan.ir.v1 when the graph uses one of nnplan's
    extension kinds) and, beside it, the same path with the extension .payloads holding every
    weight; both are written together, never over the model. Returns the nnplan.convert.v1
    summary {format, model, opset, producer, graph, payloads, nodes, payload_tensors,
    payload_bytes}. Planning the graph file gives the same groups as planning the model.

    Example:
        >>> nnplan.convert("model.onnx", "model.json", input_shapes={"input": [1, 3, 224, 224]})
    """
    config = _config(None, None, None, None, None, None, None, (), None, input_shapes)
    return _nnplan.convert(_path(model, "model"), _path(output, "output"), config)


def explain(model, node, profile=None, *, device=None, prefer=None, only=None, assurance=None,
            vjp=None, target=None, registries=(), lowering=None, input_shapes=None):
    """Why one node runs where it runs (`nnplan explain MODEL --node N`).

    Returns {profile, node, kind, name, shape, parents, op, capsules, chosen, fused_group}:
    `capsules` lists every capsule of the registry implementing the node's op in registry order,
    each {capsule, module, provider, device, trust, verdict ("chosen", "admissible" or
    "rejected"), reasons: [{code, detail}]}; `chosen` is the capsule planning takes (None when
    none is admissible, with `why_none`); `fused_group` is {group, capsule, nodes} when the node
    runs in a fused group. A node without runtime work has op None. Raises NotFoundError for a
    node id outside the graph.

    Example:
        >>> nnplan.explain("examples/cnn.json", 1)["chosen"]
        'reference.conv'
    """
    if not isinstance(node, int) or isinstance(node, bool) or node < 0:
        raise TypeError(f"node must be a non-negative int (a node id), not {node!r}")
    if node >= 2**63:
        raise NotFoundError(f"node {node}: no graph has a node of that id (ids are below 2^63)")
    config = _config(profile, device, prefer, only, assurance, vjp, target, registries, lowering,
                     input_shapes)
    return _nnplan.explain(_path(model, "model"), node, config)


def verify(model, artifact, profile=None, *, device=None, prefer=None, only=None, assurance=None,
           vjp=None, target=None, registries=(), lowering=None, input_shapes=None):
    """Re-plans a model under an artifact's recorded profile and compares (`nnplan verify`).

    Keywords given here override single recorded fields; profile= starts over from that profile.
    Returns {verified, profile, recorded_accepted, differences, total_differences}: verified is
    True when the fresh artifact equals the recorded one byte for byte; differences lists one
    line per difference (`groups[0].capsule: artifact has ..., re-planning gives ...`).

    Example:
        >>> nnplan.plan("examples/mlp.json").save("mlp.plan.json")
        >>> nnplan.verify("examples/mlp.json", "mlp.plan.json")["verified"]
        True
    """
    config = _config(profile, device, prefer, only, assurance, vjp, target, registries, lowering,
                     input_shapes)
    return _nnplan.verify(_path(model, "model"), _path(artifact, "artifact"), config)


def probe(profile=None, *, target=None):
    """This machine's probe and how it matches a profile's target (`nnplan probe --json`).

    Returns the nnplan.probe.v1 document as a dict: the platform, CPU (model, cores, ISA
    features), CUDA driver and cuBLAS findings, the devices and providers the probe confirms,
    and the target check.
    """
    config = _config(profile, None, None, None, None, None, target, (), None, None)
    return _json.loads(_nnplan.probe(config))


def run(model, inputs, profile=None, *, trace=None, threads=None, device=None, prefer=None,
        only=None, assurance=None, vjp=None, target=None, registries=(), lowering=None,
        input_shapes=None):
    """Plans, checks against this machine's probe, compiles and runs a model (`nnplan run`).

    inputs is {input name: numpy float32 array} (one array alone for a single-input model);
    returns {output name: numpy.ndarray}. Nothing falls back to another provider or device: a
    plan whose providers the probe does not confirm raises UnprobedProviderError before anything
    runs, a gate-rejected plan raises RejectedError, inputs that do not match the model raise
    BadInputError naming the input. trace= writes the Chrome trace; threads= bounds each onednn
    command's threads. Dimensions the model leaves open take the sizes of `inputs`, as in
    nnplan.Session. To run one model many times, make a Session once and call its run.

    Example:
        >>> x = numpy.load("examples/cnn_input.npy")
        >>> nnplan.run("examples/cnn.json", {"image": x}, profile="fast_cpu")["output"].shape
    """
    # A Session, so that dimensions the model leaves open take the sizes of `inputs`.
    session = Session(model, profile, threads=threads, max_shapes=1, device=device,
                      prefer=prefer, only=only, assurance=assurance, vjp=vjp, target=target,
                      registries=registries, lowering=lowering, input_shapes=input_shapes)
    return session.run(inputs, trace=trace)


def capsules(profile=None, *, op=None, provider=None, device=None, evidence=False,
             registries=()):
    """The capsules of a profile's registry (`nnplan capsules --json`), optionally filtered.

    Returns a list of capsule dicts (name, op, provider, device, trust, vjp, contracts,
    numerical, ... as in nnplan.capsules.v1, plus the `module` holding each). evidence=True
    returns instead each contract's evidence and where it resolves in this build
    (`nnplan capsules --evidence --json`, the nnplan.evidence.v1 document as a dict).
    """
    for name, value in (("op", op), ("provider", provider), ("device", device)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be a str or None, not {type(value).__name__}")
    config = _config(profile, None, None, None, None, None, None, registries, None, None)
    config.update({"op": op, "provider": provider, "capsule_device": device})
    document = _json.loads(_nnplan.capsules(config, bool(evidence)))
    if evidence:
        return document
    listed = []
    for module in document["modules"]:
        for capsule in module["capsules"]:
            listed.append(dict(capsule, module=module["name"]))
    return listed


def targets():
    """The target presets (`nnplan targets --json`): a list of {name, os, arch, accelerator,
    features, devices, providers}."""
    return _json.loads(_nnplan.targets())["targets"]


def profiles():
    """The maintained profiles (`nnplan profiles --json`): a list of {name, device, preference,
    assurance, vjp, target, lowering, modules}."""
    return _json.loads(_nnplan.profiles())["profiles"]
