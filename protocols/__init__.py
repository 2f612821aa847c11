"""RAGSpine in the protocols other tools already speak: the OpenAI Chat Completions API
(`chat`) and the Model Context Protocol (`mcp_server`, served over HTTP by `mcp_http` and
over stdio by `manage.py mcp`). Both answer with the same guarded answers, lineage and
clearance as `/v1/ask`, through the same selectors and `agent.services.question_ask`."""
