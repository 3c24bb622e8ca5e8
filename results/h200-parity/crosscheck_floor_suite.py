"""The launch floor for the timer cross-check (backends/tools/timer_crosscheck.py ``--suite``).

Not a pytest suite (nothing collects it): a ``SWEEP`` the tool reads.  One block copies 512
bytes (tilelang, body in crosscheck_floor_kernel.py) and torch copies the same row (one
elementwise kernel), so each
kernel does almost nothing: what a timer reads for them is what it adds to any kernel (its
launch and timestamp costs), and ncu minus CUPTI here is the fixed part of that gap at every
size.  ``--case copy_floor-N128-f32-threads128`` and its ``-vendor``.
"""

from tlbench import kernel_sweep

K = "crosscheck_floor_kernel:"
SWEEP = kernel_sweep(
    "copy_floor", {"cuda": K + "copy_row_cuda"},
    sizes={"N": 128, "dtype": "float32"},
    axes={"threads": [128]},
    inputs=K + "inputs", reference=K + "reference",
    vendor=K + "torch_copy", vendor_label="torch elementwise copy",
    bytes_moved=lambda N, dtype: 2 * N * 4,
    kinds=("device",), backends=("nvidia",),
    description="one block copying 128 floats: each timer's floor",
)
