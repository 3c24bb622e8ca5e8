"""Behaviour: a vendor call that launches several kernels.

Contract: rows come in ``groups`` equal segments, each scaled by its own weight row.  The
vendor item is a loop of one ``torch.mul`` a group, each writing its slice of the output
tlbench allocated (it names ``out``): one call, several launches, and only all of them
together overwrite the poisoned output.  Its label says how many launches a call makes.
CUDA and Ascend bodies.
"""

import tilelang.ascend.language as TA
import tilelang.language as T
import torch

from tlbench import kernel_sweep


def scale_cuda(groups, rows, N):
    @T.prim_func
    def main(x: T.Tensor((groups * rows, N), "float32"), w: T.Tensor((groups, N), "float32"),
             y: T.Tensor((groups * rows, N), "float32")):
        with T.Kernel(groups, threads=128) as g:
            for r, n in T.Parallel(rows, N):
                y[g * rows + r, n] = x[g * rows + r, n] * w[g, n]
    return main


def scale_ascend(groups, rows, N):
    @TA.prim_func
    def main(x: TA.Tensor((groups * rows, N), "float32"), w: TA.Tensor((groups, N), "float32"),
             y: TA.Tensor((groups * rows, N), "float32")):
        with TA.Kernel(groups) as g:
            seg = TA.alloc_shared((rows, N), "float32")
            wt = TA.alloc_shared((N,), "float32")
            TA.copy(x[g * rows : (g + 1) * rows, :], seg)
            TA.copy(w[g, :], wt)
            with TA.SimtVF(threads=128):
                for r, n in TA.Parallel(rows, N):
                    seg[r, n] = seg[r, n] * wt[n]
            TA.copy(seg, y[g * rows : (g + 1) * rows, :])
    return main


def per_group(x, w, groups, rows, out):
    for g in range(groups):
        torch.mul(x[g * rows : (g + 1) * rows], w[g], out=out[g * rows : (g + 1) * rows])


SWEEP = kernel_sweep(
    "behaviour_vendor_loop", {"cuda": scale_cuda, "ascend": scale_ascend},
    sizes={"groups": 16, "rows": 256, "N": 4096}, smoke={"groups": 4, "rows": 16, "N": 128}, quick=(),
    inputs=lambda device, groups, rows, N: [torch.randn(groups * rows, N, device=device), torch.randn(groups, N, device=device)],
    reference=lambda x, w, groups: x * w.repeat_interleave(x.shape[0] // groups, dim=0),
    vendor=per_group,
    vendor_label=lambda x, w, groups: f"torch.mul per group ({groups} launches a call)",
)


def test_vendor_per_group(tlbench):
    tlbench.run()
