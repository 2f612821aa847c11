"""A user's actions in the browser, counted: a click, a fill, a select, an upload, an address typed."""

from __future__ import annotations

from pathlib import Path


class Actions:
    """Each action on `page`, counted; `counter` shares the count of another page's actions."""

    def __init__(self, page, counter: Actions | None = None) -> None:
        self.page = page
        self._shared = counter

    @property
    def count(self) -> int:
        return self._shared.count if self._shared is not None else self.__dict__.get("_count", 0)

    def _tick(self) -> None:
        if self._shared is not None:
            self._shared._tick()
        else:
            self.__dict__["_count"] = self.count + 1

    def goto(self, url: str) -> None:
        self._tick()
        self.page.goto(url)

    def click(self, target, **kwargs) -> None:
        self._tick()
        (self.page.locator(target) if isinstance(target, str) else target).click(**kwargs)
        self.page.wait_for_load_state()  # a click that posts a form reloads the page

    def fill(self, target, text: str) -> None:
        self._tick()
        (self.page.locator(target) if isinstance(target, str) else target).fill(text)

    def select(self, target, **option) -> None:
        self._tick()
        (self.page.locator(target) if isinstance(target, str) else target).select_option(**option)

    def upload(self, target: str, path: Path) -> None:
        self._tick()
        self.page.set_input_files(target, str(path))
