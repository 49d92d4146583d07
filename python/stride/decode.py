"""Exporting a causal language model with a static KV cache as the two
graphs of greedy decoding: a prefill graph (the prompt) and a decode-step
graph (one token), which share their state (the cache).

User-side Python (the export helper's `decode` command; bench/decode): the
compiler and the runtime have none. python-free-docs/decode.md describes
the protocol and examples/generate runs it.

The cache is transformers' StaticCache, held by transformers' own export
wrapper (`transformers.integrations.executorch.
TorchExportableModuleWithStaticCache`, the route ExecuTorch uses), which
registers each layer's key and value tensors as module buffers; the
exported graph writes them in place (outputs of kind BUFFER_MUTATION),
which Stride compiles into state buffers (python-free-docs/state.md).

Both graphs have the signature

    inputs   input_ids [B, T] int64, cache_position [T] int64 (the positions
             of the T tokens: 0..P-1 for the prompt, [p] for a step)
    outputs  logits [B, V] (the last position's, the model's dtype),
             next_token [B, 1] int64 (their argmax; greedy=True),
             next_position [1] int64 (cache_position[-1] + 1)

so that a decode step's outputs are the next step's inputs.
"""

import os

import numpy as np
import torch

from .export import (export_program, relative_error, to_numpy, user_output_names,
                     write_description, write_ops)

# The output names of both graphs, in order (greedy: all three).
OUTPUT_NAMES = ("logits", "next_token", "next_position")


class CachedLM(torch.nn.Module):
    """A transformers causal LM with a StaticCache of `cache_len` positions
    for `batch` sequences, as module buffers, called as the protocol above
    says. `greedy=False` leaves the argmax out (logits and next_position)."""

    def __init__(self, model, batch, cache_len, greedy=True):
        super().__init__()
        from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

        # Inference only: a cache written with values that require grad
        # makes torch.export trace a joint (training) graph.
        model.requires_grad_(False)
        model.generation_config.use_cache = True
        model.generation_config.cache_implementation = "static"
        self.lm = TorchExportableModuleWithStaticCache(
            model, batch_size=batch, max_cache_len=cache_len, device=model.device)
        self.greedy = greedy
        self.output_names = OUTPUT_NAMES if greedy else ("logits", "next_position")

    def forward(self, input_ids, cache_position):
        logits = self.lm(input_ids=input_ids, cache_position=cache_position)[:, -1, :]
        next_position = cache_position[-1:] + 1
        if not self.greedy:
            return logits, next_position
        return logits, logits.argmax(dim=-1, keepdim=True), next_position

    def states(self, mutated=None):
        """The buffers by the names the exported graphs give them: those in
        `mutated` (the graphs' state, e.g. the cache), or all."""
        return {n: b for n, b in self.named_buffers()
                if mutated is None or n in mutated}


def prompt_inputs(prompt):
    return prompt, torch.arange(prompt.shape[1], dtype=torch.int64)


def export_graphs(wrapper, batch, prompt_len, directory):
    """prefill.pt2 (T = prompt_len) and decode.pt2 (T = 1) of `wrapper`,
    exported before it runs (the archives hold the cache's initial zeros).
    Returns their descriptions and the names of the buffers they mutate."""
    graphs, mutated = {}, set()
    example = torch.zeros(batch, prompt_len, dtype=torch.int64)
    for name, inputs in (("prefill.pt2", prompt_inputs(example)),
                         ("decode.pt2", (torch.zeros(batch, 1, dtype=torch.int64),
                                         torch.tensor([prompt_len], dtype=torch.int64)))):
        program = rename_outputs(export_program(wrapper, inputs, strict=True),
                                 wrapper.output_names)
        torch.export.save(program, os.path.join(directory, name))
        graphs[name] = {"input_names": list(program.graph_signature.user_inputs)}
        mutated |= set(program.graph_signature.buffers_to_mutate.values())
    return graphs, mutated


