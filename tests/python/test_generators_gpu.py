"""Generated inputs transformed on the GPU (the run worker's recipe for the witness search's
columns, `Worker.generated`) equal the CPU's (`kmut.generators.draw`, what a replay and the
exported module draw) to the bit, for every generator the worker transforms there. Skipped
without a GPU; the campaign script runs it first and keeps the transforms on the CPU
(`KMUT_TRANSFORM=cpu`) if it fails."""

from __future__ import annotations

import pytest
import torch

from kmut import generators

pytestmark = pytest.mark.gpu


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("generator", sorted(generators.IN_PLACE))
def test_a_transform_on_the_gpu_gives_the_cpus_values(generator):
    torch.manual_seed(3)
    # Values like the official draws (U[0,1) float32), and an integer input beside them.
    raw = [torch.rand(1 << 22), torch.randint(0, 9, (1000,)), 4, torch.rand(257, 513)]
    scale = 1.0 if not generators.GENERATORS.get(generator, True) else 1000.0
    spec = generators.Spec(generator, scale, "small")
    cpu = generators.finish(spec, raw, 11, torch)
    gpu = generators.finish_placed(spec, raw, torch, lambda t: t.to("cuda", copy=True))
    assert len(cpu) == len(gpu)
    for a, b in zip(cpu, gpu):
        if isinstance(a, torch.Tensor):
            assert b.device.type == "cuda" and a.dtype == b.dtype and a.shape == b.shape
            assert torch.equal(a, b.cpu()), f"{generator}: {int((a != b.cpu()).sum())} elements differ"
        else:
            assert a == b
