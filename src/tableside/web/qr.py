"""A join link as a QR code: inline SVG drawn here (segno), no request to anyone (W-28)."""

from __future__ import annotations

import segno
from markupsafe import Markup

QR_SCALE = 4  # px per module before the page's CSS scales it
QR_ERROR = "m"  # medium error correction: a phone reads it from a screen at an angle


def qr_svg(link: str, title: str = "QR code of the link") -> Markup:
    """The link as an inline ``<svg>`` (role img, titled), ready to put in a page as it is."""
    code = segno.make(link, error=QR_ERROR, micro=False)
    svg = code.svg_inline(scale=QR_SCALE, title=title, svgclass=None, lineclass=None)
    return Markup(svg.replace("<svg ", f'<svg role="img" aria-label="{Markup.escape(title)}" ', 1))
