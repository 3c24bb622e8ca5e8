"""The hand warp-specialized GEMM body (suites/gemm/ws.py), lowered for real by tilelang
for sm_90a on the CPU: its 2-CTA cluster form and its sliced epilogue emit the synchronization
they rely on, and the plain form emits none of it.

What a GPU run cannot show when it merely passes: that rank 0 alone multicasts the B tile, that
every stage hand-back also reaches the peer's ``empty`` barrier (whose count includes those
arrivals), that the cluster barrier brackets the kernel, and that a sliced epilogue waits for
the store two slices back before it reuses a buffer.  Lowering only (no nvcc): about 5 s each.
"""

import importlib
import re

import pytest

tilelang = pytest.importorskip("tilelang")
import tvm  # noqa: E402


@pytest.fixture(scope="module")
def body():
    return importlib.import_module("tlbench.suites.gemm.ws")


def cuda_source(body, size, **config):
    target = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"})
    with target:
        return tilelang.lower(body.gemm_ws_cuda(size, size, size, **config), target=target).kernel_source


TILE = dict(block_M=128, block_N=256, block_K=64, num_stages=3, consumers=2)
REMOTE_ARRIVE = "arrive((1 - tl::block_rank_in_cluster()))"


def test_a_cluster_pair_multicasts_B_from_rank_0_and_hands_every_stage_back_to_both_producers(body):
    plain = cuda_source(body, 2048, **TILE)
    paired = cuda_source(body, 2048, **TILE, cluster=2)

    for word in ("tma_load_multicast", "cluster_sync", "block_rank_in_cluster"):
        assert word not in plain, word
    assert re.findall(r"empty\[\d\]\.init\((\d+)\)", plain) == ["256"] * 3

    # 256 consumer threads arrive locally, one lane of each of their 8 warps at the peer
    assert re.findall(r"empty\[\d\]\.init\((\d+)\)", paired) == ["264"] * 3
    assert paired.count("tma_load_multicast(") == 1
    assert "if (tl::block_rank_in_cluster() == 0) {\n          tl::tma_load_multicast(B_desc" in paired
    # every local hand-back of a stage has its remote twin right after it
    hand_backs = re.findall(r"(empty\[[^\]]+\])\.arrive\(\);\n\s*if \(\(\(\(int\)threadIdx\.x\) % 32\) == 0\) \{\n\s*(empty\[[^\]]+\])\.arrive\(\(1 -", paired)
    assert hand_backs and all(a == b for a, b in hand_backs)
    assert len(hand_backs) == paired.count(REMOTE_ARRIVE) == len(re.findall(r"empty\[[^\]]+\]\.arrive\(\);", paired))
    # the cluster barrier after the mbarrier init and before exit
    assert paired.count("tl::cluster_sync();") == 2
    assert paired.index("tl::fence_barrier_init();") < paired.index("tl::cluster_sync();")
    assert paired.rsplit("tl::cluster_sync();", 1)[1].strip() == "}"


def test_a_persistent_ping_pong_pair_counts_one_consumer_warp_group_per_stage(body):
    source = cuda_source(body, 2048, block_M=128, block_N=128, block_K=64, num_stages=5, consumers=2, persistent=132,
                         pingpong=True, lazy_store=True, cluster=2)
    assert re.findall(r"empty\[\d\]\.init\((\d+)\)", source) == ["132"] * 5  # 128 threads + 4 peer warps
    hand_backs = len(re.findall(r"empty\[[^\]]+\]\.arrive\(\);", source))
    assert hand_backs == source.count(REMOTE_ARRIVE) > 0


def test_the_sliced_epilogue_reuses_a_buffer_only_after_the_store_two_slices_back(body):
    source = cuda_source(body, 4096, **{**TILE, "num_stages": 4}, group_m=16, persistent=132, lazy_store=True,
                         store_slices=4)
    epilogue = source[source.index("for (int q = 0; q < 4; ++q)"):]
    assert epilogue.index("tl::tma_store_wait<1, true>();") < epilogue.index("__sync_thread_partial") < epilogue.index("tl::tma_store(")
    assert epilogue.count("tl::tma_store_arrive();") >= 1  # one bulk group per slice
    assert "tl::tma_store_wait<0, true>();" in source  # the last stores drain before exit


def test_refusals_say_what_to_change():
    limits = importlib.import_module("tlbench.suites.gemm.ws_limits")
    refuse = limits.gemm_ws_refusal
    assert "1 (no cluster) or 2" in refuse(2048, 2048, 2048, **TILE, cluster=4)
    assert "must be even" in refuse(384, 384, 384, block_M=128, block_N=128, block_K=64, cluster=2, group_m=None)
    assert "row pairs" in refuse(1024, 1024, 1024, **TILE, cluster=2)  # 8 tile rows = 4 pairs, group_m 8
    assert "whole pairs" in refuse(2048, 2048, 2048, **TILE, persistent=131, cluster=2)
    assert "lazy_store=True" in refuse(4096, 4096, 4096, **TILE, persistent=132, store_slices=4)
    assert "lazy_store=True" in refuse(4096, 4096, 4096, block_M=128, block_N=128, block_K=64, num_stages=4, consumers=2,
                                       persistent=132, pingpong=True, lazy_store=True, store_slices=2)
    sliced = dict(TILE, num_stages=4, persistent=132, lazy_store=True, group_m=16)
    assert refuse(4096, 4096, 4096, **sliced) is not None  # the whole-tile buffer leaves no room for a fourth stage
    assert refuse(4096, 4096, 4096, **sliced, store_slices=4) is None
    assert limits.gemm_ws_footprint("cuda", **sliced, store_slices=4)["shared.dyn"] == 4 * 384 * 64 * 2 + 2 * 128 * 64 * 2
    assert "over sm_90" in refuse(4096, 4096, 4096, **dict(sliced, num_stages=5), store_slices=4)
