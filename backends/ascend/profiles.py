"""Published profiles of Ascend NPUs, each with where its numbers come from.

Only figures Huawei (or a named provider's spec page) published are entered; a dtype or a bandwidth without one
stays out, and records read "peak unknown" for it rather than a guess.  An NPU is matched by the exact name
``torch.npu.get_device_name()`` reports.
- Ascend 950PR / 950DT (HUAWEI CONNECT 2025 keynote, 18 Sep 2025): FP8 / MXFP8 / HiF8 1 PFLOPS, MXFP4 2 PFLOPS;
  memory 1.6 TB/s (950PR, HiBL 1.0, 128 GB) and 4 TB/s (950DT, HiZQ 2.0, 144 GB).  No FP16/BF16 figure was
  published, so a float16 GEMM on a 950 reads "peak unknown" until ``tlbench calibrate`` measures one.
- Ascend 910B: Huawei publishes no per-chip datasheet for the 910B variants; third-party figures range 256-320
  TFLOPS FP16 and 0.4-1.6 TB/s.  The profile quotes one provider's spec page (FP16 280 TFLOPS) and says so; its
  bandwidth is left unknown.
"""

from __future__ import annotations

from ...harness.core.device_profile import datasheet

HUAWEI_CONNECT_2025 = "HUAWEI CONNECT 2025 keynote (Shanghai, 18 Sep 2025), Ascend 950 series announcement"
ASCEND_950PR = datasheet("Ascend 950PR", ("Ascend950PR",), {"float8_e4m3": 1000}, 1.6,
                         f"{HUAWEI_CONNECT_2025}: FP8/MXFP8/HiF8 1 PFLOPS, MXFP4 2 PFLOPS; HiBL 1.0 128 GB, 1.6 TB/s",
                         "no published FP16/BF16 peak")
ASCEND_950DT = datasheet("Ascend 950DT", ("Ascend950DT",), {"float8_e4m3": 1000}, 4.0,
                         f"{HUAWEI_CONNECT_2025}: FP8/MXFP8/HiF8 1 PFLOPS, MXFP4 2 PFLOPS; HiZQ 2.0 144 GB, 4 TB/s",
                         "no published FP16/BF16 peak")
ASCEND_910B = datasheet(
    "Ascend 910B", ("Ascend910B1", "Ascend910B2", "Ascend910B2C", "Ascend910B3", "Ascend910B4"), {"float16": 280}, None,
    "Gitee AI compute docs, Ascend 910B spec table (ai.gitee.com/docs/compute/clusters_gpu/ascend_gpu): "
    "FP16 280 TFLOPS theoretical peak",
    "not a Huawei datasheet (none is public per variant); third-party FP16 figures range 256-320 TFLOPS; "
    "bandwidth not given: calibrate on your machine")

PROFILES = (ASCEND_950PR, ASCEND_950DT, ASCEND_910B)
