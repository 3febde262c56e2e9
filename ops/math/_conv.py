"""Conv2D's shapes and arithmetic (numpy): the attrs checked and put in
NCHW order, the output size, and the grouped convolution itself.

The convolution is computed in NCHW (an NHWC x and an HWCN filter are
transposed first): x padded with zeros, then for each filter tap (i, j)
the strided, dilated window of x it sees is multiplied by that tap's
weights and accumulated (one tensordot per tap and group).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

FORMATS = ("NCHW", "NHWC")


def layout(x_format: object, data_format: str) -> str:
    """The layout x is read in: x's own format when it is NCHW or NHWC, else
    data_format. GE's convolution infer reads the layout of x (and the order
    of strides and dilations) from x's tensor format, not from data_format
    (docs/ge-compat.md, "Graph passes: nodes and descs"); a tensor of format ND says
    nothing, so data_format decides then."""
    name = getattr(x_format, "name", "")
    for candidate in FORMATS:
        if name == f"FORMAT_{candidate}":
            return candidate
    return data_format


@dataclass(frozen=True)
class ConvGeometry:
    """The attrs in NCHW order and the sizes they give."""

    n: int
    c: int
    h: int
    w: int
    cout: int
    kh: int
    kw: int
    stride: tuple[int, int]
    dilation: tuple[int, int]
    pads: tuple[int, int, int, int]  # top, bottom, left, right
    groups: int

    @property
    def out_hw(self) -> tuple[int, int]:
        top, bottom, left, right = self.pads
        ho = self.h + top + bottom - self.dilation[0] * (self.kh - 1) - 1
        wo = self.w + left + right - self.dilation[1] * (self.kw - 1) - 1
        return ho // self.stride[0] + 1, wo // self.stride[1] + 1


def _four(name: str, values: Sequence[int], data_format: str) -> tuple[int, int]:
    """(h, w) of a 4-value attr in data_format's order; N and C must be 1."""
    if len(values) != 4:
        raise ValueError(f"Conv2D: {name} needs 4 values, got {list(values)}")
    n, c, h, w = (
        (values[0], values[1], values[2], values[3])
        if data_format == "NCHW"
        else (values[0], values[3], values[1], values[2])
    )
    if n != 1 or c != 1 or h < 1 or w < 1:
        raise ValueError(
            f"Conv2D: {name} {list(values)} ({data_format}) must be 1 for N and C "
            "and at least 1 for H and W"
        )
    return h, w


def geometry(
    x: Sequence[int],
    filter: Sequence[int],
    *,
    strides: Sequence[int],
    pads: Sequence[int],
    dilations: Sequence[int],
    groups: int,
    data_format: str,
) -> ConvGeometry:
    """The checked geometry; ValueError naming the attr or dim at fault."""
    if data_format not in FORMATS:
        raise ValueError(f"Conv2D: data_format {data_format!r} is not NCHW or NHWC")
    if len(x) != 4 or len(filter) != 4:
        raise ValueError(
            f"Conv2D: x {list(x)} and filter {list(filter)} must both be 4-D"
        )
    if data_format == "NCHW":
        n, c, h, w = x
        cout, cin, kh, kw = filter
    else:
        n, h, w, c = x
        kh, kw, cin, cout = filter
    if len(pads) != 4 or any(p < 0 for p in pads):
        raise ValueError(f"Conv2D: pads {list(pads)} must be 4 values >= 0")
    if groups < 1 or c % groups or cout % groups or cin * groups != c:
        raise ValueError(
            f"Conv2D: x has {c} channels and filter {cin} per group with {cout} "
            f"outputs; groups {groups} must divide both and filter's input "
            f"channels must be {c} // groups"
        )
    g = ConvGeometry(
        n,
        c,
        h,
        w,
        cout,
        kh,
        kw,
        _four("strides", strides, data_format),
        _four("dilations", dilations, data_format),
        (pads[0], pads[1], pads[2], pads[3]),
        groups,
    )
    ho, wo = g.out_hw
    if ho < 1 or wo < 1:
        raise ValueError(
            f"Conv2D: the output would be {ho}x{wo}: x's padded H and W "
            f"({h}x{w} with pads {list(pads)}) are smaller than the dilated filter"
        )
    return g


def out_dims(g: ConvGeometry, data_format: str) -> list[int]:
    ho, wo = g.out_hw
    if data_format == "NCHW":
        return [g.n, g.cout, ho, wo]
    return [g.n, ho, wo, g.cout]


def conv2d(
    x: np.ndarray,
    filter: np.ndarray,
    bias: np.ndarray | None,
    g: ConvGeometry,
    data_format: str,
    acc: np.dtype,
) -> np.ndarray:
    """The convolution in ``acc`` (the accumulator's dtype), in data_format."""
    if data_format == "NHWC":
        x = x.transpose(0, 3, 1, 2)
        filter = filter.transpose(3, 2, 0, 1)  # HWCN -> NCHW (OIHW)
    x = x.astype(acc)
    filter = filter.astype(acc)
    top, bottom, left, right = g.pads
    padded = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    ho, wo = g.out_hw
    (sh, sw), (dh, dw) = g.stride, g.dilation
    cin, cout = g.c // g.groups, g.cout // g.groups
    y = np.zeros((g.n, g.cout, ho, wo), acc)
    for k in range(g.groups):
        xs = padded[:, k * cin : (k + 1) * cin]
        ws = filter[k * cout : (k + 1) * cout]
        for i in range(g.kh):
            for j in range(g.kw):
                window = xs[
                    :,
                    :,
                    i * dh : i * dh + (ho - 1) * sh + 1 : sh,
                    j * dw : j * dw + (wo - 1) * sw + 1 : sw,
                ]
                # [n, cin, ho, wo] x [cout, cin] -> [n, cout, ho, wo]
                y[:, k * cout : (k + 1) * cout] += np.einsum(
                    "nchw,oc->nohw", window, ws[:, :, i, j]
                )
    if bias is not None:
        y += bias.astype(acc).reshape(1, -1, 1, 1)
    return y.transpose(0, 2, 3, 1) if data_format == "NHWC" else y
