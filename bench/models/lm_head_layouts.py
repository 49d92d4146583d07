"""Times GPT-2's bf16 LM head ([8192, 768] x [768, 50257]) in the layouts a
compiler can choose for it, to decide how Stride keeps both its speed and
its memory (bench/NOTES.md section 24):

  dense        n = 50,257 written at rows of 50,257 (unaligned)
  padded       n = 50,264 (weight padded with zero rows) into its own buffer
  split        n = 50,256 written into the dense logits at ld 50,257, the
               last column by a second product
  classes      rows in 8 classes (r mod 8): class j written at ld 8 x 50,257
               from its first column c_j whose address is 16-byte aligned,
               n_j a multiple of 8 columns; the columns left over at each
               row's ends by two small products over every row
  blocked B    rows in blocks of B: padded product into a [B, 50,264]
               temporary, then copied into the block's rows of the logits
  copy         the padded product copied into the dense logits alone

Each through cuBLAS and cuBLASLt (torch.backends.cuda.preferred_blas_library),
median of 50 CUDA-event-timed calls after 5 warmups; every variant's logits
are compared with the dense product's.
"""

import torch

from bench_models import median_ms

M, K, N = 8192, 768, 50257
PAD = (N + 7) // 8 * 8


def timed(fn):
    return median_ms(fn, warmup=5, iterations=50)


def main():
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16) * 0.02
    wpad = torch.zeros(PAD, K, device="cuda", dtype=torch.bfloat16)
    wpad[:N] = w
    logits = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    padded = torch.empty(M, PAD, device="cuda", dtype=torch.bfloat16)
    reference = torch.mm(a, w.t())

    def dense():
        torch.mm(a, w.t(), out=logits)

    def pad():
        torch.mm(a, wpad.t(), out=padded)

    def split():
        torch.mm(a, w[: N - N % 8].t(), out=logits[:, : N - N % 8])
        torch.mm(a, w[N - N % 8 :].t(), out=logits[:, N - N % 8 :])

    def classes():
        for j in range(8):
            first = (-j * N) % 8
            width = (N - first) // 8 * 8
            torch.mm(a[j::8], w[first : first + width].t(),
                     out=logits[j::8, first : first + width])
        torch.mm(a, w[:8].t(), out=logits[:, :8])
        torch.mm(a, w[N - 8 :].t(), out=logits[:, N - 8 :])

    def copy():
        logits.copy_(padded[:, :N])

    def blocked(rows):
        temp = torch.empty(rows, PAD, device="cuda", dtype=torch.bfloat16)

        def run():
            for r in range(0, M, rows):
                torch.mm(a[r : r + rows], wpad.t(), out=temp)
                logits[r : r + rows].copy_(temp[:, :N])

        return run

    variants = [("dense", dense), ("padded", pad), ("split", split),
                ("classes", classes),
                ("copy", copy)]
    variants += [(f"blocked {b}", blocked(b)) for b in (256, 512, 1024, 2048)]
    for library in ("cublas", "cublaslt"):
        torch.backends.cuda.preferred_blas_library(library)
        for name, fn in variants:
            ms = timed(fn)
            if name == "copy":
                pad()
            fn()
            torch.cuda.synchronize()
            if name == "padded":
                err = (padded[:, :N] - reference).abs().max().item()
            else:
                err = (logits - reference).abs().max().item()
            print(f"{library:9s} {name:13s} {ms:7.3f} ms  max err {err:.3g}",
                  flush=True)


if __name__ == "__main__":
    main()
