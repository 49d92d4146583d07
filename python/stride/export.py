"""Exporting PyTorch programs for Stride's importer (the torch side of
stride.compile, the "stride" torch.compile backend and the command-line
helper tools/stride-export/stride_export.py, which is a front end of this
module).

- stride_decompositions(): PyTorch's core ATen table minus the ops Stride
  has natively (STRIDE_NATIVE_OPS) and, unless attention="math", attention.
- export_program(model, inputs): torch.export with that table.
- wrap_in_exported_program(gm): an AOTAutograd graph (every placeholder a
  user input) as an ExportedProgram, without re-tracing it.
- export_model / capture_training: the helper's `export` and `train`
  commands: archives with their inputs and PyTorch's outputs as .npy.

User-side Python: the compiler and the runtime have none
(python-free-docs/import.md says what the importer reads from an archive).
"""

import collections
import contextlib
import io
import json
import os
import zipfile

import numpy as np
import torch

STRIDE_NATIVE_OPS = (
    "select_scatter.default",
    "slice_scatter.default",
    "index_add.default",
    "index_select.default",
    "scatter.src",
    "scatter.value",
    "scatter_add.default",
    "gather.default",
)

# Scaled dot-product attention and the fused variants PyTorch records for it
# (a training capture records the one it picked for the device, with its
# backward): kept as themselves, which Stride imports as stride.attention,
# unless the export asks for attention="math".
ATTENTION_OPS = tuple(
    f"{name}.default" for base in (
        "scaled_dot_product_attention",
        "_scaled_dot_product_flash_attention",
        "_scaled_dot_product_flash_attention_for_cpu",
        "_scaled_dot_product_efficient_attention",
        "_scaled_dot_product_cudnn_attention",
    ) for name in (base, base + "_backward")
    if not name.startswith("scaled_dot_product_attention_")
)

# The node metadata a saved graph keeps. Dynamo's nn_module_stack and
# source_fn_stack hold classes and functions that torch.export.save cannot
# serialize; stack_trace is what Stride's diagnostics point at.
KEPT_NODE_METADATA = ("val", "stack_trace")


def stride_decompositions(attention="fused"):
    """Core ATen decompositions minus the ops Stride keeps (STRIDE_NATIVE_OPS;
    with attention="math", scaled dot-product attention is decomposed)."""
    table = torch.export.default_decompositions()
    kept = STRIDE_NATIVE_OPS + (ATTENTION_OPS if attention == "fused" else ())
    for name in kept:
        packet, overload = name.split(".")
        op = getattr(getattr(torch.ops.aten, packet, None), overload, None)
        if op is not None:  # an older torch may lack a fused variant
            table.pop(op, None)
    return table


# How scaled dot-product attention reaches the graph:
#   "fused": as one op (aten.scaled_dot_product_attention in an export, the
#            fused variant PyTorch picks for the device, e.g.
#            _scaled_dot_product_flash_attention_for_cpu and its backward, in
#            a training capture); Stride imports each as stride.attention.
#   "math":  written out as matrix products and a softmax (PyTorch's math
#            backend), as Stride imported it before it had an attention op.
ATTENTION_MODES = ("fused", "math")

# How a training capture splits AOTAutograd's joint graph into the forward and
# the backward. "min-cut" is what torch.compile's inductor does
# (min_cut_rematerialization_partition): the forward saves fewer tensors and
# the backward recomputes cheap pointwise ops from them (a GELU's tanh, a
# LayerNorm's normalized rows), so the saved activations, the memory a
# training step holds between its two graphs, are those of torch.compile.
# "default" (default_partition) saves every intermediate the backward reads.
PARTITIONS = ("min-cut", "default")


