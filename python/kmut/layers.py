"""Layer kinds: what each kernel of a pipeline does, for the depth analysis (`kmut depth`).

A pipeline's kernels are named for their layers (`vgg19_conv3_2_relu_kernel`,
`resnet18_layer1_0_bn2_add_relu_kernel`), so the kind comes from the name by one documented rule
(`substrates/SPEC.md` section 5): the name is split at `_`, the trailing `kernel` is dropped, and
each part is looked up in `TOKENS` after removing trailing digits and size suffixes (`conv3`,
`expand1x1`, `fc2`, `relu6`: `conv`, `expand`, `fc`, `relu`). The kind is every kind found, in
name order, without repeats, joined by `+` (`conv+activation`, `norm+residual+activation`).
Parts the table does not know (network and block prefixes such as `vgg19`, `layer1`, `stage2`)
add nothing. A substrate whose names say nothing the rule knows gives its kinds itself, in the
optional field `layer_kinds`: one label per entry of `kernel_name`, each a `+`-joined list of
`KINDS`. The contract refuses a pipeline kernel with no kind either way.
"""

from __future__ import annotations

import re
from typing import Any

# The vocabulary, in the order the depth report lists kinds.
KINDS = (
    "conv", "linear", "attention", "recurrent", "norm", "activation", "softmax", "pool",
    "residual", "elementwise", "reduce", "concat", "reshape",
)

# Name part (trailing digits and `AxB` sizes removed) -> kind.
TOKENS: dict[str, str] = {
    # convolutions (depthwise and pointwise included; squeeze/expand of SqueezeNet's Fire module,
    # the inception branches and the patch embedding are convolutions too)
    **dict.fromkeys(("conv", "convd", "convtranspose", "convtransposed", "dw", "pw", "expand", "squeeze", "branch", "embed",
                     "stem", "downsample", "reduce"), "conv"),
    # matrix products over features
    **dict.fromkeys(("fc", "gemm", "gemv", "matmul", "bmm", "matvec", "linear", "proj", "qkv", "ih", "hh", "ho", "reduction",
                     "assign", "vlad", "mlp", "project", "classifier", "head", "diag"), "linear"),
    **dict.fromkeys(("attn", "attention", "scores", "av", "sdpa"), "attention"),
    **dict.fromkeys(("step", "recurrent", "cell", "states"), "recurrent"),
    **dict.fromkeys(("bn", "batchnorm", "norm", "ln", "layernorm", "groupnorm", "instancenorm", "rmsnorm", "stats", "gn", "frobenius"), "norm"),
    **dict.fromkeys(("relu", "gelu", "tanh", "sigmoid", "mish", "swish", "silu", "hardswish", "hardtanh", "leakyrelu", "elu",
                     "selu", "softplus", "softsign", "hardsigmoid", "clamp", "activation", "dropout", "exp"), "activation"),
    **dict.fromkeys(("softmax", "logsoftmax", "logsumexp"), "softmax"),
    **dict.fromkeys(("pool", "maxpool", "avgpool", "gap", "globalavgpool"), "pool"),
    **dict.fromkeys(("residual", "add", "shortcut", "residualadd"), "residual"),
    **dict.fromkeys(("scale", "scaling", "mul", "multiply", "div", "divide", "sub", "subtract", "bias", "biasadd", "decay", "combine"), "elementwise"),
    **dict.fromkeys(("sum", "mean", "asum", "max", "min", "cumsum", "segsum", "partial"), "reduce"),
    **dict.fromkeys(("concat", "cat"), "concat"),
    **dict.fromkeys(("shuffle", "tokens", "copy", "transpose", "permute", "merge", "flatten"), "reshape"),
}

_SUFFIX = re.compile(r"(\d+(x\d+)*d?)+$")


def _part_kind(part: str) -> str | None:
    part = part.lower()
    kind = TOKENS.get(part)
    if kind is None:
        kind = TOKENS.get(_SUFFIX.sub("", part))
    if kind is None and "2" in part:  # rnn i2h, h2o: input-to-hidden and hidden-to-output products
        kind = TOKENS.get(part.replace("2", ""))
    return kind


def kind_from_name(kernel: str) -> str | None:
    """The kind the naming rule gives `kernel`, or None when no part of its name is known."""
    parts = kernel.split("_")
    if parts and parts[-1].lower() == "kernel":
        parts = parts[:-1]
    found: list[str] = []
    for p in parts:
        k = _part_kind(p)
        if k is not None and k not in found:
            found.append(k)
    return "+".join(found) or None


def check_label(label: Any) -> str | None:
    """Why `label` is not a kind label (`conv`, `conv+activation`), or None when it is."""
    if not isinstance(label, str) or not label:
        return f"expected a kind such as 'conv' or 'conv+activation', got {label!r}"
    unknown = [k for k in label.split("+") if k not in KINDS]
    if unknown:
        return f"unknown kind(s) {', '.join(map(repr, unknown))} in {label!r}; known kinds: {', '.join(KINDS)}"
    return None


def layer_kinds(fields: dict[str, Any]) -> list[str | None]:
    """Each kernel's kind, in `kernel_name` order: the `layer_kinds` field where given, else the
    naming rule (None where it knows no part of the name)."""
    k = fields.get("kernel_name")
    names = [k] if isinstance(k, str) else list(k or [])
    given = fields.get("layer_kinds")
    if isinstance(given, (list, tuple)) and len(given) == len(names):
        return [str(g) for g in given]
    return [kind_from_name(n) if isinstance(n, str) else None for n in names]
