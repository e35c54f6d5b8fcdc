"""The official MCP Python SDK's client, through `toolschema proxy --for openai-strict` in front of
map_server.py: the listed schemas are strict with key/value pairs and JSON text, a call made in
that form reaches the server as the maps it asked for, and a repeated key never reaches it.
Usage: map_client.py TOOLSCHEMA_BINARY. Prints one line per check; exits 1 on the first failure."""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def check(ok, what):
    print(("ok: " if ok else "FAILED: ") + what, flush=True)
    if not ok:
        sys.exit(1)


async def main(proxy):
    here = os.path.dirname(os.path.abspath(__file__))
    params = StdioServerParameters(
        command=proxy,
        args=["proxy", "--for", "openai-strict", "--server", "--", sys.executable,
              os.path.join(here, "map_server.py")],
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            labels = tools["set_labels"].inputSchema["properties"]["labels"]
            check(labels["type"] == "array", "labels is listed as an array: " + json.dumps(labels))
            pair = labels["items"]
            check(pair["required"] == ["key", "value"] and pair["additionalProperties"] is False,
                  "each item is a closed {key, value} object")
            check(pair["properties"]["value"]["type"] == "integer", "the values keep their type")
            flt = tools["find"].inputSchema["properties"]["filter"]
            check(flt["type"] == "string", "filter (any object) is listed as JSON text")

            result = await session.call_tool("set_labels", {
                "name": "web", "labels": [{"key": "tier", "value": 1}, {"key": "zone", "value": 3}]})
            received = json.loads(result.content[0].text)
            check(not result.isError and received == {"name": "web", "labels": {"tier": 1, "zone": 3}},
                  "the server received the map: " + result.content[0].text)

            result = await session.call_tool("find", {
                "collection": "orders", "filter": "{\"status\": \"paid\", \"total\": {\"$gt\": 10}}"})
            received = json.loads(result.content[0].text)
            check(received == {"collection": "orders", "filter": {"status": "paid", "total": {"$gt": 10}}},
                  "the server received the filter object: " + result.content[0].text)

            result = await session.call_tool("set_labels", {
                "name": "web", "labels": [{"key": "tier", "value": 1}, {"key": "tier", "value": 2}]})
            text = result.content[0].text
            check(result.isError and "repeats the key `tier`" in text,
                  "a repeated key is refused before the server: " + text)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
