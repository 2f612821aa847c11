"""A page's characters and drawn shapes as pdfplumber's objects, made without its general path.

pdfplumber turns each of pdfminer's layout objects into a dict by resolving every attribute it
has (`resolve_all`, recursively), which is half the time of reading a dense page. The reader
needs only positions, text, sizes and the shapes' points, all plain numbers or strings already:
`page_objects` copies those, in pdfplumber's keys and coordinates (top-left origin, the MediaBox
offset applied), so `extract_text_lines` and `find_tables` run on them unchanged. A test checks
that they give what pdfplumber's own objects give.
"""

from __future__ import annotations

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
