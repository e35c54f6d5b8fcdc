"""An MCP server (the official Python SDK's FastMCP) with 130 tools, `tool_000` to `tool_129`,
more than OpenAI takes in one request (128): each answers with its name and the arguments it got."""

import json

from mcp.server.fastmcp import FastMCP

server = FastMCP("many")


def make(i):
    def tool(q: str) -> str:
        return json.dumps({"tool": f"tool_{i:03}", "q": q})

    return tool


for i in range(130):
    server.add_tool(make(i), name=f"tool_{i:03}", description=f"Tool number {i}.")


if __name__ == "__main__":
    server.run()
