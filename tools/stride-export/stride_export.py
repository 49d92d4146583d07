#!/usr/bin/env python3
"""Export PyTorch models for Stride's importer (`stridec model.pt2`).

Three commands:

  export MODEL -o DIR   torch.export.export + Stride's decomposition table,
                        then torch.export.save: DIR/model.pt2, the inputs and
                        PyTorch's outputs as .npy (the outputs also under
                        their graph names in DIR/model_expected/, for
                        stride-run --expect), export.json, ops.txt.
  train MODEL -o DIR    one training step through torch.compile with a
                        capturing AOTAutograd backend: DIR/forward.pt2 and
                        DIR/backward.pt2, each with its inputs and PyTorch's
                        outputs as .npy (the backward's outputs are the
                        gradients; DIR/forward_expected/ and
                        DIR/backward_expected/ as for export), export.json,
                        ops.txt.
  fixtures DIR          regenerate the fixture set committed under
                        test/Import/Torch/fixtures/ (needs `transformers`).

MODEL is either `package.module:Class` (built with no arguments; give the
inputs with --input) or a Python file that defines make_model() and
make_inputs() (a tuple of tensors).

Everything runs on the CPU in the model's own dtype; nothing here needs a GPU.
This file is not part of the compiler, the runtime or the tests.
"""

import argparse
import contextlib
import collections
import importlib
import importlib.util
import json
import os
import sys
import traceback
import zipfile

import numpy as np
import torch

# Ops that Stride has natively and that PyTorch's core ATen table would
# otherwise rewrite into something worse (select_scatter into arange/eq/where,
# index_add into index_put(accumulate=True), ...). They are removed from the
# decomposition table, so they reach the importer as themselves.
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


def save_expected(directory, archive, tensors):
    """PyTorch's outputs under the names the archive gives them (the names
    stride-run gives a module's results), as DIR/<stem>_expected/<name>.npy:
    the folder for stride-run --expect. Returns the names."""
    specs = archive_graph_json(os.path.join(directory, archive))[
        "graph_module"]["signature"]["output_specs"]
    names = [next(iter(spec.values()))["arg"]["as_tensor"]["name"] for spec in specs]
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


def export_model(model, inputs, directory, attention="fused"):
    """torch.export with Stride's table; saves the archive, inputs and outputs."""
    os.makedirs(directory, exist_ok=True)
    with attention_backend(attention):
        expected = flat_tensors(model(*inputs))
        program = torch.export.export(model, tuple(inputs), strict=False)
        program = program.run_decompositions(stride_decompositions(attention))
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