def attention_backend(attention="fused"):
    """The context that makes PyTorch trace attention as `attention` says."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    if attention == "math":
        return sdpa_kernel(SDPBackend.MATH)
    return contextlib.nullcontext()


def math_attention():
    """Attention as plain matrix products and a softmax (the math backend)."""
    return attention_backend("math")


def use_torchs_cudnn():
    """Points Stride's cuDNN routines at the cuDNN PyTorch uses (the wheel's
    libcudnn.so.9, through STRIDE_CUDNN and LD_LIBRARY_PATH for the tools
    this process starts) unless STRIDE_CUDNN is set: a benchmark then
    compares library with library. Returns its path."""
    if os.environ.get("STRIDE_CUDNN"):
        return os.environ["STRIDE_CUDNN"]
    try:
        import nvidia.cudnn
    except ImportError:
        return None
    lib = os.path.join(list(nvidia.cudnn.__path__)[0], "lib")
    path = os.path.join(lib, "libcudnn.so.9")
    if os.path.exists(path):
        os.environ["STRIDE_CUDNN"] = path
        os.environ["LD_LIBRARY_PATH"] = lib + (":" + os.environ["LD_LIBRARY_PATH"]
                                               if os.environ.get("LD_LIBRARY_PATH") else "")
        return path
    return None


# ----------------------------------------------------------------------------
# Files: .npy, export.json, ops.txt


def to_numpy(t):
    """A tensor as a NumPy array; bf16 (which NumPy has no type for) as f32,
    which holds every bf16 value exactly (stride-run rounds it back)."""
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.numpy()


def dtype_text(t):
    return "bfloat16 (as float32)" if t.dtype == torch.bfloat16 else str(to_numpy(t).dtype)


def save_arrays(directory, prefix, tensors):
    """Writes each tensor as DIR/<prefix>_<i>.npy; returns their descriptions."""
    described = []
    for i, t in enumerate(tensors):
        name = f"{prefix}_{i}.npy"
        np.save(os.path.join(directory, name), to_numpy(t))
        described.append(
            {"file": name, "shape": list(t.shape), "dtype": dtype_text(t)}
        )
    return described


def user_output_names(directory, archive):
    """The names of the archive's user outputs, in order: the model's
    results (the outputs that write a mutated buffer back, a KV cache's, are
    not among them)."""
    specs = archive_graph_json(os.path.join(directory, archive))[
        "graph_module"]["signature"]["output_specs"]
    return [spec[kind]["arg"]["as_tensor"]["name"] for spec in specs
            for kind in ("user_output", "loss_output") if kind in spec]


def save_expected(directory, archive, tensors):
    """PyTorch's outputs under the names the archive gives them (the names
    stride-run gives a module's results), as DIR/<stem>_expected/<name>.npy:
    the folder for stride-run --expect. Returns the names."""
    names = user_output_names(directory, archive)
    folder = os.path.join(directory, archive[: -len(".pt2")] + "_expected")
    os.makedirs(folder, exist_ok=True)
    for name, t in zip(names, tensors):
        np.save(os.path.join(folder, f"{name}.npy"), to_numpy(t))
    return names


def archive_graph_json(path):
    """The ExportedProgram JSON inside a .pt2 archive (<root>/models/model.json)."""
    with zipfile.ZipFile(path) as archive:
        names = [n for n in archive.namelist() if n.endswith("models/model.json")]
        if not names:
            raise RuntimeError(f"{path}: no models/model.json in the archive")
        return json.loads(archive.read(names[0]))


def count_targets(program_json):
    """aten targets of the archive's graph, as the importer reads them."""
    nodes = program_json["graph_module"]["graph"]["nodes"]
    return collections.Counter(node["target"] for node in nodes)


def write_ops(directory, archives):
    """DIR/ops.txt: for each archive, every target with its count."""
    lines = []
    for archive in archives:
        counts = count_targets(archive_graph_json(os.path.join(directory, archive)))
        lines.append(f"# {archive}: {sum(counts.values())} nodes")
        for target, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"{n:5d} {target}")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(directory, "ops.txt"), "w") as f:
        f.write(text)
    return text


def write_description(directory, description):
    description["torch"] = torch.__version__
    try:
        import transformers

        description["transformers"] = transformers.__version__
    except ImportError:
        pass
    with open(os.path.join(directory, "export.json"), "w") as f:
        json.dump(description, f, indent=2)
        f.write("\n")


