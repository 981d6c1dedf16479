# SPDX-License-Identifier: MIT
"""The per-pixel source (decode, compute, encode) as the generator embeds it:
templates and the code generated from the data model, in order."""

import model as M


def wide_expr():
    """gm__wide's expression: the pairs OpenCV's convertTo computes in double.
    One line, so the template's line numbers hold in the kernel source."""
    terms = ["(S == %s && D == %s)" % (M.enum(s), M.enum(d))
             for s in M.DTYPE_NAMES for d in M.DTYPE_NAMES if M.wide(s, d) and d != "f64"]
    return " || ".join(["D == GM_F64"] + terms)


def pieces(template):
    """The per-pixel source as (template name, text) pieces in order; the name
    is None for generated code. template(name) reads a template. A
    placeholder inside a template piece is replaced by one line, so NVRTC's
    line numbers (gen.py marks each template piece with #line) stay true;
    longer generated code is a piece of its own."""
    return [("pixel.inc", template("pixel.inc").replace("@WIDE_EXPR@", wide_expr()))]
