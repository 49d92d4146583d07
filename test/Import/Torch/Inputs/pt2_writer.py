"""Writes torch.export archives (.pt2) and .npy files by hand, in the
export schema, with Python's standard library only (no PyTorch, no NumPy):
the helpers the make-*-archives.py scripts beside this file share (the
archives of the importer's tests: PyTorch cannot run on this machine).
A graph's archive is the seed_fwd_2x8x16 fixture (torch 2.11) with its
model replaced, and the buffers' bytes added as weights.
"""

import json
import math
import os
import random
import struct
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = os.path.join(HERE, "..", "fixtures", "seed_fwd_2x8x16", "model.pt2")
MODEL_JSON = "model/models/model.json"
WEIGHTS_JSON = "model/data/weights/model_weights_config.json"

F32, F64, I64, BOOL, U64 = 7, 8, 5, 12, 35
INF = float("inf")

# ----------------------------------------------------------------------------
# Tensors: nested lists of a shape, flattened row-major


def numel(shape):
    return math.prod(shape)


def index(shape, flat):
    """The multi-index of row-major position `flat`."""
    out = []
    for size in reversed(shape):
        out.append(flat % size)
        flat //= size
    return tuple(reversed(out))


class Tensor:
    def __init__(self, shape, values, dtype=F32):
        assert len(values) == numel(shape)
        self.shape, self.values, self.dtype = list(shape), list(values), dtype

    def __getitem__(self, idx):
        flat = 0
        for i, size in zip(idx, self.shape):
            flat = flat * size + i
        return self.values[flat]


def rand(rng, shape):
    """Floats in [-1, 1) with 3 decimals: exact enough as f32 inputs."""
    return Tensor(shape, [round(rng.uniform(-1, 1), 3) for _ in range(numel(shape))])


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def rounded(t):
    return Tensor(t.shape, [f32(x) for x in t.values], t.dtype)


def broadcast_get(t, idx):
    """t[idx] with PyTorch's broadcasting (t's trailing dims align)."""
    idx = idx[len(idx) - len(t.shape):]
    return t[tuple(0 if size == 1 else i for i, size in zip(idx, t.shape))]


# ----------------------------------------------------------------------------
# .npy files


def write_npy(path, t):
    descr = {F32: "<f4", F64: "<f8", I64: "<i8", BOOL: "|b1"}[t.dtype]
    shape = repr(tuple(t.shape))
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(tensor_bytes(t))


# ----------------------------------------------------------------------------
# The export schema


def strides_of(shape, order=None):
    """Dense strides of `shape` whose dims, outermost first, are `order`."""
    order = order or list(range(len(shape)))
    strides, step = [0] * len(shape), 1
    for d in reversed(order):
        strides[d] = step
        step *= shape[d]
    return strides


def meta(dtype, shape, order=None):
    return {"dtype": dtype, "sizes": [{"as_int": s} for s in shape],
            "requires_grad": False, "device": {"type": "cpu", "index": None},
            "strides": [{"as_int": s} for s in strides_of(shape, order)],
            "storage_offset": {"as_int": 0}, "layout": 7}


def sym_int(entry):
    """A SymInt of tensor metadata: an int, or an expression's text
    ("s0", "64*s1") as torch.export writes it ({"as_expr": ...}; the hint,
    which Stride does not read, 1)."""
    if isinstance(entry, int):
        return {"as_int": entry}
    return {"as_expr": {"expr_str": entry, "hint": {"as_int": 1}}}


def symbolic_strides(shape):
    """Row-major strides of a shape of ints and symbol names, as the
    expressions torch.export writes ("64*s1")."""
    strides, ints_part, names = [], 1, []
    for size in reversed(shape):
        factors = ([str(ints_part)] if ints_part != 1 or not names else []) + names
        strides.append("*".join(factors) if names else ints_part)
        if isinstance(size, int):
            ints_part *= size
        else:
            names = [size] + names
    return list(reversed(strides))


def symbolic_meta(dtype, shape, strides=None, offset=0):
    """Tensor metadata whose sizes (and strides, row-major unless given)
    may be symbol names or expressions."""
    strides = strides if strides is not None else symbolic_strides(shape)
    return {"dtype": dtype, "sizes": [sym_int(s) for s in shape],
            "requires_grad": False, "device": {"type": "cpu", "index": None},
            "strides": [sym_int(s) for s in strides],
            "storage_offset": sym_int(offset), "layout": 7}


def t(name):
    return {"as_tensor": {"name": name}}


NONE = {"as_none": True}


def ints(x):
    return {"as_ints": x}