def flat_tensors(value):
    """The tensors of a (nested) model output, in pytree order."""
    leaves = torch.utils._pytree.tree_leaves(value)
    return [leaf for leaf in leaves if isinstance(leaf, torch.Tensor)]


def relative_error(got, expected):
    if not expected.dtype.is_floating_point or expected.numel() == 0:
        return 0.0 if torch.equal(got, expected) else float("inf")
    got, expected = got.detach().double(), expected.detach().double()
    scale = expected.abs().max().item() or 1.0
    return (got - expected).abs().max().item() / scale


# ----------------------------------------------------------------------------
# export: an inference graph


def parse_dynamic(spec):
    """One --dynamic of the export helper, NAME=INPUT:DIM:MIN:MAX (dim DIM
    of input INPUT, both counted from 0, takes every size in [MIN, MAX]
    under the symbol NAME), as (name, input, dim, min, max); ValueError
    with the reason otherwise."""
    name, sep, rest = spec.partition("=")
    fields = rest.split(":")
    if not sep or not name.isidentifier() or len(fields) != 4:
        raise ValueError(f"--dynamic {spec!r}: expected NAME=INPUT:DIM:MIN:MAX, "
                         "e.g. batch=0:0:1:64")
    try:
        index, dim, low, high = (int(f) for f in fields)
    except ValueError:
        raise ValueError(f"--dynamic {spec!r}: INPUT, DIM, MIN and MAX are integers")
    if index < 0 or dim < 0 or low < 0 or low > high:
        raise ValueError(f"--dynamic {spec!r}: needs INPUT >= 0, DIM >= 0 and "
                         "0 <= MIN <= MAX")
    return name, index, dim, low, high


def dynamic_shapes_of(specs, inputs):
    """torch.export's dynamic_shapes for the parsed --dynamic `specs`: one
    torch.export.Dim per name (a name given twice must give one range),
    placed at its input's dim; None for inputs with no dynamic dim. None
    when `specs` is empty (every size static)."""
    if not specs:
        return None
    dims, shapes = {}, [None] * len(inputs)
    for name, index, dim, low, high in specs:
        if index >= len(inputs) or dim >= inputs[index].dim():
            raise ValueError(f"--dynamic {name}: input {index} has no dim {dim} "
                             f"({len(inputs)} inputs)")
        if name in dims and (dims[name].min, dims[name].max) != (low, high):
            raise ValueError(f"--dynamic {name}: given twice with different ranges")
        dims.setdefault(name, torch.export.Dim(name, min=low, max=high))
        shapes[index] = shapes[index] or {}
        shapes[index][dim] = dims[name]
    return tuple(shapes)


def export_program(model, inputs, attention="fused", strict=False,
                   dynamic_shapes=None):
    """torch.export.export of model(*inputs), then Stride's decompositions.
    strict=True traces with Dynamo (what a module holding transformers'
    StaticCache needs: non-strict tracing leaves its in-place cache writes
    to a wrapper that run_decompositions cannot decompose, PyTorch 2.11).
    `dynamic_shapes` as dynamic_shapes_of gives it: the archive's sizes
    become symbols with ranges (python-free-docs/symbolic-sizes.md)."""
    with attention_backend(attention):
        try:
            program = torch.export.export(model, tuple(inputs), strict=strict,
                                          dynamic_shapes=dynamic_shapes)
        except torch._dynamo.exc.UserError as error:
            if dynamic_shapes is None or "Constraints violated" not in str(error):
                raise
            program = export_with_ranges_set(model, inputs, strict,
                                             dynamic_shapes, error)
        return program.run_decompositions(stride_decompositions(attention))


