"""The depth analysis's per-step capture (kmut.steps), layer kinds (kmut.layers) and their
contract checks, on CPU tensors; end to end on the CPU backend in test_depth_cpu.py."""

from __future__ import annotations

import math

import pytest
import torch

from kmut import layers, steps, validate
from kmut.exceptions import ContractError
from kmut.validate import Step


def step(name, *tensors):
    return Step(name, (1, 1, 1), (1, 1, 1), list(tensors), [])


def test_only_outputs_a_later_step_overwrites_are_copied_right_after_their_step():
    x, h, y = torch.zeros(4), torch.zeros(4), torch.zeros(2)
    seq = [step("a", x, h), step("b", h, y), step("a", y, h)]  # h is written again by step 2
    cap = steps.StepCapture.of(seq)
    assert cap.copy == [True, False, False]
    h.fill_(1.0)
    cap.after(0)
    y.fill_(2.0)
    cap.after(1)
    h.fill_(3.0)
    cap.after(2)
    out = cap.outputs()
    assert out[0].tolist() == [1.0] * 4, "the value right after step 0, not the later overwrite"
    assert out[1] is y and out[2] is h


def test_producers_are_the_latest_earlier_writer_of_each_argument_slice():
    x = torch.zeros(8)
    cat = torch.zeros(8)
    a, b = cat[:4], cat[4:]
    seq = [step("l", x, a), step("r", x, b), step("m", cat, torch.zeros(8))]
    assert steps.producers(seq) == [[], [], [0, 1]], "an input has no producer; both halves of the concat buffer feed step 2"


class _Span:
    """A tensor's stand-in with only what the step graph reads: its first byte and its bytes."""

    def __init__(self, start, size):
        self.start, self.size = start, size

    def data_ptr(self):
        return self.start

    def numel(self):
        return self.size

    def element_size(self):
        return 1


def _pairwise_rewritten_later(seq):
    """The definition, pair by pair (what kmut.steps computed before its sweep)."""
    ext = [(s.output.data_ptr(), s.output.data_ptr() + s.output.numel()) for s in seq]
    return [any(b0 < a1 and a0 < b1 for b0, b1 in ext[i + 1 :]) for i, (a0, a1) in enumerate(ext)]


def _pairwise_producers(seq):
    """The definition, byte by byte: a step reads from the latest earlier writer of each byte of
    each argument but its output."""
    out = []
    for j, s in enumerate(seq):
        found = set()
        for t in s.tensors[:-1]:
            for byte in range(t.data_ptr(), t.data_ptr() + t.numel()):
                writers = [i for i in range(j) if seq[i].output.data_ptr() <= byte < seq[i].output.data_ptr() + seq[i].output.numel()]
                if writers:
                    found.add(writers[-1])
        out.append(sorted(found))
    return out


def test_the_step_graph_sweeps_agree_with_the_pairwise_definitions_on_random_layouts():
    import random

    rng = random.Random(7)
    for _ in range(3000):
        span = rng.choice([12, 40, 160])
        seq = [Step("k", (1, 1, 1), (1, 1, 1), [_Span(rng.randrange(span), rng.choice([0, 1, 2, 5, 9, 30])) for _ in range(rng.randint(1, 4))], [])
               for _ in range(rng.randint(1, 20))]
        assert steps.rewritten_later(seq) == _pairwise_rewritten_later(seq), [(s.output.start, s.output.size) for s in seq]
        assert steps.producers(seq) == _pairwise_producers(seq), [[(t.start, t.size) for t in s.tensors] for s in seq]


def test_a_recurrent_layout_reads_its_previous_state_and_none_of_its_weights():
    # A time loop: step t reads the state step t-1 wrote (a slice of one buffer) and weights
    # nobody writes; the buffer's slices are never rewritten, so nothing is copied.
    weights, T = _Span(10_000, 64), 50
    seq = [Step("step", (1, 1, 1), (1, 1, 1), [weights, _Span(100 * (t - 1) if t else 20_000, 100), _Span(100 * t, 100)], []) for t in range(T)]
    assert steps.producers(seq) == [[]] + [[t - 1] for t in range(1, T)]
    assert steps.rewritten_later(seq) == [False] * T


def test_step_errors_measure_tau_relative_l2_and_the_share_off():
    orig = torch.tensor([1.0, -2.0, 0.0, 4.0])
    same = steps.step_errors([orig], [orig.clone()], 1e-2, 1e-2, torch)
    assert same == [[0.0, 0.0, 0.0]]
    out = torch.tensor([1.0, -2.0, 0.5, 4.0])
    [(tau, rel, frac)] = steps.step_errors([orig], [out], 1e-2, 1e-2, torch)
    assert tau == pytest.approx(0.5 / 1.5)
    assert rel == pytest.approx(0.5 / math.sqrt(21.0))
    assert frac == pytest.approx(0.25)
    [(tau, rel, frac)] = steps.step_errors([orig], [torch.tensor([1.0, float("nan"), 0.0, 4.0])], 1e-2, 1e-2, torch)
    assert math.isinf(tau) and math.isinf(rel) and frac == pytest.approx(0.25)
    [(_, rel, _)] = steps.step_errors([torch.zeros(3)], [torch.ones(3)], 1e-2, 1e-2, torch)
    assert math.isinf(rel), "an error where the original is all zero is infinitely large relative to it"


