"""What each number of a decomposition is called, in Chinese and in English: a part's change,
share, rate effect, mix effect and total effect, the whole's change, the rest of a long list
and the change no part holds, each with the two periods compared.
"""

from __future__ import annotations

from core.engine.operands import Label
from core.model.facts import SubTask
from core.model.period import Period


class Words:
    """The names of a decomposition's numbers, in both languages."""

    def __init__(self, label: Label, whole: SubTask, base: Period) -> None:
        self.label, self.subject, self.base = label, whole, base

    def _part(self, part: SubTask, language: str) -> str:
        if part.channel != self.subject.channel:
            return self.label("channel", part.channel, language)
        if part.entity != self.subject.entity:
            return self.label("entity", part.entity, language)
        return part.period.label

    def _span(self) -> str:
        return f"{self.subject.period.label} vs {self.base.label}"

    def part(self, part: SubTask) -> tuple[str, str]:
        return f"{self._part(part, 'zh')} 变动（{self._span()}）", f"{self._part(part, 'en')} change ({self._span()})"

    def share(self, part: SubTask) -> tuple[str, str]:
        return f"{self._part(part, 'zh')} 占总变动", f"{self._part(part, 'en')} share of the change"

    def whole(self) -> tuple[str, str]:
        zh = self.label("entity", self.subject.entity, "zh") + self.label("metric", self.subject.metric, "zh")
        en = self.label("entity", self.subject.entity, "en") + " " + self.label("metric", self.subject.metric, "en")
        return f"{zh} 变动（{self._span()}）", f"{en} change ({self._span()})"

    def rest(self) -> tuple[str, str]:
        return "其余部分合计变动", "the other parts' change"

    def rest_share(self) -> tuple[str, str]:
        return "其余部分占总变动", "the other parts' share of the change"

    def left(self) -> tuple[str, str]:
        return "未归入以上部分的变动", "change not in the parts above"

    def rest_and_left(self) -> tuple[str, str]:
        return "其余部分及未归入部分的变动", "the other parts' change and change in no part"

    def rest_and_left_share(self) -> tuple[str, str]:
        return "其余及未归入部分占总变动", "the other and unallocated share of the change"

    def left_share(self) -> tuple[str, str]:
        return "未归入部分占总变动", "share not in the parts above"

    def rate_effect(self, part: SubTask) -> tuple[str, str]:
        return f"{self._part(part, 'zh')} 率效应", f"{self._part(part, 'en')} rate effect"

    def mix_effect(self, part: SubTask) -> tuple[str, str]:
        return f"{self._part(part, 'zh')} 结构效应", f"{self._part(part, 'en')} mix effect"

    def effect(self, part: SubTask) -> tuple[str, str]:
        return f"{self._part(part, 'zh')} 合计影响", f"{self._part(part, 'en')} total effect"

    def pooled(self) -> tuple[str, str]:
        return "各部分合计影响", "the parts' effects together"