class GraphCapture:
    """A torch.compile backend that records AOTAutograd's forward and backward
    graphs and the real tensors that flow in and out of them."""

    def __init__(self, attention="fused"):
        self.attention = attention
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
                outputs = gm(*args)
                if kind not in self.inputs:
                    self.inputs[kind] = [a for a in args if isinstance(a, torch.Tensor)]
                    self.outputs[kind] = list(outputs)
                return outputs

            return make_boxed_func(run)

        return compiler

    def backend(self):
        from torch._dynamo.backends.common import aot_autograd

        return aot_autograd(
            fw_compiler=self.recorder("forward"),
            bw_compiler=self.recorder("backward"),
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


def save_captured_graph(gm, inputs, archive):
    """Saves one captured graph; returns the positions of the outputs it kept."""
    copy, kept = exportable_copy(gm)
    try:
        program = wrap_in_exported_program(copy)
        torch.export.save(program, archive)
    except Exception:  # noqa: BLE001 - report, then re-trace as a fallback
        traceback.print_exc()
        print(f"  {archive}: wrapping failed; re-exporting the graph instead "
              "(node names and Python frames of the model are lost)")
        program = torch.export.export(copy, tuple(inputs), strict=False)
        program = program.run_decompositions(stride_decompositions())
        torch.export.save(program, archive)
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


def capture_training(model, inputs, directory, seed=0, attention="fused"):
    """One forward and backward step of `model` (random output gradient)."""
    os.makedirs(directory, exist_ok=True)
    torch._dynamo.reset()
    capture = GraphCapture(attention)
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
    description = {"mode": "train", "user_outputs": len(outputs), "graphs": {}}
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


# ----------------------------------------------------------------------------
# Loading a user's model


def load_model(spec, input_specs):
    """(model, inputs) from `module:Class` + --input, or from a file that
    defines make_model() and make_inputs()."""
    if spec.endswith(".py"):
        if not os.path.isfile(spec):
            sys.exit(f"stride_export: {spec}: no such file")
        module_spec = importlib.util.spec_from_file_location("stride_user_model", spec)
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        for needed in ("make_model", "make_inputs"):
            if not hasattr(module, needed):
                sys.exit(f"stride_export: {spec} defines no {needed}()")
        return module.make_model(), tuple(module.make_inputs())
    if ":" not in spec:
        sys.exit(f"stride_export: MODEL '{spec}' is neither module:Class nor a .py file")
    module_name, class_name = spec.split(":", 1)
    model = getattr(importlib.import_module(module_name), class_name)()
    if not input_specs:
        sys.exit(f"stride_export: {spec} needs its inputs: --input SHAPE[:DTYPE]")
    return model, tuple(random_input(s) for s in input_specs)


def random_input(spec):
    """A tensor from SHAPE[:DTYPE], e.g. 4x16x64 or 2x16:int64 (integers in [0, 16))."""
    shape_text, _, dtype_name = spec.partition(":")
    try:
        shape = [int(d) for d in shape_text.split("x")] if shape_text else []
    except ValueError:
        sys.exit(f"stride_export: --input '{spec}': the shape is sizes joined by 'x'")
    dtype = getattr(torch, dtype_name or "float32", None)
    if not isinstance(dtype, torch.dtype):
        sys.exit(f"stride_export: --input '{spec}': unknown dtype '{dtype_name}'")
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=dtype)
    return torch.randint(0, 16, shape, dtype=dtype)


# ----------------------------------------------------------------------------
# The committed fixtures (test/Import/Torch/fixtures/)


class SeedModel(torch.nn.Module):
    """Stride's seed graph: slice_scatter(x, src, dim=1, start, end).sum(dim=1).
    Its backward expands the output gradient (stride 0 on dim 1) and
    slice_scatters zeros into it: the layout bug Stride exists for."""

    def __init__(self, start, end):
        super().__init__()
        self.start, self.end = start, end

    def forward(self, x, src):
        return torch.slice_scatter(x, src, dim=1, start=self.start, end=self.end).sum(dim=1)


def mlp(hidden=64, inner=256):
    return torch.nn.Sequential(
        torch.nn.LayerNorm(hidden),
        torch.nn.Linear(hidden, inner),
        torch.nn.GELU(),
        torch.nn.Linear(inner, hidden),
    )


def encoder_layer():
    return torch.nn.TransformerEncoderLayer(
        d_model=64, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True
    )


def with_attention(model_class, config, implementation="eager"):
    """A transformers model with random weights and the attention
    implementation asked for: "eager" (attention written out as matrix
    products and a softmax) or "sdpa" (transformers' default:
    torch.nn.functional.scaled_dot_product_attention)."""
    try:
        model = model_class._from_config(config, attn_implementation=implementation)
    except Exception:  # noqa: BLE001 - older transformers: set it on the config
        config._attn_implementation = implementation
        model = model_class(config)
    used = getattr(model.config, "_attn_implementation", "?")
    if used != implementation:
        raise RuntimeError(f"{model_class.__name__} uses {used} attention, "
                           f"not {implementation}")
    return model.eval()


class Logits(torch.nn.Module):
    """GPT-2's language-model logits alone."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids=input_ids).logits


class Encodings(torch.nn.Module):
    """BERT's last hidden state and pooled output."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask)
        return out.last_hidden_state, out.pooler_output


# The transformer models take their sizes as arguments: the defaults are the
# committed fixtures' (small, fast to emulate); bench/models/bench_models.py
# builds the benchmark's full sizes from the same functions.


