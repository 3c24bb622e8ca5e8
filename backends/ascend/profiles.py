"""Published profiles of Ascend NPUs, each with where its numbers come from, matched by the exact
name ``torch.npu.get_device_name()`` reports; anything else (and any figure not published) reads
"peak unknown" until ``tlbench calibrate`` measures it.
"""

from __future__ import annotations

from tlbench.harness.core.device_profile import datasheet

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
