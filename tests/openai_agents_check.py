"""OpenAI's own strict converter leaves every strict schema we send unchanged.

Reads every strict declaration in the per-provider snapshots (tests/snapshots/*@openai-strict,
*@openai-responses, *@deepseek-strict: what `convert` sends, checked equal to the adapters'
output by tests/tests/providers.rs), the encoded forms too (*@openai-strict+encoded, ...: maps as
key/value pairs, any value as JSON text), and runs openai-agents' `ensure_strict_json_schema` on a copy
of each schema: the converter must not change it (issue 47, "the optional-property form": a
nullable scalar sent as `type: [T, "null"]` must be a form OpenAI's own tooling accepts as is).
Run by tests/openai-agents.sh, which installs the pinned openai-agents in a virtualenv.
"""

import copy
import glob
import json
import os
import sys

from agents.strict_schema import ensure_strict_json_schema

HERE = os.path.dirname(os.path.abspath(__file__))


def declarations(path):
    text = open(path, encoding="utf-8").read()
    # An insta snapshot: a `---` header, then the JSON value.
    body = text.split("---\n", 2)[2]
    return json.loads(body)["declarations"]


def strict_schemas(declared):
    for d in declared:
        f = d.get("function", d)
        if f.get("strict") is True:
            yield f["name"], f["parameters"]


def main():
    checked = 0
    changed = []
    for target in ("openai-strict", "openai-responses", "deepseek-strict"):
        paths = glob.glob(os.path.join(HERE, "snapshots", f"*@{target}.snap"))
        paths += glob.glob(os.path.join(HERE, "snapshots", f"*@{target}+encoded.snap"))
        for path in sorted(paths):
            for name, schema in strict_schemas(declarations(path)):
                after = ensure_strict_json_schema(copy.deepcopy(schema))
                checked += 1
                if after != schema:
                    changed.append(f"{os.path.basename(path)}: {name}")
    print(f"openai-agents ensure_strict_json_schema: {checked} strict schemas, {len(changed)} changed")
    for c in changed:
        print("  changed:", c)
    if checked < 100 or changed:
        sys.exit(1)


if __name__ == "__main__":
    main()
