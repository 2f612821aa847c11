"""The cell locator grammar of `ingestion.ir`: every cell a `Table` names reads back as the
table, row and column it was named from."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ingestion.ir import CellAddress, Table, cell_address, is_cell_locator, locator_label, locator_place

labels = st.text(min_size=1, max_size=12).filter(lambda text: locator_label(text) != "")


def test_each_format_reads_back_as_table_row_and_column() -> None:
    assert cell_address("slide=3,table=1,row=营业收入,col=FY2025") == CellAddress(
        "slide=3,table=1", "营业收入", "FY2025"
    )
    assert cell_address("page=2,table=1,row=ACME香港,col=2025H1") == CellAddress("page=2,table=1", "ACME香港", "2025H1")
    assert cell_address("table=1,row=净利润,col=FY2025") == CellAddress("table=1", "净利润", "FY2025")
    assert cell_address("sheet=ACME香港!C4") == CellAddress("sheet=ACME香港", "4", "C")
    for passage in ("page=1,para=1-2", "slide=3", "section=风险,para=1", "", "sheet=ACME香港"):
        assert cell_address(passage) is None and not is_cell_locator(passage)


def test_the_place_of_a_locator_is_its_outermost_part() -> None:
    assert locator_place("slide=3,table=1,row=营业收入,col=FY2025") == locator_place("slide=3") == "slide=3"
    assert locator_place("sheet=ACME香港!C4") == "sheet=ACME香港"
    assert locator_place("page=1,para=1-2") == "page=1"


@given(row=labels, column=labels, prefix=st.sampled_from(["slide=2,table=1", "page=3,table=2", "table=1"]))
def test_a_labelled_cell_names_its_row_and_column(row: str, column: str, prefix: str) -> None:
    table = Table(prefix, "", [["", column], [row, "1"]])
    locator = table.cell_locator(1, 1)
    assert cell_address(locator) == CellAddress(prefix, locator_label(row), locator_label(column))


@given(r=st.integers(0, 200), c=st.integers(0, 60), top=st.integers(1, 50), left=st.integers(1, 20))
def test_a_sheet_cell_names_its_a1_reference(r: int, c: int, top: int, left: int) -> None:
    table = Table("sheet=汇总", "", [[""]], scheme="a1", origin=(top, left))
    address = cell_address(table.cell_locator(r, c))
    assert address is not None and address.table == "sheet=汇总"
    assert address.column + address.row == table.a1(r, c)
