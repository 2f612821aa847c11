"""RAGSpine as an MCP server, on the official `mcp` SDK: the tools `ask`, `search`, `facts` and
`document`, each returning structured content with sources and locators.

The server is one `MCPServer`; `mcp_http` serves it over Streamable HTTP inside Django and
`manage.py mcp` over stdio. The transport sets `callers.CALLER` (the user of the API token the
client presented), and every tool runs as that user through `tools`, in Django's own thread,
with that user's clearance. Nothing the server describes (its instructions, tool descriptions,
schemas and errors) is drawn from the data.

`ToolGate` stands before every tool call: an unknown tool is a JSON-RPC error (-32602), and
arguments of the wrong type a tool error that names each argument and what it must be (as the
MCP specification has input validation reported, so a model can correct itself).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from datetime import date
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from retrieval.embedders import embedder_build

from . import tools
from .callers import ASK_SCOPE, CALLER, INTERNAL_ERROR, INVALID_PARAMS, THROTTLED, Caller, throttle_wait

__all__ = ["CALLER", "THROTTLED", "TOOLS", "Caller", "ToolGate", "mcp_server"]


async def _as_caller(work: Callable[..., dict[str, Any]], **arguments: Any) -> dict[str, Any]:
    caller = CALLER.get(None)
    if caller is None:  # a transport that did not say who is calling: refuse, never run as nobody
        raise MCPError(code=INTERNAL_ERROR, message="No caller is known for this request.")

    def run() -> dict[str, Any]:
        if caller.long_lived:
            close_old_connections()
        try:
            return work(caller.user, **arguments)
        except tools.ToolInputError as error:
            raise ToolError(str(error)) from None

    return await sync_to_async(run, thread_sensitive=True)()


# -- what the tools return ----------------------------------------------------------------------
class SourceRef(TypedDict):
    doc: str
    locator: str
    document_id: int | None


class Fact(TypedDict):
    value: str
    unit: str
    metric: str
    entity: str
    period: str
    channel: str
    source: SourceRef
    valid_as_of: str | None
    printed_value: NotRequired[str]  # the figure as printed, when the metric's sign convention stores the amount


class Source(TypedDict):
    kind: str
    doc: str
    locator: str
    document_id: int | None
    snippet: str


class Answer(TypedDict):
    answer: str
    answer_kind: str
    route: str
    request_id: str
    conversation_id: str | None
    facts: list[Fact]
    computed: list[dict[str, Any]]
    sources: list[Source]
    clarification: dict[str, Any]
    guard: dict[str, Any]


class Hit(TypedDict):
    chunk_id: int
    doc: str
    document_id: int
    locator: str
    score: float
    snippet: str


class Hits(TypedDict):
    hits: list[Hit]
    note: NotRequired[str]  # why nothing matched an English query, and what to search instead


class FactRow(TypedDict):
    id: int
    metric: str
    entity: str
    period: str
    channel: str
    value: str
    printed_value: str | None  # the figure as printed, when the metric's sign convention stores the amount
    unit: str
    source: SourceRef
    valid_as_of: str | None
    sensitivity: str


class Facts(TypedDict):
    count: int
    facts: list[FactRow]


class Passage(TypedDict):
    chunk_id: int
    locator: str
    heading: str
    text: str


class Located(TypedDict):
    document: dict[str, Any]
    locator: str
    kind: Literal["passage", "cell"]
    passage: NotRequired[Passage]
    before: NotRequired[list[Passage]]
    after: NotRequired[list[Passage]]
    cell: NotRequired[FactRow]
    row: NotRequired[list[FactRow]]
    column: NotRequired[list[FactRow]]
    place: NotRequired[list[Passage]]


# -- the tools ----------------------------------------------------------------------------------
async def ask(
    question: Annotated[str, Field(description="The question, in Chinese or English (at most 2,000 characters).")],
    conversation_id: Annotated[
        str | None,
        Field(description="Names a conversation of yours (created on first use); follow-ups in it inherit."),
    ] = None,
    reference_date: Annotated[
        date | None, Field(description="YYYY-MM-DD: the date relative periods are read from (default today).")
    ] = None,
) -> Annotated[CallToolResult, Answer]:
    """Answer a question about the company's figures or documents, as the RAGSpine API does.

    Figures come only from the approved fact table, each with its source document and locator;
    computed values (growth, shares, sums, rankings) list their formula and inputs. A figure
    that cannot be found is refused, never estimated. The text content is the answer; the
    structured content adds route, answer kind, facts, computed values, sources and request id."""
    caller = CALLER.get(None)
    answer = await _as_caller(
        tools.ask_tool,
        question=question,
        conversation_id=conversation_id,
        reference_date=reference_date,
        request_id=caller.request_id if caller else None,
    )
    return CallToolResult(content=[TextContent(type="text", text=answer["answer"])], structured_content=answer)


async def search(
    query: Annotated[str, Field(description="Words to look for in the documents.")],
    k: Annotated[int, Field(description="How many passages, 1 to 50.", ge=1, le=50)] = 10,
    mode: Annotated[
        Literal["bm25", "vector", "hybrid"],
        Field(description="Ranking: lexical, vector or both (vector needs an embedder)."),
    ] = "hybrid",
) -> Hits:
    """Search the document passages you may see; each hit has its document id and locator, which
    `document` opens in context. The documents are searched as written (the company's reports,
    mostly Chinese): a company, metric or channel named in English is also searched under the
    names the glossary gives it in Chinese; other English words match only English text."""
    return await _as_caller(tools.search_tool, query=query, k=k, mode=mode)  # type: ignore[return-value]


async def facts(
    metric: Annotated[
        str | None, Field(description="A metric code or any of its aliases, e.g. REVENUE or 营收.")
    ] = None,
    entity: Annotated[str | None, Field(description="An entity code or alias, e.g. ACME_HK or 香港.")] = None,
    period: Annotated[str | None, Field(description="A period label: FY2025, 2025H1, 2025Q4.")] = None,
    channel: Annotated[str | None, Field(description="A channel code or alias; TOTAL is the whole.")] = None,
    limit: Annotated[int, Field(description="How many facts, 1 to 1,000.", ge=1, le=1000)] = 50,
    offset: Annotated[int, Field(description="How many to skip.", ge=0)] = 0,
) -> Facts:
    """List approved facts you may see, each with its value, unit, source document and locator."""
    return await _as_caller(  # type: ignore[return-value]
        tools.facts_tool,
        metric=metric,
        entity=entity,
        period=period,
        channel=channel,
        limit=limit,
        offset=offset,
    )


async def document(
    document_id: Annotated[int, Field(description="The `document_id` of a source, hit or fact.")],
    locator: Annotated[str, Field(description="Its `locator`, as given (e.g. page=1,para=1-2 or sheet=…!C4).")],
    around: Annotated[int, Field(description="Passages to show before and after a passage, 0 to 5.", ge=0, le=5)] = 1,
) -> Located:
    """Open a cited passage or table cell in its document: a passage with the passages around it,
    or a cell with the other cells of its row and column and the passages of its page or slide."""
    return await _as_caller(  # type: ignore[return-value]
        tools.document_tool, document_id=document_id, locator=locator, around=around
    )


class GlossaryName(TypedDict):
    code: str
    name: str
    aliases: list[str]
    unit: NotRequired[str]
    kind: NotRequired[str]


class Glossary(TypedDict):
    metrics: NotRequired[list[GlossaryName]]
    entities: NotRequired[list[GlossaryName]]
    channels: NotRequired[list[GlossaryName]]


async def glossary(
    kind: Annotated[
        Literal["metric", "entity", "channel"] | None,
        Field(description="Only metrics, only companies or only channels; all three when left out."),
    ] = None,
) -> Glossary:
    """The codes and names `facts` and `ask` understand: metrics with their unit, companies (the
    home company, its subsidiaries and peers) and channels, each with every alias it answers to,
    in Chinese and English. Use a code or any alias as `facts`' `metric`, `entity` or `channel`."""
    return await _as_caller(tools.glossary_tool, kind=kind)  # type: ignore[return-value]