def token_ids(vocab, batch, tokens):
    return torch.randint(0, vocab, (batch, tokens))


def gpt2(layers=2, width=64, heads=4, vocab=256, batch=2, tokens=16,
         dtype=torch.float32, train=False, attention="eager"):
    import transformers

    config = transformers.GPT2Config(
        vocab_size=vocab, n_positions=max(32, tokens), n_embd=width,
        n_layer=layers, n_head=heads, resid_pdrop=0.0, embd_pdrop=0.0,
        attn_pdrop=0.0, use_cache=False,
    )
    model = Logits(with_attention(transformers.GPT2LMHeadModel, config, attention))
    if train:
        model.train()  # dropout is 0: the graph is the same, gradients flow
    return model.to(dtype), (token_ids(vocab, batch, tokens),)


def bert(layers=2, width=64, heads=4, inner=256, vocab=256, batch=2, tokens=16,
         attention="eager"):
    import transformers

    config = transformers.BertConfig(
        vocab_size=vocab, hidden_size=width, num_hidden_layers=layers,
        num_attention_heads=heads, intermediate_size=inner,
        max_position_embeddings=max(32, tokens),
        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
    )
    model = Encodings(with_attention(transformers.BertModel, config, attention))
    mask = torch.ones(batch, tokens, dtype=torch.int64)
    mask[1, tokens * 3 // 4:] = 0  # the second sequence is padded
    return model, (token_ids(vocab, batch, tokens), mask)


def llama(layers=2, width=64, heads=4, kv_heads=2, inner=176, vocab=256,
          batch=2, tokens=16, dtype=torch.float32, attention="eager"):
    """A LLaMA-style decoder (transformers' Llama): RMSNorm, rotary position
    embeddings, a SwiGLU MLP, grouped-query attention (kv_heads < heads),
    the causal mask; output the logits."""
    import transformers

    config = transformers.LlamaConfig(
        vocab_size=vocab, hidden_size=width, intermediate_size=inner,
        num_hidden_layers=layers, num_attention_heads=heads,
        num_key_value_heads=kv_heads, max_position_embeddings=max(32, tokens),
        rms_norm_eps=1e-5, attention_dropout=0.0, use_cache=False,
        tie_word_embeddings=False,
    )
    model = Logits(with_attention(transformers.LlamaForCausalLM, config, attention))
    return model.to(dtype), (token_ids(vocab, batch, tokens),)


def seed_inputs(b, n, h, rows, grad):
    x = torch.randn(b, n, h, requires_grad=grad)
    src = torch.randn(b, rows, h, requires_grad=grad)
    return x, src


def fixture_list():
    """(name, mode, make[, attention]) for each committed fixture; make() ->
    (model, inputs). The fixtures made before Stride had an attention op
    trace attention with PyTorch's math backend (attention "math"); the
    `_sdpa` ones keep it fused."""
    fixtures = []
    for b, n, h, start, end in ((4, 13, 33, 0, 6), (2, 8, 16, 0, 4)):
        shape = f"{b}x{n}x{h}"
        fixtures.append((f"seed_fwd_{shape}", "export",
                         lambda b=b, n=n, h=h, s=start, e=end:
                         (SeedModel(s, e), seed_inputs(b, n, h, e - s, False))))
        fixtures.append((f"seed_train_{shape}", "train",
                         lambda b=b, n=n, h=h, s=start, e=end:
                         (SeedModel(s, e), seed_inputs(b, n, h, e - s, True))))
    fixtures += [
        ("mlp", "export", lambda: (mlp().eval(), (torch.randn(4, 16, 64),))),
        ("encoder_layer", "export",
         lambda: (encoder_layer().eval(), (torch.randn(2, 16, 64),))),
        ("gpt2", "export", gpt2),
        ("bert", "export", bert),
        ("llama", "export", llama),
        ("llama_bf16", "export", lambda: llama(dtype=torch.bfloat16)),
        ("gpt2_train", "train", lambda: gpt2(train=True)),
        ("mlp_train", "train", lambda: (mlp(), (torch.randn(4, 16, 64),))),
        ("encoder_layer_train", "train",
         lambda: (encoder_layer().eval(), (torch.randn(2, 16, 64),))),
    ]
    fixtures = [f + ("math",) for f in fixtures]
    fixtures += [
        ("gpt2_sdpa", "export", lambda: gpt2(attention="sdpa"), "fused"),
        ("bert_sdpa", "export", lambda: bert(attention="sdpa"), "fused"),
        ("llama_sdpa", "export", lambda: llama(attention="sdpa"), "fused"),
        ("encoder_layer_sdpa_train", "train",
         lambda: (encoder_layer().eval(), (torch.randn(2, 16, 64),)), "fused"),
        ("gpt2_sdpa_train_bf16", "train",
         lambda: gpt2(train=True, dtype=torch.bfloat16, attention="sdpa"), "fused"),
    ]
    return fixtures


def make_fixtures(root, only):
    """Every fixture into ROOT/<name>/; returns the names that failed."""
    failed = []
    for name, mode, make, attention in fixture_list():
        if only and name not in only:
            continue
        print(f"== {name} ({mode}, {attention} attention)", flush=True)
        torch.manual_seed(0)
        try:
            model, inputs = make()
            run = export_model if mode == "export" else capture_training
            print(run(model, inputs, os.path.join(root, name), attention=attention),
                  flush=True)
        except Exception:  # noqa: BLE001 - one broken fixture must not stop the rest
            traceback.print_exc()
            failed.append(name)
    return failed


# ----------------------------------------------------------------------------


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="stride_export.py",
        description="Export PyTorch models as torch.export archives (.pt2) for "
        "Stride's importer, with their inputs and PyTorch's outputs as .npy.",
        epilog="Then: stridec DIR/model.pt2 -o model.stridemod; "
        "stride-run model.stridemod --input DIR/inputs_0.npy "
        "--expect DIR/model_expected (python-free-docs/import.md walks through it).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for command, help_text in (
        ("export", "an inference graph: DIR/model.pt2, inputs_N.npy, outputs_N.npy"),
        ("train", "one training step: DIR/forward.pt2 and DIR/backward.pt2 with "
         "forward_/backward_inputs_N.npy and _outputs_N.npy (the gradients)"),
    ):
        sub = commands.add_parser(command, help=help_text, description=help_text)
        sub.add_argument("model", metavar="MODEL",
                         help="module:Class, or a .py file defining make_model() "
                         "and make_inputs()")
        sub.add_argument("-o", "--output-dir", required=True, metavar="DIR")
        sub.add_argument("--input", action="append", default=[],
                         metavar="SHAPE[:DTYPE]",
                         help="a random input for module:Class, e.g. 4x16x64 or "
                         "2x16:int64 (repeat, in argument order)")
        sub.add_argument("--seed", type=int, default=0,
                         help="random seed for inputs and weights (default 0)")
        sub.add_argument("--attention", choices=ATTENTION_MODES, default="fused",
                         help="fused (default): scaled dot-product attention stays "
                         "one op, which Stride imports as stride.attention; math: "
                         "written out as matrix products and a softmax")
    fixtures = commands.add_parser(
        "fixtures", help="regenerate the committed fixtures into DIR",
        description="Regenerate test/Import/Torch/fixtures/ (needs transformers).")
    fixtures.add_argument("output_dir", metavar="DIR")
    fixtures.add_argument("--only", action="append", default=[], metavar="NAME",
                          help="one fixture (repeatable)")
    args = parser.parse_args(argv)

    if args.command == "fixtures":
        failed = make_fixtures(args.output_dir, set(args.only))
        if failed:
            print("failed: " + ", ".join(failed), file=sys.stderr)
        return 1 if failed else 0
    torch.manual_seed(args.seed)
    model, inputs = load_model(args.model, args.input)
    run = export_model if args.command == "export" else capture_training
    print(run(model, inputs, args.output_dir, attention=args.attention))
    return 0


if __name__ == "__main__":
    sys.exit(main())
