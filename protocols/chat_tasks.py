"""A chat UI's background tasks, told from questions by their shape: Open WebUI and LibreChat
send the model a prompt of their own after each turn (a title for the chat, tags, follow-up
suggestions, search queries, an autocompletion), with the conversation pasted inside it. Such a
prompt is no analyst's question: answered as one it costs a throttle slot, a trace and a
conversation, and its reply (`未识别“concise”…`) becomes the chat's title.

A task prompt is an instruction that carries a transcript: a `<chat_history>` block, or lines
that say who spoke (`USER:`, `User:`, `AI:`, `Assistant:`), beside a word that names what is
wanted. Its reply is short and makes up nothing: a title is the first question's metric, entity
and period as the glossary names them (else its first words); tags are those names; follow-ups,
queries and completions are empty lists or text, in the JSON the prompt asks for."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date

from core.glossary import GlossarySnapshot
from core.parse.intent import parse_intent

# What the prompt asks for, from its instruction (the transcript aside): the first that matches.
_KINDS = (
    ("follow_ups", re.compile(r"follow[- ]?up", re.I)),
    ("tags", re.compile(r"\btags?\b", re.I)),
    ("queries", re.compile(r"search quer(?:y|ies)|generat\w* (?:\w+ )?quer(?:y|ies)", re.I)),
    ("text", re.compile(r"auto-?complet", re.I)),
    ("title", re.compile(r"\btitle\b", re.I)),
)
_HISTORY = re.compile(r"<chat_history>(.*?)</chat_history>", re.S | re.I)
_SPEAKER = re.compile(r"^\s*(?:\|\|>)?\s*(user|human|assistant|ai|response)\s*:\s*(.*)$", re.I)
_QUESTIONER = {"user", "human"}


@dataclass(frozen=True)
class ChatTask:
    kind: str  # title | tags | follow_ups | queries | text
    questions: tuple[str, ...]  # what the user asked in the pasted transcript, in order
    json: bool  # the prompt asks for a JSON object


def chat_task(prompt: str) -> ChatTask | None:
    """The background task `prompt` is, or None when it is a question."""
    found = _HISTORY.search(prompt)
    transcript = found.group(1) if found else prompt
    questions, speakers = _turns(transcript)
    if not found and len(speakers) < 1:
        return None  # no pasted conversation: a question, whatever words it uses
    instruction = prompt.replace(transcript, " ") if found else _instruction(prompt)
    if not found and not re.search(r"###\s*task|conversation|chat", instruction, re.I):
        return None
    kind = next((name for name, words in _KINDS if words.search(instruction)), None)
    if kind is None:
        return None
    return ChatTask(kind, tuple(questions), bool(re.search(r"\bjson\b", instruction, re.I)))


def _turns(transcript: str) -> tuple[list[str], set[str]]:
    questions: list[str] = []
    speakers: set[str] = set()
    speaker: str | None = None
    for line in transcript.splitlines():
        said = _SPEAKER.match(line)
        if said:
            speaker = said.group(1).lower()
            speakers.add(speaker)
            if speaker in _QUESTIONER:
                questions.append(said.group(2).strip().strip('"'))
        elif speaker in _QUESTIONER and line.strip() and questions:
            questions[-1] = f"{questions[-1]} {line.strip().strip('"')}".strip()
    return [q for q in questions if q], speakers


def _instruction(prompt: str) -> str:
    """The prompt without its transcript lines (whose questions may use any words)."""
    kept, speaker = [], None
    for line in prompt.splitlines():
        said = _SPEAKER.match(line)
        if said:
            speaker = said.group(1).lower()
        elif speaker is None or not line.strip() or line.lstrip().startswith(("#", "||>")):
            kept.append(line)
            speaker = None
    return "\n".join(kept)


def chat_task_reply(task: ChatTask, glossary: GlossarySnapshot, today: date) -> str:
    names = _names(task.questions[0], glossary, today) if task.questions else []
    value: object
    if task.kind == "title":
        value = " ".join(names) or (task.questions[0][:40] if task.questions else "RAGSpine")
    elif task.kind == "tags":
        value = names[:3]
    elif task.kind == "text":
        value = ""
    else:
        value = []
    if task.json:
        return json.dumps({task.kind: value}, ensure_ascii=False)
    return ", ".join(value) if isinstance(value, list) else str(value)


def _names(question: str, glossary: GlossarySnapshot, today: date) -> list[str]:
    """The entity, metric and period a question names, as the glossary writes them in its language."""
    intent = parse_intent(question, glossary, today)
    names = []
    if intent.entity:
        names.append(glossary.display("entity", intent.entity, intent.language))
    if intent.metric:
        names.append(glossary.display("metric", intent.metric, intent.language))
    if intent.period is not None:
        names.append(intent.period.label)
    return names
