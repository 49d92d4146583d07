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
  decode MODEL -o DIR   a causal LM with a static KV cache as the two graphs
                        of greedy decoding: DIR/prefill.pt2 and
                        DIR/decode.pt2 (state: the cache), the prompt,
                        transformers' generate tokens, the logits and the
                        final cache (python-free-docs/decode.md).
  fixtures DIR          regenerate the fixture set committed under
                        test/Import/Torch/fixtures/ (needs `transformers`).

MODEL is either `package.module:Class` (built with no arguments; give the
inputs with --input) or a Python file that defines make_model() and
make_inputs() (a tuple of tensors).

Everything runs on the CPU in the model's own dtype; nothing here needs a GPU.
This file is not part of the compiler, the runtime or the tests: it is the
command-line front end of the stride package's export module
(python/stride/export.py), which it imports from the repository.
"""

import argparse
import importlib
import importlib.util
import os
import sys
import traceback

import torch

# The export logic is the stride package's (python/stride/export.py); this
# file is its command-line front end and the fixtures' models. The package
# beside it comes first, installed or not: the repository's python/, or
# python/ next to this file in a benchmark bundle (bench/*/prepare.sh).
_here = os.path.dirname(os.path.abspath(__file__))
for _folder in (os.path.join(_here, "python"), os.path.join(_here, "..", "..", "python")):
    if os.path.isdir(os.path.join(_folder, "stride")):
        sys.path.insert(0, _folder)
        break
from stride.export import *  # noqa: E402,F401,F403 - the helper's API, as before

# ----------------------------------------------------------------------------
# Loading a user's model


def load_user_file(spec, needed):
    """The Python file `spec`, which must define the functions `needed`."""
    if not os.path.isfile(spec):
        sys.exit(f"stride_export: {spec}: no such file")
    module_spec = importlib.util.spec_from_file_location("stride_user_model", spec)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    for name in needed:
        if not hasattr(module, name):
            sys.exit(f"stride_export: {spec} defines no {name}()")
    return module


def load_model(spec, input_specs):
    """(model, inputs) from `module:Class` + --input, or from a file that
    defines make_model() and make_inputs()."""
    if spec.endswith(".py"):
        module = load_user_file(spec, ("make_model", "make_inputs"))
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


class Hidden(torch.nn.Module):
    """An encoder's last hidden state alone (T5's encoder, DistilBERT)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


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
    return model, (token_ids(vocab, batch, tokens), padding_mask(batch, tokens))


def llama(layers=2, width=64, heads=4, kv_heads=2, inner=176, vocab=256,
          batch=2, tokens=16, dtype=torch.float32, attention="eager", family="llama",
          **extra):
    """A LLaMA-style decoder (transformers' Llama): RMSNorm, rotary position
    embeddings, a SwiGLU MLP, grouped-query attention (kv_heads < heads),
    the causal mask; output the logits. `family="mistral"` builds
    transformers' Mistral, the same layers, with `extra` (its
    `sliding_window`)."""
    import transformers

    config_class, model_class = {
        "llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM),
        "mistral": (transformers.MistralConfig, transformers.MistralForCausalLM),
    }[family]
    config = config_class(
        vocab_size=vocab, hidden_size=width, intermediate_size=inner,
        num_hidden_layers=layers, num_attention_heads=heads,
        num_key_value_heads=kv_heads, max_position_embeddings=max(32, tokens),
        rms_norm_eps=1e-5, attention_dropout=0.0, use_cache=False,
        tie_word_embeddings=False, **extra,
    )
    model = Logits(with_attention(model_class, config, attention))
    return model.to(dtype), (token_ids(vocab, batch, tokens),)


