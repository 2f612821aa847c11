"""A page's characters and drawn shapes as pdfplumber's objects, made without its general path.

pdfplumber turns each of pdfminer's layout objects into a dict by resolving every attribute it
has (`resolve_all`, recursively), which is half the time of reading a dense page. The reader
needs only positions, text, sizes and the shapes' points, all plain numbers or strings already:
`page_objects` copies those, in pdfplumber's keys and coordinates (top-left origin, the MediaBox
offset applied), so `extract_text_lines` and `find_tables` run on them unchanged. A test checks
that they give what pdfplumber's own objects give.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from pdfminer.layout import LTAnno, LTChar, LTContainer, LTCurve, LTImage


def page_objects(page: Any) -> dict[str, list[dict[str, Any]]]:
    """`page.objects` as pdfplumber would build it, for characters, lines, rectangles and curves
    (images and annotations are not read)."""
    height = float(page.height)
    mb_x0, mb_top = float(page.mediabox[0]), float(page.mediabox[1])
    doctop = float(page.initial_doctop)
    number = page.page_number
    found: dict[str, list[dict[str, Any]]] = {}

    def coord(point: tuple[float, float]) -> tuple[float, float]:
        return (mb_x0 + point[0], mb_top + height - point[1])

    def placed(obj: Any, kind: str) -> dict[str, Any]:
        top = height - obj.y1 + mb_top
        return {
            "object_type": kind,
            "page_number": number,
            "x0": obj.x0 + mb_x0,
            "x1": obj.x1 + mb_x0,
            "y0": obj.y0,
            "y1": obj.y1,
            "top": top,
            "bottom": height - obj.y0 + mb_top,
            "doctop": doctop + top,
            "width": obj.width,
            "height": obj.height,
        }

    stack = list(reversed(page.layout._objs))
    while stack:
        obj = stack.pop()
        if isinstance(obj, LTChar):
            item = placed(obj, "char")
            state = obj.graphicstate
            item.update(
                text=obj.get_text(),
                size=obj.size,
                fontname=obj.fontname,
                upright=obj.upright,
                adv=obj.adv,
                matrix=obj.matrix,
                stroking_color=state.scolor if isinstance(state.scolor, tuple) else (state.scolor,),
                non_stroking_color=state.ncolor if isinstance(state.ncolor, tuple) else (state.ncolor,),
            )
            found.setdefault("char", []).append(item)
        elif isinstance(obj, LTCurve):
            kind = type(obj).__name__[2:].lower()  # LTLine, LTRect, LTCurve
            item = placed(obj, kind)
            item.update(
                pts=[coord(p) for p in obj.pts],
                linewidth=obj.linewidth,
                stroke=obj.stroke,
                fill=obj.fill,
                stroking_color=obj.stroking_color,
                non_stroking_color=obj.non_stroking_color,
            )
            found.setdefault(kind, []).append(item)
        elif isinstance(obj, LTContainer):
            stack.extend(reversed(obj._objs))
        elif not isinstance(obj, (LTAnno, LTImage)):
            continue
    return found


_UNMAPPED = (0, 0xFFFD, 0xFFFE, 0xFFFF)
# A glyph PDFium gives as a control, private-use or unassigned code: a font that maps it to no
# character (a made-up glyph name, no ToUnicode). Spelled as pdfminer spells it, `(cid:N)`, so the
# page's undecodable lines are counted the same way whichever reader read them.
_NO_CHARACTER = frozenset({"Cc", "Co", "Cs", "Cn"})


def _wide(text: str) -> bool:
    return bool(text) and unicodedata.east_asian_width(text[-1]) in ("W", "F")


def pdfium_objects(page: Any, drawn: Any) -> dict[str, list[dict[str, Any]]] | None:
    """`page.objects` read by PDFium from the same page (`drawn`, a `pypdfium2` page): the
    characters with their loose boxes (the font's ascent to descent, as pdfminer measures them)
    and every path's straight pieces as curves, in pdfplumber's keys. PDFium interprets a page's
    content in C, some hundred times faster than pdfminer; None where the two could place
    objects differently (a rotated page, a MediaBox not at the origin), so pdfminer reads it."""
    import ctypes

    import pypdfium2.raw as pdfium

    if page.rotation or tuple(float(v) for v in page.mediabox[:2]) != (0.0, 0.0) or drawn.get_rotation():
        return None
    height = float(page.height)
    doctop = float(page.initial_doctop)
    number = page.page_number
    found: dict[str, list[dict[str, Any]]] = {"char": [], "curve": []}
    text = drawn.get_textpage()
    handle = text.raw
    loose, origin_of, generated = (
        pdfium.FPDFText_GetLooseCharBox,
        pdfium.FPDFText_GetCharOrigin,
        pdfium.FPDFText_IsGenerated,
    )
    box = pdfium.FS_RECTF()
    total = text.count_chars()
    codes = [pdfium.FPDFText_GetUnicode(handle, i) for i in range(total)]
    ox, oy = ctypes.c_double(), ctypes.c_double()
    origins: list[tuple[float, float]] = []
    spaces: set[int] = set()  # the word spaces PDFium inferred, by their place in `chars`
    chars = found["char"]
    for i, code in enumerate(codes):
        if not loose(handle, i, box) or (code in (10, 13) and generated(handle, i)):
            continue  # a line break PDFium inferred
        if code in (10, 13):
            code = 32  # a line-break glyph a font prints as its word space
        left, right, high, low = box.left, box.right, box.top, box.bottom
        if code == 32 and generated(handle, i):
            # a word space the PDF positions rather than prints: it spans the gap after the glyph
            # before; none between CJK characters and figures, which pdfminer does not see either
            after = codes[i + 1] if i + 1 < total else 32
            if not chars or _wide(chars[-1]["text"]) or _wide(chr(after or 32)):
                continue
            last = chars[-1]
            left, right, high, low = last["x1"], max(last["x1"], right), last["y1"], last["y0"]
            spaces.add(len(chars))
        glyph = chr(code) if code != 2 else "-"  # PDFium's mark for a hyphen that ends a line
        if code != 2 and (code in _UNMAPPED or unicodedata.category(glyph) in _NO_CHARACTER):
            glyph = f"(cid:{code})"
        origin_of(handle, i, ox, oy)
        origins.append((ox.value, oy.value))
        top, bottom = height - high, height - low
        chars.append(
            {
                "object_type": "char",
                "page_number": number,
                "text": glyph,
                "x0": left,
                "x1": right,
                "y0": low,
                "y1": high,
                "top": top,
                "bottom": bottom,
                "doctop": doctop + top,
                "width": right - left,
                "height": bottom - top,
                "size": bottom - top,
                "fontname": "",
                "upright": True,  # a page whose text runs sideways is a rotated page: pdfminer reads it
                "adv": right - left,
                "matrix": (1, 0, 0, 1, left, low),
                "stroking_color": None,
                "non_stroking_color": None,
            }
        )
    _advances(found["char"], origins, spaces)
    x, y = ctypes.c_float(), ctypes.c_float()
    matrix = pdfium.FS_MATRIX()
    for k in range(pdfium.FPDFPage_CountObjects(drawn.raw)):
        shape = pdfium.FPDFPage_GetObject(drawn.raw, k)
        kind = pdfium.FPDFPageObj_GetType(shape)
        if kind == pdfium.FPDF_PAGEOBJ_FORM and pdfium.FPDFFormObj_CountObjects(shape) > 0:
            return None  # a form's content is placed by the form's matrix too: pdfminer reads the page
        if kind != pdfium.FPDF_PAGEOBJ_PATH or not pdfium.FPDFPageObj_GetMatrix(shape, matrix):
            continue
        a, b, c, d, e, f = matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f
        points: list[tuple[float, float]] = []
        for n in range(pdfium.FPDFPath_CountSegments(shape)):
            segment = pdfium.FPDFPath_GetPathSegment(shape, n)
            pdfium.FPDFPathSegment_GetPoint(segment, x, y)
            point = (a * x.value + c * y.value + e, height - (b * x.value + d * y.value + f))
            if pdfium.FPDFPathSegment_GetType(segment) == pdfium.FPDF_SEGMENT_MOVETO and points:
                _curve_add(found, points, number, doctop)
                points = []
            points.append(point)
            if pdfium.FPDFPathSegment_GetClose(segment) and points:
                points.append(points[0])
        _curve_add(found, points, number, doctop)
    return found


def _advances(chars: list[dict[str, Any]], origins: list[tuple[float, float]], spaces: set[int]) -> None:
    """Each glyph from its origin to the next glyph's on its baseline (its advance, as pdfminer
    measures a glyph), not its ink: an `f` whose loose box reaches past the space after it must
    not close the gap that space stands for; the last on a line keeps its box's right edge. A word
    space PDFium inferred spans the gap between the glyphs on either side of it."""
    for k, char in enumerate(chars):
        x, y = origins[k]
        if k in spaces or not x:
            continue
        char["x0"] = x
        if k + 1 < len(chars):  # the next character's origin, an inferred space's too
            nx, ny = origins[k + 1]
            if abs(ny - y) < 0.5 and x < nx < char["x1"]:
                char["x1"] = nx
        char["width"] = char["adv"] = char["x1"] - char["x0"]
    for k in sorted(spaces):
        space, before = chars[k], chars[k - 1]
        space["x0"] = before["x1"]
        after = chars[k + 1] if k + 1 < len(chars) else None
        same_line = after is not None and abs(after["top"] - space["top"]) < 0.5 * space["height"]
        space["x1"] = max(space["x0"], after["x0"]) if same_line else space["x0"]
        space["width"] = space["adv"] = space["x1"] - space["x0"]


def _curve_add(
    found: dict[str, list[dict[str, Any]]], points: list[tuple[float, float]], number: int, doctop: float
) -> None:
    if len(points) < 2:
        return
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    top, bottom = min(ys), max(ys)
    found["curve"].append(
        {
            "object_type": "curve",
            "page_number": number,
            "x0": min(xs),
            "x1": max(xs),
            "top": top,
            "bottom": bottom,
            "doctop": doctop + top,
            "width": max(xs) - min(xs),
            "height": bottom - top,
            "pts": list(points),
            "linewidth": 0,
            "stroke": True,
            "fill": False,
            "stroking_color": None,
            "non_stroking_color": None,
        }
    )