def export_with_ranges_set(model, inputs, strict, dynamic_shapes, error):
    """torch.export with each named Dim of `dynamic_shapes` replaced by
    torch.export.Dim.AUTO, its range then set to the Dim's own in the
    program's range_constraints. torch's symbolic reasoning refuses some
    ranges for guards that hold (transformers' LlamaForCausalLM: `min(64*s,
    128*s) == 64*s` over s <= 4096, torch 2.11); traced with AUTO it keeps
    the dim symbolic but gives it no maximum, which Stride needs. The graph
    is the same trace, so Stride's own checks over the range (its layout
    rules) hold or refuse it; a size below torch's own minimum (2 for AUTO)
    is checked against eager by whoever runs it (bench/dynamic does at
    every size). Raises `error` where AUTO makes a dim static."""
    from torch.utils._sympy.value_ranges import ValueRanges

    auto = tuple(None if shape is None else {d: torch.export.Dim.AUTO for d in shape}
                 for shape in dynamic_shapes)
    program = torch.export.export(model, tuple(inputs), strict=strict,
                                  dynamic_shapes=auto)
    placeholders = [n for n in program.graph.nodes if n.op == "placeholder"]
    user_inputs = [n for n in placeholders
                   if n.name in program.graph_signature.user_inputs]
    for node, shape in zip(user_inputs, dynamic_shapes):
        for d, dim in (shape or {}).items():
            size = node.meta["val"].shape[d]
            if not isinstance(size, torch.SymInt):
                raise error
            program.range_constraints[size.node.expr] = ValueRanges(dim.min, dim.max)
    return program


def archive_bytes(program):
    """torch.export.save of `program`, as the bytes of a .pt2 archive."""
    buffer = io.BytesIO()
    torch.export.save(program, buffer)
    return buffer.getvalue()


def export_model(model, inputs, directory, attention="fused", strict=False,
                 dynamic_shapes=None):
    """torch.export with Stride's table; saves the archive, inputs and outputs.
    The model is exported before it runs, so a buffer it writes (a static KV
    cache) is stored in the archive as it was (zeros: a splat), not with the
    values of the eager run; `strict` and `dynamic_shapes` as export_program
    says."""
    os.makedirs(directory, exist_ok=True)
    program = export_program(model, inputs, attention, strict, dynamic_shapes)
    with attention_backend(attention):
        expected = flat_tensors(model(*inputs))
    archive = os.path.join(directory, "model.pt2")
    torch.export.save(program, archive)
    check_reloaded(archive, inputs, expected)
    write_description(
        directory,
        {
            "mode": "export",
            "graphs": {
                "model.pt2": {
                    "input_names": list(program.graph_signature.user_inputs),
                    "inputs": save_arrays(directory, "inputs", inputs),
                    "outputs": save_arrays(directory, "outputs", expected),
                    "output_names": save_expected(directory, "model.pt2", expected),
                }
            },
        },
    )
    return write_ops(directory, ["model.pt2"])


def check_reloaded(archive, inputs, expected):
    """Loads the archive back and runs it against the eager outputs."""
    with attention_backend("fused"):
        got = flat_tensors(torch.export.load(archive).module()(*inputs))
    errors = [relative_error(g, e) for g, e in zip(got, expected)]
    print(f"  {archive}: reloaded, max relative error vs eager {max(errors):.3g}")


# ----------------------------------------------------------------------------
# train: forward and backward graphs through AOTAutograd


def partition_function(partition):
    """AOTAutograd's partition_fn for a name of PARTITIONS."""
    from torch._functorch.partitioners import (
        default_partition, min_cut_rematerialization_partition)

    if partition not in PARTITIONS:
        raise ValueError(f"partition {partition!r}: expected one of "
                         f"{', '.join(PARTITIONS)}")
    return (min_cut_rematerialization_partition if partition == "min-cut"
            else default_partition)