def padding_mask(batch, tokens):
    """Ones, but the second sequence padded after three quarters."""
    mask = torch.ones(batch, tokens, dtype=torch.int64)
    mask[1, tokens * 3 // 4:] = 0
    return mask


def t5_encoder(layers=2, width=64, heads=4, inner=128, vocab=256, batch=2, tokens=16,
               attention="eager"):
    """transformers' T5EncoderModel: unscaled scores plus a relative
    position bias (an embedding of 32 buckets per head, in the first layer,
    shared by the rest) and the padding mask; output the last hidden state."""
    import transformers

    config = transformers.T5Config(
        vocab_size=vocab, d_model=width, d_kv=width // heads, d_ff=inner,
        num_layers=layers, num_heads=heads, relative_attention_num_buckets=32,
        dropout_rate=0.0, feed_forward_proj="relu", use_cache=False)
    model = Hidden(with_attention(transformers.T5EncoderModel, config, attention))
    return model, (token_ids(vocab, batch, tokens), padding_mask(batch, tokens))


def mistral(sliding_window=8, **sizes):
    """transformers' Mistral: LLaMA's layers with a sliding-window causal
    mask (each token sees the `sliding_window` tokens up to itself)."""
    return llama(family="mistral", sliding_window=sliding_window, **sizes)


def distilbert(layers=2, width=64, heads=4, inner=256, vocab=256, batch=2, tokens=16,
               attention="eager"):
    """transformers' DistilBertModel: the query scaled before its product,
    the padding mask applied with masked_fill; the last hidden state."""
    import transformers

    config = transformers.DistilBertConfig(
        vocab_size=vocab, dim=width, n_layers=layers, n_heads=heads, hidden_dim=inner,
        max_position_embeddings=max(32, tokens), dropout=0.0, attention_dropout=0.0)
    model = Hidden(with_attention(transformers.DistilBertModel, config, attention))
    return model, (token_ids(vocab, batch, tokens), padding_mask(batch, tokens))


def resnet50(batch=2, size=224, dtype=torch.float32, train=False):
    """torchvision's ResNet-50 with random weights (no download): inference
    (batch norm with running statistics, folded into the convolutions by
    Stride) or, with `train`, a training step (batch statistics); the input
    a batch of `size` x `size` RGB images."""
    import torchvision

    model = torchvision.models.resnet50(weights=None)
    model = model.train() if train else model.eval()
    images = torch.randn(batch, 3, size, size)
    return model.to(dtype), (images.to(dtype),)


def vit_b16(batch=2, dtype=torch.float32):
    """timm's ViT-B/16 (vit_base_patch16_224) with random weights: the patch
    embedding is a 16x16 stride-16 convolution, then 12 encoder layers
    (timm's fused attention: F.scaled_dot_product_attention); input 224 x
    224 RGB images."""
    import timm

    model = timm.create_model("vit_base_patch16_224", pretrained=False).eval()
    images = torch.randn(batch, 3, 224, 224)
    return model.to(dtype), (images.to(dtype),)


class Encoded(torch.nn.Module):
    """An encoder's last hidden state alone (transformers' WhisperEncoder)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_features):
        return self.model(input_features=input_features).last_hidden_state


def whisper_encoder(layers=2, width=64, heads=4, inner=128, mel_bins=16, positions=16,
                    batch=2, dtype=torch.float32, attention="eager"):
    """transformers' WhisperEncoder with random weights: two 1-D
    convolutions (the second of stride 2) with GELU over `mel_bins` x
    2 * `positions` log-mel frames, sinusoidal positions, then `layers`
    pre-norm encoder layers; output the last hidden state. Whisper-small is
    12 layers, 768 wide, 12 heads, inner 3072, 80 mel bins, 1500 positions."""
    import transformers

    config = transformers.WhisperConfig(
        d_model=width, encoder_layers=layers, encoder_attention_heads=heads,
        encoder_ffn_dim=inner, num_mel_bins=mel_bins, max_source_positions=positions,
        dropout=0.0, attention_dropout=0.0, activation_dropout=0.0)
    encoder = with_attention(transformers.models.whisper.modeling_whisper.WhisperEncoder,
                             config, attention)
    features = torch.randn(batch, mel_bins, 2 * positions)
    return Encoded(encoder).to(dtype), (features.to(dtype),)


class SparseMoeBlock(torch.nn.Module):
    """A Mixtral-style sparse mixture-of-experts block: a router picks the
    top `top_k` of `experts` SwiGLU experts per token and weighs them with
    the softmax of the picked logits (Mixtral's order: softmax over all
    logits, top-k, renormalize). Written in the form torch.export keeps
    static: every expert runs on every token as one batched product, and a
    token's weight for an expert it did not pick is 0 (per-expert token
    lists have data-dependent sizes, which a static export cannot hold).
    Stride and PyTorch run this same graph."""

    def __init__(self, width, inner, experts, top_k):
        super().__init__()
        self.top_k = top_k
        self.router = torch.nn.Linear(width, experts, bias=False)
        scale = width ** -0.5
        self.gate = torch.nn.Parameter(torch.randn(experts, width, inner) * scale)
        self.up = torch.nn.Parameter(torch.randn(experts, width, inner) * scale)
        self.down = torch.nn.Parameter(torch.randn(experts, inner, width) * inner ** -0.5)

    def forward(self, hidden):
        batch, tokens, width = hidden.shape
        x = hidden.reshape(batch * tokens, width)
        probabilities = torch.softmax(self.router(x).float(), dim=-1)
        top, picked = torch.topk(probabilities, self.top_k, dim=-1)
        top = top / top.sum(dim=-1, keepdim=True)
        weights = torch.zeros_like(probabilities).scatter(1, picked, top).to(x.dtype)
        every = x.unsqueeze(0).expand(self.gate.shape[0], -1, -1)
        act = torch.nn.functional.silu(torch.bmm(every, self.gate)) * torch.bmm(every, self.up)
        out = torch.bmm(act, self.down)  # [experts, tokens, width]
        mixed = (out * weights.t().unsqueeze(-1)).sum(dim=0)
        return mixed.reshape(batch, tokens, width)


def moe_block(width=64, inner=128, experts=4, top_k=2, batch=2, tokens=8,
              dtype=torch.float32):
    """SparseMoeBlock with random weights (Mixtral 8x7B: width 4096, inner
    14336, 8 experts, top 2)."""
    model = SparseMoeBlock(width, inner, experts, top_k).eval()
    return model.to(dtype), (torch.randn(batch, tokens, width).to(dtype),)


class Dlrm(torch.nn.Module):
    """A DLRM-style recommendation model: a bottom MLP over the dense
    features, one EmbeddingBag (sum) per sparse feature with offsets, the
    pairwise dot products of the bottom output and the bags (the strictly
    lower triangle), a top MLP and a sigmoid."""

    def __init__(self, dense, rows, width, bottom, top):
        super().__init__()

        def mlp(sizes):
            layers = []
            for a, b in zip(sizes, sizes[1:]):
                layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
            return torch.nn.Sequential(*layers[:-1])

        self.bottom = mlp([dense] + bottom + [width])
        self.tables = torch.nn.ModuleList(
            torch.nn.EmbeddingBag(r, width, mode="sum") for r in rows)
        features = len(rows) + 1
        rows_, cols_ = torch.tril_indices(features, features, offset=-1)
        # The pairs as positions in the flattened [features x features]
        # products: one index_select instead of indexing two dims.
        self.register_buffer("pairs", rows_ * features + cols_, persistent=False)
        self.top = mlp([width + features * (features - 1) // 2] + top + [1])

    def forward(self, dense, indices, offsets):
        x = torch.relu(self.bottom(dense))
        bags = [t(indices[i], offsets[i]) for i, t in enumerate(self.tables)]
        stacked = torch.stack([x] + bags, dim=1)  # [batch, features, width]
        products = torch.bmm(stacked, stacked.transpose(1, 2))
        pairs = torch.index_select(products.flatten(1), 1, self.pairs)
        return torch.sigmoid(self.top(torch.cat([x, pairs], dim=1)))


def dlrm(batch=4, dense=4, rows=(50, 30, 20), width=16, bottom=(32,), top=(32,),
         per_bag=3, dtype=torch.float32):
    """Dlrm with random weights and inputs: `per_bag` lookups per sample
    and table at most (bags of 1 to `per_bag` ids; DLRM's Criteo config:
    13 dense features, 26 tables, width 64 or 128)."""
    model = Dlrm(dense, list(rows), width, list(bottom), list(top)).eval()
    lengths = torch.randint(1, per_bag + 1, (len(rows), batch))
    offsets = torch.cat([torch.zeros(len(rows), 1, dtype=torch.int64),
                         lengths.cumsum(1)[:, :-1]], dim=1)
    total = int(lengths.sum(1).max())
    # Every table gets `total` ids (the bags of the shorter ones end early:
    # their last bag takes the rest), so the indices stack into one tensor.
    indices = torch.stack([torch.randint(0, r, (total,)) for r in rows])
    return model.to(dtype), (torch.randn(batch, dense).to(dtype), indices, offsets)


class TinyCnn(torch.nn.Module):
    """A small ResNet-style network: a 3x3 stem with batch norm and ReLU, a
    max pool, one residual block (two 3x3 convolutions, a 1x1 strided
    projection on the shortcut), adaptive average pooling and a linear
    classifier."""

    def __init__(self, channels=8, classes=10):
        super().__init__()
        c = channels
        bn = torch.nn.BatchNorm2d
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, c, 3, padding=1, bias=False),
                                        bn(c), torch.nn.ReLU(), torch.nn.MaxPool2d(2))
        self.body = torch.nn.Sequential(
            torch.nn.Conv2d(c, 2 * c, 3, stride=2, padding=1, bias=False), bn(2 * c),
            torch.nn.ReLU(), torch.nn.Conv2d(2 * c, 2 * c, 3, padding=1, bias=False),
            bn(2 * c))
        self.shortcut = torch.nn.Sequential(torch.nn.Conv2d(c, 2 * c, 1, stride=2, bias=False),
                                            bn(2 * c))
        self.head = torch.nn.Linear(2 * c, classes)

    def forward(self, images):
        x = self.stem(images)
        x = torch.relu(self.body(x) + self.shortcut(x))
        pooled = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(pooled)


def tiny_cnn(batch=2, size=16):
    model = TinyCnn()
    for m in model.modules():  # running statistics that are not the identity
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
    return model.eval(), (torch.randn(batch, 3, size, size),)


def vit_block(batch=2, dtype=torch.float32):
    """timm's VisionTransformer at toy size: 32 x 32 images, 8 x 8 patches
    (a strided convolution), width 64, one block of 4 heads, 10 classes."""
    import timm.models.vision_transformer as vt

    model = vt.VisionTransformer(img_size=32, patch_size=8, embed_dim=64, depth=1,
                                 num_heads=4, num_classes=10).eval()
    return model.to(dtype), (torch.randn(batch, 3, 32, 32).to(dtype),)


def causal_lm(kind, dtype=torch.float32, **sizes):
    """A transformers causal LM for the decode command, with transformers'
    default (sdpa) attention and its cache on: "llama" (LlamaForCausalLM,
    grouped-query attention) or "gpt2" (GPT2LMHeadModel), the fixtures'
    small sizes unless `sizes` say otherwise (llama: layers, width, heads,
    kv_heads, inner, vocab; gpt2: layers, width, heads, vocab)."""
    import transformers

    if kind == "llama":
        s = dict(layers=2, width=64, heads=4, kv_heads=2, inner=176, vocab=256) | sizes
        config = transformers.LlamaConfig(
            vocab_size=s["vocab"], hidden_size=s["width"], intermediate_size=s["inner"],
            num_hidden_layers=s["layers"], num_attention_heads=s["heads"],
            num_key_value_heads=s["kv_heads"], max_position_embeddings=8192,
            rms_norm_eps=1e-5, attention_dropout=0.0, tie_word_embeddings=False)
        model_class = transformers.LlamaForCausalLM
    elif kind == "gpt2":
        s = dict(layers=2, width=64, heads=4, vocab=256) | sizes
        config = transformers.GPT2Config(
            vocab_size=s["vocab"], n_positions=1024, n_embd=s["width"],
            n_layer=s["layers"], n_head=s["heads"], resid_pdrop=0.0,
            embd_pdrop=0.0, attn_pdrop=0.0)
        model_class = transformers.GPT2LMHeadModel
    else:
        raise ValueError(f"unknown causal LM '{kind}': llama or gpt2")
    config.use_cache = True
    return with_attention(model_class, config, "sdpa").to(dtype)


def load_causal_lm(spec, dtype, size_specs):
    """The decode command's model: llama, gpt2 (with --size KEY=N) or a .py
    file whose make_model() returns a transformers causal LM."""
    if spec.endswith(".py"):
        if size_specs:
            sys.exit("stride_export: --size applies to llama and gpt2 only")
        return load_user_file(spec, ("make_model",)).make_model()
    sizes = {}
    for text in size_specs:
        key, _, value = text.partition("=")
        if not value.isdigit():
            sys.exit(f"stride_export: --size '{text}': KEY=N, e.g. layers=4")
        sizes[key] = int(value)
    try:
        return causal_lm(spec, getattr(torch, dtype), **sizes)
    except (ValueError, TypeError, KeyError) as error:
        sys.exit(f"stride_export: decode {spec}: {error}")


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
        # Issue 39's other eager spellings: T5's relative bias, Mistral's
        # sliding window, DistilBERT's masked_fill.
        ("t5_encoder", "export", t5_encoder),
        ("mistral", "export", mistral),
        ("distilbert", "export", distilbert),
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
        # Issue 42's model families at toy sizes.
        ("tiny_cnn", "export", tiny_cnn, "fused"),
        ("vit_block", "export", vit_block, "fused"),
        ("whisper_encoder", "export", lambda: whisper_encoder(attention="sdpa"), "fused"),
        ("moe_block", "export", moe_block, "fused"),
        ("dlrm", "export", dlrm, "fused"),
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
    commands.choices["train"].add_argument(
        "--partition", choices=PARTITIONS, default="min-cut",
        help="which tensors the forward saves for the backward: min-cut "
        "(default, as torch.compile's inductor: fewer saved tensors, cheap "
        "pointwise ops recomputed in the backward) or default (AOTAutograd's "
        "default_partition: every intermediate the backward reads)")
    commands.choices["export"].add_argument(
        "--dynamic", action="append", default=[], metavar="NAME=INPUT:DIM:MIN:MAX",
        help="dim DIM of input INPUT (from 0) takes every size in [MIN, MAX], "
        "as the symbol NAME (torch.export.Dim); repeat for more dims, the same "
        "NAME for dims that are always equal, e.g. batch=0:0:1:64")
    decode = commands.add_parser(
        "decode", help="prefill and decode-step graphs of a causal LM with a "
        "static KV cache", description="Export a transformers causal LM with a "
        "static KV cache (StaticCache) as two graphs that share the cache as "
        "state: DIR/prefill.pt2 (the prompt) and DIR/decode.pt2 (one token), "
        "with the prompt, transformers' greedy generate tokens, the logits "
        "that chose them and the cache after the last step "
        "(python-free-docs/decode.md).")
    decode.add_argument("model", metavar="MODEL",
                        help="llama or gpt2 (random weights, sizes from --size), "
                        "or a .py file whose make_model() returns a transformers "
                        "causal LM")
    decode.add_argument("-o", "--output-dir", required=True, metavar="DIR")
    decode.add_argument("--size", action="append", default=[], metavar="KEY=N",
                        help="a size of llama or gpt2: layers, width, heads, "
                        "kv_heads (llama), inner (llama), vocab (repeatable)")
    decode.add_argument("--dtype", choices=("float32", "bfloat16", "float16"),
                        default="float32")
    decode.add_argument("--batch", type=int, default=1)
    decode.add_argument("--prompt-len", type=int, default=16)
    decode.add_argument("--cache-len", type=int, default=128,
                        help="the cache's capacity in positions (default 128)")
    decode.add_argument("--new-tokens", type=int, default=64)
    decode.add_argument("--seed", type=int, default=0)
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
    if args.command == "decode":
        from stride.decode import export_decode

        model = load_causal_lm(args.model, args.dtype, args.size).eval()
        print(export_decode(model, args.output_dir, batch=args.batch,
                            prompt_len=args.prompt_len, cache_len=args.cache_len,
                            new_tokens=args.new_tokens, seed=args.seed))
        return 0
    model, inputs = load_model(args.model, args.input)
    if args.command == "train":
        print(capture_training(model, inputs, args.output_dir,
                               attention=args.attention, partition=args.partition))
        return 0
    try:
        dynamic = dynamic_shapes_of([parse_dynamic(d) for d in args.dynamic], inputs)
    except ValueError as error:
        parser.error(str(error))
    print(export_model(model, inputs, args.output_dir, attention=args.attention,
                       dynamic_shapes=dynamic))
    return 0


if __name__ == "__main__":
    sys.exit(main())
