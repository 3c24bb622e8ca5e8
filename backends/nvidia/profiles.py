"""Datasheet profiles of NVIDIA data-centre GPUs: dense tensor-core peaks and HBM bandwidth.

A GPU is matched by the exact name CUDA reports ("with sparsity" figures halved); any other gets
the bandwidth it reports itself (``device_reported_profile``) and no FLOP peak.
"""

from __future__ import annotations

from tlbench.harness.core.device_profile import DEVICE, DeviceProfile, datasheet

def _hopper(column: str, name: str, fp16: float, fp8: float, tf32: float, tb_per_s: float, memory: str) -> DeviceProfile:
    """A Hopper datasheet column: dense peaks in TFLOP/s (the sheet quotes twice these, with sparsity)."""
    source = (f"NVIDIA {column.split()[0]} Tensor Core GPU datasheet ({column} column): FP16/BF16 {2 * fp16:,.0f} TFLOPS, "
              f"FP8 {2 * fp8:,.0f} TFLOPS, TF32 {2 * tf32:,.0f} TFLOPS, all with sparsity (dense = half); {memory}")
    tflops = {"float16": fp16, "bfloat16": fp16, "float8_e4m3": fp8, "float32": tf32}
    return datasheet(f"NVIDIA {column}", (name,), tflops, tb_per_s, source, notes="float32 is the TF32 tensor-core peak")


H200_SXM = _hopper("H200 SXM", "NVIDIA H200", 989.5, 1979, 494.5, 4.8, "GPU memory bandwidth 4.8 TB/s HBM3e")
H200_NVL = _hopper("H200 NVL", "NVIDIA H200 NVL", 835.5, 1670.5, 417.5, 4.8, "4.8 TB/s")
H100_SXM = _hopper("H100 SXM", "NVIDIA H100 80GB HBM3", 989.5, 1979, 494.5, 3.35, "GPU memory bandwidth 3.35 TB/s")
H100_PCIE = _hopper("H100 PCIe", "NVIDIA H100 PCIe", 756.5, 1513, 378, 2.0, "GPU memory bandwidth 2 TB/s")

PROFILES = (H200_SXM, H200_NVL, H100_SXM, H100_PCIE)


def device_reported_profile(info: dict) -> DeviceProfile | None:
    """The profile a GPU gives of itself (``device_info``'s memory clock and bus width, read from torch's device
    properties, no NVML): its theoretical memory bandwidth and no FLOP peak; None where the info holds no bandwidth."""
    bandwidth = info.get("memory_bandwidth_bytes_s")
    if not bandwidth:
        return None
    name = info.get("accelerator") or "GPU"
    return DeviceProfile(
        device=str(name), peak_flops={}, memory_bandwidth=float(bandwidth), origin=DEVICE,
        source=(f"the device's own properties (torch.cuda.get_device_properties): memory clock "
                f"{info.get('memory_clock_khz', 0) / 1000:.0f} MHz x {info.get('memory_bus_width_bits')}-bit bus x 2 "
                "(double data rate); no datasheet profile names this GPU"),
        device_names=(str(name),),
    )
