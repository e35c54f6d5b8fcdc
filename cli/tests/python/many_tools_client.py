"""The official MCP Python SDK's client, through `toolschema proxy --for openai-strict` in front of
many_tools_server.py (130 tools; OpenAI takes 128 per request). Without a choice the proxy ends at
start, saying why; with `--tools`/`--exclude` only the chosen tools are listed and callable, and a
call to another is refused as an unknown tool.
Usage: many_tools_client.py TOOLSCHEMA_BINARY. Prints one line per check; exits 1 on the first
failure."""

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


def params(proxy, *choice):
    here = os.path.dirname(os.path.abspath(__file__))
    return StdioServerParameters(
        command=proxy,
        args=["proxy", "--for", "openai-strict", *choice, "--server", "--", sys.executable,
              os.path.join(here, "many_tools_server.py")],
    )


async def over_the_limit(proxy):
    try:
        async with stdio_client(params(proxy)) as (read, write):
            async with ClientSession(read, write) as session:
                await asyncio.wait_for(session.initialize(), 60)
                await asyncio.wait_for(session.list_tools(), 60)
    except BaseException as e:  # the proxy ended: the session cannot start
        check(not isinstance(e, asyncio.TimeoutError), "the proxy ended at start: " + type(e).__name__)
        return
    check(False, "the proxy served 130 tools for openai-strict")


async def chosen(proxy):
    choice = ["--tools", "tool_0*,tool_12?", "--exclude", "tool_129"]
    async with stdio_client(params(proxy, *choice)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            names = sorted(t.name for t in (await session.list_tools()).tools)
            expected = [f"tool_{i:03}" for i in list(range(100)) + list(range(120, 129))]
            check(names == expected, f"only the chosen tools are listed ({len(names)})")
            result = await session.call_tool("tool_007", {"q": "x"})
            check(not result.isError and json.loads(result.content[0].text) == {"tool": "tool_007", "q": "x"},
                  "a chosen tool is called: " + result.content[0].text)
            result = await session.call_tool("tool_110", {"q": "x"})
            text = result.content[0].text
            check(result.isError and "Unknown tool `tool_110`" in text,
                  "a tool left out is refused as unknown: " + text)


async def main(proxy):
    await over_the_limit(proxy)
    await chosen(proxy)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
