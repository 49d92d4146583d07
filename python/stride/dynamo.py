"""The torch.compile backend "stride".

torch.compile(model, backend="stride") hands each graph Dynamo captures to
AOTAutograd, which functionalizes it, decomposes it with Stride's table and
splits training graphs into a forward and a backward graph. Each of those
graphs is wrapped as an ExportedProgram (stride.export), compiled by
libstride with layout repair on (AOTAutograd's backward graphs claim
overlapping layouts: the seed's slice_scatter) and run as a module on the
graph's tensors. A graph Stride cannot compile or run runs in eager
PyTorch instead, with a one-line warning (StrideFallbackWarning) that says
why; a repaired layout is reported once per graph (StrideRepairWarning).

Shapes are static: a graph Dynamo makes dynamic (after a second shape, or
with dynamic=True) is compiled again for each new set of shapes it is
called with.

The first run of each module is checked against the graph run eagerly on
the same inputs (floats within 1e-3 of the output's largest magnitude,
1e-2 in 16 bits; other dtypes exactly); a module that differs is replaced
by the eager graph, with a StrideFallbackWarning. options={"verify": False}
skips that check.

Options (torch.compile(..., options={...})): the compiler's
(stride.compiler.OPTIONS: allow_tf32, deterministic, cache_dir, ...),
attention ("auto", the default: "fused" for 16-bit graphs, "math" for
others; or "fused" or "math"), partition ("min-cut", the default, as
inductor splits a training graph: the forward saves fewer tensors and the
backward recomputes cheap pointwise ops; or "default", AOTAutograd's
default_partition, which saves every intermediate the backward reads) and
verify (True).
"""

import collections
import operator
import warnings

import torch

from .compile_model import compile_archive
from .compiler import CompileError, OPTIONS
from .export import (ATTENTION_MODES, attention_backend, captured_archive,
                     partition_function, stride_decompositions, use_torchs_cudnn)
from .torch_module import TorchModule, unsupported_inputs

# What the backend did, for tests and reports: graphs compiled by Stride,
# graphs run eagerly, layouts repaired, specializations of dynamic graphs.
stats = collections.Counter()


class StrideFallbackWarning(UserWarning):
    """A graph runs in eager PyTorch: Stride could not compile or run it."""


class StrideRepairWarning(UserWarning):
    """Stride repaired an overlapping layout the graph claimed."""


def first_line(error):
    if isinstance(error, CompileError):
        errors = [d for d in error.diagnostics if d.severity == "error"]
        if errors:
            return str(errors[0])
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"


# The outputs of PyTorch's fused attention ops that hold its dropout RNG
# state (philox seed and offset), by op name. Without dropout, PyTorch's CUDA
# kernels return them unwritten (torch.empty), so their values are
# arbitrary on both sides and are not compared; the backward graph takes
# them and reads them only under dropout, which Stride does not import.
ATTENTION_RNG_OUTPUTS = {
    "_scaled_dot_product_efficient_attention": (2, 3),
    "_scaled_dot_product_flash_attention": (6, 7),
    "_scaled_dot_product_cudnn_attention": (6, 7),
}


def unspecified_outputs(gm):
    """Positions of gm's outputs whose values PyTorch leaves unspecified:
    the RNG state outputs of its fused attention ops."""
    positions = set()
    for i, value in enumerate(output_values(gm)):
        if not (isinstance(value, torch.fx.Node) and value.target is operator.getitem):
            continue
        producer, index = value.args
        name = getattr(producer.target, "__name__", str(producer.target)).split(".")[0]
        if index in ATTENTION_RNG_OUTPUTS.get(name, ()):
            positions.add(i)
    return positions


def difference(got, expected, skip=()):
    """Where `got` differs from `expected` (lists of tensors or None) beyond
    rounding, or None: floats within 1e-3 of the largest magnitude (1e-2 in
    16 bits), NaN where NaN; other dtypes exactly; positions in `skip`
    not compared."""
    for i, (a, b) in enumerate(zip(got, expected)):
        if i in skip:
            continue
        if a is None or b is None:
            if a is not b:
                return f"output {i} is {a is None and 'None' or 'a tensor'}"
            continue
        a = a.to(b.device)
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"output {i} is {a.dtype} {list(a.shape)}, eager's {b.dtype} {list(b.shape)}"
        if not b.dtype.is_floating_point:
            if not torch.equal(a, b):
                return f"output {i} ({b.dtype}) differs"
            continue
        if a.numel() == 0:
            continue
        rtol = 1e-2 if b.element_size() == 2 else 1e-3
        a, b = a.double(), b.double()
        nan = torch.isnan(a) != torch.isnan(b)
        if bool(nan.any()):
            return f"output {i} has NaN where eager's has none, or the reverse"
        finite = ~torch.isnan(b)
        scale = b[finite].abs().max().item() if bool(finite.any()) else 0.0
        error = (a - b)[finite].abs().max().item() if bool(finite.any()) else 0.0
        if error > rtol * scale + 1e-6:
            return (f"output {i} differs by {error:.3g} where its largest "
                    f"magnitude is {scale:.3g}")
    return None