class GraphCapture:
    """A torch.compile backend that records AOTAutograd's forward and backward
    graphs and the real tensors that flow in and out of them."""

    def __init__(self, attention="fused", partition="min-cut"):
        partition_function(partition)  # a wrong name fails here, not later
        self.attention = attention
        self.partition = partition
        self.graphs = {}  # "forward"/"backward" -> GraphModule
        self.inputs = {}
        self.outputs = {}

    def recorder(self, kind):
        try:
            from torch._functorch.aot_autograd import make_boxed_func
        except ImportError:
            from functorch.compile import make_boxed_func

        def compiler(gm, example_inputs):
            if kind in self.graphs:
                raise RuntimeError(
                    f"more than one {kind} graph: the model must compile to one "
                    "graph (torch.compile(fullgraph=True) and no recompilation)"
                )
            self.graphs[kind] = gm

            def run(*args):
                first = kind not in self.inputs
                if first:
                    # Copies taken before the graph runs: AOTAutograd writes a
                    # mutated buffer (batch norm's running statistics) back
                    # into the very tensor passed in, after the graph returns,
                    # and the recorded inputs must be the values it read.
                    self.inputs[kind] = [a.detach().clone() for a in args
                                         if isinstance(a, torch.Tensor)]
                outputs = gm(*args)
                if first:
                    self.outputs[kind] = list(outputs)
                return outputs

            return make_boxed_func(run)

        return compiler

    def backend(self):
        from torch._dynamo.backends.common import aot_autograd

        return aot_autograd(
            fw_compiler=self.recorder("forward"),
            bw_compiler=self.recorder("backward"),
            partition_fn=partition_function(self.partition),
            decompositions=stride_decompositions(self.attention).materialize(),
        )


def exportable_copy(gm):
    """A copy of an AOTAutograd graph that torch.export.save accepts: only the
    node metadata in KEPT_NODE_METADATA, and no None outputs (gradients of
    inputs that need none). Returns the copy and the kept output positions."""
    graph = torch.fx.Graph()
    outputs = graph.graph_copy(gm.graph, {})
    if not isinstance(outputs, (tuple, list)):
        outputs = (outputs,)
    kept = [i for i, value in enumerate(outputs) if value is not None]
    graph.output(tuple(outputs[i] for i in kept))
    for node in graph.nodes:
        node.meta = {k: v for k, v in node.meta.items() if k in KEPT_NODE_METADATA}
    return torch.fx.GraphModule(gm, graph), kept


def lift_tensor_constants(gm):
    """AOTAutograd's graphs read tensor constants (a mask value, say) through
    get_attr nodes (`_tensor_constant0`), which an ExportedProgram refuses;
    it takes them as constant inputs. Turns each into a placeholder ahead of
    the user inputs; returns {placeholder name: tensor}."""
    constants = {}
    first = next(iter(gm.graph.nodes))
    for node in list(gm.graph.nodes):
        if node.op != "get_attr":
            continue
        value = gm
        for part in node.target.split("."):
            value = getattr(value, part)
        if not isinstance(value, torch.Tensor):
            continue
        with gm.graph.inserting_before(first):
            placeholder = gm.graph.placeholder(f"c_{node.target.replace('.', '_')}")
        placeholder.meta["val"] = node.meta.get("val", value)
        node.replace_all_uses_with(placeholder)
        gm.graph.erase_node(node)
        constants[placeholder.name] = value
    gm.recompile()
    return constants


def wrap_in_exported_program(gm):
    """An ExportedProgram around a graph whose placeholders are user inputs
    (and the tensor constants it read, lifted) and whose outputs are all user
    outputs."""
    from torch.export import ExportedProgram, ExportGraphSignature, ModuleCallEntry
    from torch.export.graph_signature import (
        InputKind,
        InputSpec,
        OutputKind,
        OutputSpec,
        TensorArgument,
    )

    constants = lift_tensor_constants(gm)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    results = next(n for n in gm.graph.nodes if n.op == "output").args[0]
    signature = ExportGraphSignature(
        input_specs=[
            InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(name=p.name), p.name)
            if p.name in constants else
            InputSpec(InputKind.USER_INPUT, TensorArgument(name=p.name), None)
            for p in placeholders
        ],
        output_specs=[
            OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(name=r.name), None)
            for r in results
        ],
    )
    return ExportedProgram(
        root=gm,
        graph=gm.graph,
        graph_signature=signature,
        state_dict={},
        range_constraints={},
        module_call_graph=[ModuleCallEntry(fqn="")],
        constants=constants,
    )


