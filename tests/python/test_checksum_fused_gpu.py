"""kmut.checksum_fused: one launch gives guards.checksum the torch expression's sums, so a
column's digest is the same string either way. The kernel's source is compiled by the real NVRTC in CI
(`test_own_kernels.py`); its sums are checked on a GPU (`-m gpu`, on the device)."""

from __future__ import annotations

import pytest
import torch

from kmut import checksum_fused
from kmut.guards import checksum


def test_host_tensors_and_the_switch_keep_the_torch_path(monkeypatch):
    w = checksum_fused.words(torch.randn(10), torch)
    assert w.dtype == torch.int32 and not checksum_fused.takes(w), "host tensors are summed by torch"
    assert checksum_fused.words(torch.ones(3, dtype=torch.uint8), torch).dtype == torch.uint8, "an odd byte count sums bytes"
    monkeypatch.setenv("KMUT_CHECKSUM", "torch")
    assert not checksum_fused.enabled()
    monkeypatch.delenv("KMUT_CHECKSUM")
    calls = []
    monkeypatch.setattr(checksum_fused, "sums", lambda *a: calls.append(1))
    checksum([torch.randn(5), 3], torch)
    assert calls == [], "the kernel is never asked for host tensors"


def tensors(device):
    g = torch.Generator().manual_seed(3)
    big = torch.randn(3_000_001, generator=g)
    return [
        big.to(device),  # several laps of the grid-stride loop, words past the weighted head
        torch.randn(7, 5, generator=g).to(device).t(),  # not contiguous: summed from a copy
        torch.randint(-(2**31), 2**31 - 1, (1021 * 3,), generator=g, dtype=torch.int64).to(device),
        torch.tensor([True, False, True], device=device),  # three bytes: summed as bytes
        torch.randn(5, generator=g, dtype=torch.float64).to(device),
        torch.randn(3, generator=g).half().to(device),  # six bytes: bytes again
        torch.full((4,), -1, dtype=torch.int32, device=device),  # negative words
        torch.empty(0, device=device),
        2.5,  # a scalar argument is described, not summed
    ]


@pytest.mark.gpu
def test_the_kernel_gives_the_torch_digest_and_sees_one_changed_word(monkeypatch):
    ts = tensors("cuda")
    fused = checksum(ts, torch)
    monkeypatch.setenv("KMUT_CHECKSUM", "torch")
    assert checksum(ts, torch) == fused, "the kernel's sums are torch's"
    assert checksum(tensors("cpu"), torch) == fused, "and the host's"
    monkeypatch.delenv("KMUT_CHECKSUM")
    kept = ts[0][2_999_999].clone()
    ts[0][2_999_999] = kept + 1.0
    assert checksum(ts, torch) != fused, "a changed word past the head changes the digest"
    ts[0][2_999_999] = kept  # (adding 1 and taking it away again need not give the same float)
    assert checksum(ts, torch) == fused
    ts[2][[5, 6]] = ts[2][[6, 5]]
    assert checksum(ts, torch) != fused, "two swapped words in the head change it"


@pytest.mark.gpu
def test_per_tensor_sums_equal_torchs():
    ts = [t for t in tensors("cuda") if isinstance(t, torch.Tensor)]
    ws = [checksum_fused.words(t, torch) for t in ts]
    got = checksum_fused.sums(ws, torch).tolist()
    for w, (total, weighted) in zip(ws, got):
        head = w[: checksum_fused.HEAD].to(torch.int64)
        assert total == int(w.sum(dtype=torch.int64))
        assert weighted == int((head * torch.arange(1, 1 + head.numel(), device=w.device)).sum())