class Graph:
    """Nodes, their values' types, the graph's inputs and outputs (names;
    None for an output that is None, as a backward graph returns for an
    input that needs no gradient; or an argument union). Inputs and outputs
    are user inputs and outputs unless `input_specs` or `output_specs` give
    another spec (a buffer, a buffer mutation, ...) for a name; `buffers`
    holds the stored values of buffers (name -> Tensor)."""

    def __init__(self):
        self.nodes, self.values, self.inputs, self.outputs = [], {}, [], []
        self.sym_ints = {}  # the SymInt outputs' values
        self.input_specs, self.output_specs, self.buffers = {}, {}, {}
        # range_constraints: symbol -> {"min_val": ..., "max_val": ...}
        self.range_constraints = {}

    def buffer(self, name, target, value, stored=True):
        """A buffer input `name` holding module buffer `target` (its value
        stored in the archive's weights when `stored`)."""
        self.input(name, value.dtype, value.shape)
        self.input_specs[name] = {"buffer": {"arg": {"name": name},
                                             "buffer_name": target,
                                             "persistent": True}}
        if stored:
            self.buffers[target] = value
        return name

    def mutates(self, output, kind, target):
        """Output `output` is a `kind` ("buffer_mutation" or
        "user_input_mutation") of `target`."""
        key = "buffer_name" if kind == "buffer_mutation" else "user_input_name"
        self.output_specs[output] = {kind: {"arg": {"name": output}, key: target}}

    def input(self, name, dtype, shape):
        self.inputs.append(name)
        self.values[name] = meta(dtype, shape)
        return name

    def node(self, target, args, outputs, namespace="aten"):
        """args: (name, value) with value a tensor name, None, or an argument
        union; outputs: (name, dtype, shape[, dim order from the outermost]),
        NONE, or an int (a SymInt output of that value). The target is
        torch.ops.NAMESPACE.TARGET ("_c10d_functional" for collectives)."""
        inputs = []
        for arg_name, value in args:
            if isinstance(value, str):
                value = t(value)
            elif value is None:
                value = NONE
            inputs.append({"name": arg_name, "arg": value, "kind": 1})
        outs = []
        for out in outputs:
            if isinstance(out, dict):
                outs.append(out)
                continue
            if isinstance(out, int):  # a SymInt output and its value
                name = f"sym_{len(self.sym_ints)}"
                self.sym_ints[name] = {"as_int": out}
                outs.append({"as_sym_int": {"as_name": name}})
                continue
            self.values[out[0]] = meta(*out[1:])
            outs.append(t(out[0]))
        self.nodes.append({"target": f"torch.ops.{namespace}." + target, "inputs": inputs,
                           "outputs": outs, "metadata": {},
                           "is_hop_single_tensor_return": None,
                           "name": next((o["as_tensor"]["name"] for o in outs
                                         if "as_tensor" in o), None)})

    def claim(self, name, strides):
        """Value `name`'s strides as the file claims them (not dense)."""
        self.values[name]["strides"] = [{"as_int": s} for s in strides]

    def output_spec(self, name, arg):
        """The signature's spec of output `name` (its argument `arg`)."""
        if isinstance(name, str) and name in self.output_specs:
            return self.output_specs[name]
        return {"user_output": {"arg": arg}}

    def program(self, seed):
        p = json.loads(json.dumps(seed))
        g = p["graph_module"]["graph"]
        g["inputs"] = [t(n) for n in self.inputs]
        outputs = [NONE if n is None else n if isinstance(n, dict) else t(n)
                   for n in self.outputs]
        g["outputs"] = outputs
        g["nodes"] = self.nodes
        g["tensor_values"] = self.values
        g["sym_int_values"] = self.sym_ints
        sig = p["graph_module"]["signature"]
        sig["input_specs"] = [self.input_specs.get(n, {"user_input": {"arg": t(n)}})
                              for n in self.inputs]
        sig["output_specs"] = [self.output_spec(n, o)
                               for n, o in zip(self.outputs, outputs)]
        if self.range_constraints:
            p["range_constraints"] = self.range_constraints
        return p


def graph_of(inputs):
    """A graph whose inputs are `inputs` (name -> Tensor), in order."""
    graph = Graph()
    for name, value in inputs.items():
        graph.input(name, value.dtype, value.shape)
    return graph


def tensor_bytes(t):
    fmt = {F32: "<f", F64: "<d", I64: "<q", BOOL: "<?"}[t.dtype]
    return b"".join(struct.pack(fmt, x) for x in t.values)


def write_archive(folder, name, graph):
    """folder/name.pt2: the seed's archive with the graph's model and its
    buffers' values as weights."""
    with zipfile.ZipFile(SEED) as seed_zip:
        entries = [(i.filename, seed_zip.read(i.filename)) for i in seed_zip.infolist()]
    seed = json.loads(dict(entries)[MODEL_JSON])
    replaced = {MODEL_JSON: json.dumps(graph.program(seed)).encode()}
    config = {}
    for i, (target, value) in enumerate(graph.buffers.items()):
        config[target] = {"path_name": f"weight_{i}", "is_param": False,
                          "use_pickle": False,
                          "tensor_meta": meta(value.dtype, value.shape)}
        entries.insert(0, (f"model/data/weights/weight_{i}", tensor_bytes(value)))
    if config:
        replaced[WEIGHTS_JSON] = json.dumps({"config": config}).encode()
    with zipfile.ZipFile(os.path.join(folder, name + ".pt2"), "w", zipfile.ZIP_STORED) as z:
        for filename, data in entries:
            entry = zipfile.ZipInfo(filename, date_time=(1980, 1, 1, 0, 0, 0))
            z.writestr(entry, replaced.get(filename, data))


def write_case(out, name, graph, inputs, expected):
    """The archive, its inputs (name -> Tensor) as out/NAME.INPUT.npy and
    expected outputs as out/NAME.expected/OUTPUT.npy."""
    write_archive(out, name, graph)
    for input_name, value in inputs.items():
        write_npy(os.path.join(out, f"{name}.{input_name}.npy"), value)
    folder = os.path.join(out, name + ".expected")
    os.makedirs(folder, exist_ok=True)
    for output_name, value in expected.items():
        write_npy(os.path.join(folder, output_name + ".npy"), value)