def test_kept_outputs_move_to_the_host_when_they_do_not_fit():
    outs = [torch.zeros(1000)]
    kept, where, nbytes = steps.keep(outs, torch, None)
    assert where == "device" and kept[0] is outs[0] and nbytes == 0
    kept, where, nbytes = steps.keep(outs, torch, 4000 * 3)  # 4 KB kept > a quarter of 12 KB
    assert where == "host" and nbytes == 0
    kept, where, nbytes = steps.keep(outs, torch, 4000 * 4)
    assert where == "device" and nbytes == 4000


@pytest.mark.parametrize(("name", "kind"), [
    ("vgg19_conv3_2_relu_kernel", "conv+activation"),
    ("resnet18_layer1_0_bn2_add_relu_kernel", "norm+residual+activation"),
    ("mbconv_dw_bn_stats_kernel", "conv+norm"),
    ("lstm1_step_kernel", "recurrent"),
    ("rnn_i2h_tanh_kernel", "linear+activation"),
    ("convtranspose3d_bn_stats_kernel", "conv+norm"),
    ("squeezenet_maxpool1_kernel", "pool"),
    ("vit_layer1_softmax_kernel", "softmax"),
    ("googlenet_inception3a_cat_kernel", "concat"),
    ("mystery_kernel", None),
])
def test_the_naming_rule(name, kind):
    assert layers.kind_from_name(name) == kind


def pipeline_fields(**extra):
    return {"name": "L3p1_x", "level": 3, "problem": "1_MLP", "cuda": "", "kernel_name": ["x_conv_kernel", "x_mystery_kernel"], **extra}


def contract_errors(fields):
    errors = []
    validate._check_layer_kinds(fields, lambda f, m: errors.append((f, m)))  # noqa: SLF001 - the one rule under test
    return errors


def test_the_contract_refuses_a_pipeline_kernel_without_a_kind_and_a_bad_layer_kinds_field():
    [(field, message)] = contract_errors(pipeline_fields())
    assert field == "layer_kinds" and "x_mystery_kernel" in message
    assert contract_errors(pipeline_fields(layer_kinds=["conv", "linear+activation"])) == []
    [(_, message)] = contract_errors(pipeline_fields(layer_kinds=["conv", "magic"]))
    assert "'magic'" in message
    [(_, message)] = contract_errors(pipeline_fields(layer_kinds=["conv"]))
    assert "one kind per kernel" in message


def test_every_accepted_pipeline_kernel_has_a_kind_by_the_naming_rule():
    from .conftest import ROOT

    missing = []
    for path in sorted((ROOT / "substrates" / "accepted").glob("*.py")):
        names = validate.cuda_globals(path.read_text())
        if len(names) > 1:
            missing += [f"{path.name}: {n}" for n in names if layers.kind_from_name(n) is None]
    assert missing == []


def test_the_contract_refuses_a_pipeline_step_that_writes_no_output_buffer():
    x = torch.zeros(4)
    w = torch.zeros(4)
    a = torch.empty(4)
    owned = {x.untyped_storage().data_ptr(), w.untyped_storage().data_ptr()}
    validate.check_step_outputs([step("k0", x, a), step("k1", a, w, torch.empty(4))], owned, "demo.py")
    with pytest.raises(ContractError, match=r"step 1 \(k1\) writes no output buffer"):
        validate.check_step_outputs([step("k0", x, a), step("k1", a, w)], owned, "demo.py")


def test_packed_outputs_are_aligned_copies_in_one_buffer():
    outs = [torch.arange(5, dtype=torch.float32), torch.ones(2, 3, dtype=torch.float64), torch.zeros(0), torch.tensor([7], dtype=torch.int32)]
    flat, views = steps.pack(outs, torch)
    assert [v.dtype for v in views] == [o.dtype for o in outs] and [v.shape for v in views] == [o.shape for o in outs]
    assert all(torch.equal(v, o) for v, o in zip(views, outs))
    base = flat.data_ptr()
    assert all((v.data_ptr() - base) % steps.PACK_ALIGN == 0 for v in views if v.numel())
    assert all(v.untyped_storage().data_ptr() == flat.untyped_storage().data_ptr() for v in views), "one buffer"
    outs[0].fill_(-1.0)
    assert views[0].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0], "copies, not the original run's buffers"
    flat[steps.PACK_ALIGN] = 9  # a stray byte in the second output shows in it
    assert not torch.equal(views[1], torch.ones(2, 3, dtype=torch.float64))


def test_host_kept_steps_are_grouped_in_order_under_the_byte_limit():
    assert steps._groups([4, 4, 4, 10, 1, 1], 8) == [[0, 1], [2], [3], [4, 5]], "a step over the limit goes alone"
    assert steps._groups([], 8) == []
    assert steps._groups([1, 2, 3], 100) == [[0, 1, 2]]