def rename_outputs(program, names):
    """Names the graph's user outputs `names` (torch.export names each
    output after the node that computes it, `select_2`, `argmax`), the
    names Stride then gives the module's outputs."""
    from torch.export.graph_signature import OutputKind, TensorArgument

    nodes = {node.name: node for node in program.graph.nodes}
    user = [spec for spec in program.graph_signature.output_specs
            if spec.kind == OutputKind.USER_OUTPUT]
    for spec, name in zip(user, names):
        node = nodes[spec.arg.name]
        node._rename(name)
        spec.arg = TensorArgument(name=node.name)
    program.graph_module.recompile()
    return program


def greedy_loop(wrapper, prompt, new_tokens):
    """The wrapper run eagerly: the prompt, then new_tokens - 1 steps.
    Returns (tokens [B, N], logits [N, B, V] f32)."""
    tokens, logits = [], []
    with torch.no_grad():
        step_logits, token, position = wrapper(*prompt_inputs(prompt))
        for step in range(new_tokens):
            tokens.append(token)
            logits.append(step_logits.float())
            if step + 1 < new_tokens:
                step_logits, token, position = wrapper(token, position)
    return torch.cat(tokens, dim=1), torch.stack(logits)


def transformers_generate(model, prompt, new_tokens):
    """transformers' own greedy generate (no EOS stop), the new tokens only."""
    config = model.generation_config
    config.eos_token_id = None
    with torch.no_grad():
        out = model.generate(prompt, max_new_tokens=new_tokens, do_sample=False,
                             pad_token_id=0, generation_config=config)
    return out[:, prompt.shape[1]:]


def save_states(directory, states):
    os.makedirs(directory, exist_ok=True)
    for name, tensor in states.items():
        np.save(os.path.join(directory, f"{name}.npy"), to_numpy(tensor))


def export_decode(model, directory, batch=1, prompt_len=16, cache_len=128,
                  new_tokens=64, seed=0):
    """The decode pair of `model` (a transformers causal LM, eval mode) into
    DIRECTORY: prefill.pt2, decode.pt2, prompt.npy, expected_tokens.npy
    (transformers' generate), expected_logits.npy, expected_states/ (the
    cache after the last step), export.json, ops.txt. Returns a summary."""
    if prompt_len + new_tokens - 1 > cache_len:
        raise ValueError(f"prompt_len + new_tokens - 1 = {prompt_len + new_tokens - 1} "
                         f"positions do not fit a cache of {cache_len}")
    os.makedirs(directory, exist_ok=True)
    generator = torch.Generator().manual_seed(seed)
    prompt = torch.randint(0, model.config.vocab_size, (batch, prompt_len),
                           generator=generator)
    wrapper = CachedLM(model, batch, cache_len).eval()
    graphs, mutated = export_graphs(wrapper, batch, prompt_len, directory)
    tokens, logits = greedy_loop(wrapper, prompt, new_tokens)
    expected = transformers_generate(model, prompt, new_tokens)
    np.save(os.path.join(directory, "prompt.npy"), to_numpy(prompt))
    np.save(os.path.join(directory, "expected_tokens.npy"), to_numpy(expected))
    np.save(os.path.join(directory, "expected_logits.npy"), to_numpy(logits))
    save_states(os.path.join(directory, "expected_states"), wrapper.states(mutated))
    agree = torch.equal(tokens, expected)
    for name in graphs:
        graphs[name]["output_names"] = user_output_names(directory, name)
        if graphs[name]["output_names"] != list(OUTPUT_NAMES):
            raise RuntimeError(f"{name}: outputs {graphs[name]['output_names']}, "
                               f"not {list(OUTPUT_NAMES)}")
    write_description(directory, {
        "mode": "decode", "batch": batch, "prompt_len": prompt_len,
        "cache_len": cache_len, "new_tokens": new_tokens, "graphs": graphs,
        "states": {n: list(t.shape) for n, t in wrapper.states(mutated).items()},
        "wrapper_matches_generate": agree,
    })
    summary = write_ops(directory, list(graphs))
    verdict = "equal" if agree else "DIFFERENT (expected_tokens.npy is generate's)"
    return summary + (f"  the exported wrapper's greedy tokens and transformers' "
                      f"generate: {verdict}\n")


__all__ = ["CachedLM", "export_decode", "export_graphs", "greedy_loop",
           "transformers_generate", "relative_error", "OUTPUT_NAMES"]