def output_values(gm):
    """The values a graph returns, in order (None where it returns none)."""
    values = next(n for n in gm.graph.nodes if n.op == "output").args[0]
    return list(values) if isinstance(values, (tuple, list)) else [values]


class StrideGraph:
    """One AOTAutograd graph (kind "forward", "backward" or "inference"):
    compiled at its first call, on its real inputs; afterwards each call
    runs the module, or the graph eagerly when Stride could not take it."""

    def __init__(self, gm, kind, options):
        self.gm = gm
        self.kind = kind
        self.options = options
        self.run = self.first_call
        self.module = None
        self.kept = None
        self.outputs = 0
        self.cpu_outputs = []

    def __call__(self, *args):
        return self.run(*args)

    def fall_back(self, reason):
        stats["fallback"] += 1
        nodes = sum(1 for n in self.gm.graph.nodes if n.op == "call_function")
        warnings.warn(f"stride: a {self.kind} graph of {nodes} ops runs in "
                      f"eager PyTorch: {reason}", StrideFallbackWarning,
                      stacklevel=2)
        self.run = self.gm

    def first_call(self, *args):
        try:
            self.compile(args)
        except Exception as error:  # noqa: BLE001 - anything: eager, said once
            self.fall_back(first_line(error))
            return self.gm(*args)
        try:
            outputs = self.run_module(*args)
        except Exception as error:  # noqa: BLE001
            self.fall_back(first_line(error))
            return self.gm(*args)
        if self.options.get("verify", True):
            expected = self.gm(*args)
            why = difference(outputs, expected, unspecified_outputs(self.gm))
            if why:
                self.fall_back(f"its first run differs from eager PyTorch's: {why}")
                return expected
        stats["compiled"] += 1
        self.run = self.run_module
        return outputs

    def compile(self, args):
        unsupported = unsupported_inputs(args)
        if unsupported:
            raise ValueError(f"inputs Stride does not take: {', '.join(unsupported)}")
        # The module runs on the device of the graph's CUDA tensors; a CPU
        # input (a scalar such as an RNG seed) is copied there, and an
        # output the graph has on the CPU is moved back.
        device = next((a.device for a in args if a.device.type == "cuda"), None)
        if device is None:
            raise ValueError("no input is a CUDA tensor")
        outputs = output_values(self.gm)
        self.outputs = len(outputs)
        kept = [v for v in outputs if v is not None]
        if any(not isinstance(v, torch.fx.Node) for v in kept):
            raise ValueError("an output that is not a tensor")
        self.cpu_outputs = [
            i for i, n in enumerate(kept)
            if getattr(n.meta.get("val"), "device", device).type == "cpu"]
        data, self.kept, _ = captured_archive(self.gm, args)
        options = {k: v for k, v in self.options.items() if k in OPTIONS}
        options["repair_layouts"] = True
        result = compile_archive(data, device, options)
        self.report_repairs(result)
        if len(result.module.inputs) != len(args):
            raise ValueError(f"the module takes {len(result.module.inputs)} inputs, "
                             f"the graph {len(args)}")
        use_torchs_cudnn()  # the cuDNN PyTorch loaded, for attention
        # Copy, never refuse: a tangent may come in another layout than the
        # one the graph was traced with, and a saved expand of the forward
        # comes materialized (Stride's modules return no overlapping
        # layouts) where the backward graph reads it broadcast.
        self.module = TorchModule(result.module, device, copy_inputs=True,
                                  broadcast_inputs=True)

    def report_repairs(self, result):
        for d in result.remarks():
            if d.message.startswith("repaired the layout"):
                stats["repaired"] += 1
                node = f"node '{d.node}'" if d.node else d.file
                warnings.warn(f"stride: {self.kind} graph: {node}: {d.message}",
                              StrideRepairWarning, stacklevel=3)

    def run_module(self, *args):
        results = self.module.run(*args)
        for i in self.cpu_outputs:
            results[i] = results[i].cpu()
        if len(results) == self.outputs:
            return results
        outputs = [None] * self.outputs
        for position, value in zip(self.kept, results):
            outputs[position] = value
        return outputs


def graph_compiler(kind, options):
    """An AOTAutograd compiler (fw_compiler, bw_compiler,
    inference_compiler) that makes StrideGraphs."""
    from torch._functorch.aot_autograd import make_boxed_func

    def compile_graph(gm, example_inputs):
        return make_boxed_func(StrideGraph(gm, kind, options))

    return compile_graph


def attention_mode(options, example_inputs):
    """How to trace attention: options["attention"], or for "auto" (the
    default) "fused" when the graph takes 16-bit floating tensors (Stride
    runs the op through cuDNN) and "math" otherwise: cuDNN takes no f32
    attention, and Stride's own decomposition of the op, which keeps the
    row log-sum-exp for the backward, trained GPT-2 in f32 slower than
    PyTorch's math trace (5.32 against 4.21 ms a step on the H200,
    python/README.md)."""
    attention = options.get("attention", "auto")
    if attention == "auto":
        half = any(isinstance(a, torch.Tensor) and a.is_floating_point()
                   and a.element_size() == 2 for a in example_inputs)
        return "fused" if half else "math"
    if attention not in ATTENTION_MODES:
        raise ValueError(f"attention={attention!r}: expected auto or one of "
                         f"{ATTENTION_MODES}")
    return attention


