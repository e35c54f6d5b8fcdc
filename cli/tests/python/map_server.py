"""An MCP server (the official Python SDK's FastMCP) with tools whose parameters hold maps: each
tool answers with the arguments it received, as JSON text, so the test sees what reached it."""

import json

from mcp.server.fastmcp import FastMCP

server = FastMCP("maps")


@server.tool()
def set_labels(name: str, labels: dict[str, int]) -> str:
    """Set integer labels on a resource."""
    return json.dumps({"name": name, "labels": labels}, sort_keys=True)


@server.tool()
def find(collection: str, filter: dict) -> str:
    """Find documents matching a filter (any JSON object)."""
    return json.dumps({"collection": collection, "filter": filter}, sort_keys=True)


if __name__ == "__main__":
    server.run()