# Every tool reads: a host may run them without asking the user each time. (`ask` keeps the
# caller's conversation and the trace, as every question does; it changes nothing the caller sees.)
READS = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)
TOOLS = [Tool.from_function(fn, annotations=READS) for fn in (ask, search, facts, document, glossary)]


def _tools() -> list[Tool]:
    """The tools as this server offers them: `search` offers `vector` ranking only with an embedder."""
    if embedder_build().enabled:
        return list(TOOLS)
    search_tool = next(tool for tool in TOOLS if tool.name == "search")
    schema = copy.deepcopy(search_tool.parameters)
    schema["properties"]["mode"]["enum"] = ["bm25", "hybrid"]
    schema["properties"]["mode"]["description"] = (
        "Ranking: lexical, or lexical with vectors when the server has an embedder."
    )
    narrowed = search_tool.model_copy(update={"parameters": schema})
    return [narrowed if tool.name == "search" else tool for tool in TOOLS]


INSTRUCTIONS = (
    "RAGSpine answers questions about a company's figures and documents with lineage. Use `ask` for a "
    "question; every figure in its answer comes from the approved fact table with its source. Use "
    "`search`, `facts` and `document` to look at the sources themselves, and `glossary` for the codes and "
    "names they understand."
)


def _problems(error: ValidationError) -> str:
    parts = []
    for problem in error.errors():
        where = ".".join(str(step) for step in problem["loc"]) or "arguments"
        parts.append(f"{where}: {problem['msg']}")
    return "; ".join(parts)