def captured_archive(gm, inputs):
    """An AOTAutograd graph as the bytes of a .pt2 archive: wrapped as it is
    (wrap_in_exported_program), or, where that fails, re-exported with
    torch.export on `inputs` (node names and the model's Python frames are
    lost then). Returns (bytes, the positions of the outputs kept, why the
    graph was re-exported or None)."""
    copy, kept = exportable_copy(gm)
    try:
        return archive_bytes(wrap_in_exported_program(copy)), kept, None
    except Exception as error:  # noqa: BLE001 - re-trace as a fallback
        why = f"{type(error).__name__}: {error}"
    copy, kept = exportable_copy(gm)  # the first copy's constants are lifted
    program = torch.export.export(copy, tuple(inputs), strict=False)
    program = program.run_decompositions(stride_decompositions())
    return archive_bytes(program), kept, why


def save_captured_graph(gm, inputs, archive):
    """Saves one captured graph; returns the positions of the outputs it kept."""
    data, kept, why = captured_archive(gm, inputs)
    if why:
        print(f"  {archive}: wrapping failed ({why}); re-exported the graph "
              "instead (node names and Python frames of the model are lost)")
    with open(archive, "wb") as f:
        f.write(data)
    return kept


def check_captured(archive, inputs, expected):
    """Runs the saved graph with torch.fx on the recorded inputs."""
    program = torch.export.load(archive)
    user_inputs = iter(inputs)
    arguments = [program.constants[spec.target]
                 if spec.kind == torch.export.graph_signature.InputKind.CONSTANT_TENSOR
                 else next(user_inputs)
                 for spec in program.graph_signature.input_specs]
    got = torch.fx.Interpreter(program.graph_module).run(*arguments)
    errors = [relative_error(g, e) for g, e in zip(flat_tensors(got), expected)]
    print(f"  {archive}: reloaded, max relative error vs the captured run "
          f"{max(errors, default=0.0):.3g}")


def capture_training(model, inputs, directory, seed=0, attention="fused",
                     partition="min-cut"):
    """One forward and backward step of `model` (random output gradient);
    `partition` (PARTITIONS) picks which tensors the forward saves."""
    os.makedirs(directory, exist_ok=True)
    torch._dynamo.reset()
    capture = GraphCapture(attention, partition)
    compiled = torch.compile(model, backend=capture.backend(), fullgraph=True,
                             dynamic=False)
    with attention_backend(attention):
        outputs = flat_tensors(compiled(*inputs))
        generator = torch.Generator().manual_seed(seed)
        grads = [torch.randn(o.shape, generator=generator, dtype=o.dtype)
                 for o in outputs]
        torch.autograd.backward(outputs, grads)
    if set(capture.graphs) != {"forward", "backward"}:
        raise RuntimeError("no backward graph was captured: does any input or "
                           "parameter require grad?")
    description = {"mode": "train", "user_outputs": len(outputs),
                   "partition": partition, "graphs": {}}
    for kind in ("forward", "backward"):
        archive = os.path.join(directory, f"{kind}.pt2")
        kept = save_captured_graph(capture.graphs[kind], capture.inputs[kind], archive)
        results = [capture.outputs[kind][i] for i in kept]
        check_captured(archive, capture.inputs[kind], results)
        description["graphs"][f"{kind}.pt2"] = {
            "input_names": [n.name for n in capture.graphs[kind].graph.nodes
                            if n.op == "placeholder"],
            "inputs": save_arrays(directory, f"{kind}_inputs", capture.inputs[kind]),
            "outputs": save_arrays(directory, f"{kind}_outputs", results),
            "output_names": save_expected(directory, f"{kind}.pt2", results),
        }
    write_description(directory, description)
    return write_ops(directory, ["forward.pt2", "backward.pt2"])