def aot_backend(options, example_inputs):
    """AOTAutograd with Stride's compilers and decompositions; it traces
    attention as attention_mode says ("fused": one op, which Stride
    imports as stride.attention; "math": products and a softmax)."""
    from torch._dynamo.backends.common import aot_autograd

    attention = attention_mode(options, example_inputs)
    aot = aot_autograd(
        fw_compiler=graph_compiler("forward", options),
        bw_compiler=graph_compiler("backward", options),
        inference_compiler=graph_compiler("inference", options),
        partition_fn=partition_function(options.get("partition", "min-cut")),
        decompositions=stride_decompositions(attention).materialize(),
    )

    def compile_traced(gm, example_inputs):
        with attention_backend(attention):
            return aot(gm, example_inputs)

    return compile_traced


def is_symbolic(value):
    if isinstance(value, torch.SymInt):
        return True
    return isinstance(value, torch.Tensor) and any(
        isinstance(d, torch.SymInt) for d in (*value.shape, *value.stride()))


def is_dynamic(gm, example_inputs):
    """Whether Dynamo made the graph's shapes symbolic: a size among its
    inputs, or an input tensor of symbolic shape (what the placeholders
    recorded; the example inputs themselves may be concrete)."""
    recorded = [n.meta.get("example_value", n.meta.get("val"))
                for n in gm.graph.nodes if n.op == "placeholder"]
    return any(is_symbolic(v) for v in [*recorded, *example_inputs])


def is_scalar(value):
    return isinstance(value, (int, float, bool))


def bind_scalars(gm, args):
    """A copy of `gm` whose scalar inputs (the sizes Dynamo made symbolic,
    passed as ints) are the constants `args` holds there, so that it takes
    only the tensors of `args`: what AOTAutograd traces for one set of
    concrete shapes."""
    import copy

    graph = copy.deepcopy(gm.graph)
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    constants = {node: value for node, value in zip(placeholders, args)
                 if is_scalar(value)}

    def constant(node):
        return constants.get(node, node)

    for node in graph.nodes:
        node.args = torch.fx.node.map_arg(node.args, constant)
        node.kwargs = torch.fx.node.map_arg(node.kwargs, constant)
    for node in constants:
        graph.erase_node(node)
    return torch.fx.GraphModule(gm, graph)


class Specializing:
    """A graph with symbolic shapes, compiled through AOTAutograd again for
    each set of concrete shapes it is called with (static shapes): its
    size inputs bound to the call's values, so the compiled graphs take
    tensors only."""

    def __init__(self, gm, options):
        self.gm = gm
        self.options = options
        self.compiled = {}

    def __call__(self, *args):
        key = tuple((tuple(a.shape), a.stride(), a.dtype, a.device)
                    if isinstance(a, torch.Tensor) else a for a in args)
        tensors = [a for a in args if not is_scalar(a)]
        compiled = self.compiled.get(key)
        if compiled is None:
            stats["specialized"] += 1
            try:
                compiled = aot_backend(self.options, tensors)(
                    bind_scalars(self.gm, args), tensors)
            except Exception as error:  # noqa: BLE001
                warnings.warn(f"stride: a graph with dynamic shapes runs in eager "
                              f"PyTorch: {first_line(error)}", StrideFallbackWarning)
                stats["fallback"] += 1
                self.compiled[key] = self.gm
                return self.gm(*args)
            self.compiled[key] = compiled
        if compiled is self.gm:
            return compiled(*args)
        return compiled(*tensors)


def backend(gm, example_inputs, options=None, **kwargs):
    """The "stride" backend: torch.compile(model, backend="stride",
    options={...})."""
    options = dict(options or {}, **kwargs)
    unknown = set(options) - set(OPTIONS) - {"attention", "partition", "verify"}
    if unknown:
        raise TypeError(f"the stride backend got unknown options {sorted(unknown)}; "
                        f"it takes attention, partition, verify and the compiler's: "
                        f"{', '.join(OPTIONS)}")
    if is_dynamic(gm, example_inputs):
        return Specializing(gm, options)
    return aot_backend(options, example_inputs)(gm, example_inputs)


def register(name="stride"):
    """Registers `backend` with Dynamo as `name`, unless Dynamo has it: as a
    function, or as the package's entry point (torch_dynamo_backends),
    which Dynamo loads and registers itself when the name is first looked
    up (registering it here too would make that a duplicate)."""
    from torch._dynamo.backends import registry

    functions = getattr(registry, "_COMPILER_FNS", None)
    if functions is not None:
        if name in functions or registry._BACKENDS.get(name) is not None:
            return
    elif name in registry.list_backends(exclude_tags=()):  # older torch
        return
    registry.register_backend(compiler_fn=backend, name=name)