class ToolGate:
    """Middleware for every inbound message: the API's throttles (`throttle` on: stdio, where no
    HTTP view counts them), unknown tools and ill-typed arguments."""

    def __init__(self, tools_by_name: Mapping[str, Tool], *, throttle: bool):
        self.tools = tools_by_name
        self.throttle = throttle

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.request_id is None or ctx.method != "tools/call" or not isinstance(ctx.params, Mapping):
            if self.throttle and ctx.request_id is not None:
                await self._throttle(scope=None)
            return await call_next(ctx)
        name = ctx.params.get("name")
        tool = self.tools.get(name) if isinstance(name, str) else None
        if self.throttle:
            await self._throttle(scope=ASK_SCOPE if name == "ask" else None)
        if tool is None:
            shown = name[:64] if isinstance(name, str) else name
            raise MCPError(
                code=INVALID_PARAMS, message=f"Unknown tool: {shown!r}. The tools are {', '.join(self.tools)}."
            )
        arguments = ctx.params.get("arguments")
        if isinstance(arguments, Mapping):
            unknown = sorted(str(key)[:64] for key in arguments if key not in tool.parameters.get("properties", {}))
            message = f"unknown argument(s): {', '.join(unknown)}" if unknown else ""
            if not message:
                try:
                    tool.fn_metadata.validate_arguments(dict(arguments))
                except ValidationError as error:
                    message = _problems(error)
            if message:
                text = f"Invalid arguments for tool {name}: {message}."
                return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        return await call_next(ctx)

    async def _throttle(self, *, scope: str | None) -> None:
        caller = CALLER.get(None)
        if caller is None:
            return
        wait = await sync_to_async(throttle_wait, thread_sensitive=True)(caller.user, scope=scope)
        if wait is not None:
            raise MCPError(
                code=THROTTLED,
                message=f"Too many requests: try again in {int(wait)} seconds.",
                data={"retry_after": int(wait)},
            )


def mcp_server(*, throttle: bool) -> MCPServer:
    """A new server with the five tools. `throttle`: apply the API's throttles per message (the
    HTTP view applies them itself, with a 429 and Retry-After)."""
    server: MCPServer = MCPServer(
        "ragspine",
        title="RAGSpine",
        instructions=INSTRUCTIONS,
        version="1.0.0",
        tools=_tools(),
        subscriptions=False,
        log_level="WARNING",
    )
    server.middleware.append(ToolGate({tool.name: tool for tool in TOOLS}, throttle=throttle))
    return server
