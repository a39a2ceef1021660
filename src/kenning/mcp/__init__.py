"""kenning's third face: an MCP server (``kenning mcp``) over the same ``Kenning`` as the CLI.

    arguments  what a tool argument is, and its checking and coercion at the edge (the names
               models guess, "5" -> 5, null -> not given, a size limit per argument and per call)
    tools      the tool table: names, descriptions that say when to call each tool, hints, and
               thin functions over the library (JSON object in, JSON object out)
    handshake  what needs neither the SDK nor the store: the initialize result and the tool,
               prompt, resource-template and resource listings, as JSON
    messages   the library's messages for an MCP client: tools to call instead of CLI commands
    front      stdio: answers the handshake at once, while the SDK and the store load, then hands
               the connection to the SDK
    server     the SDK wiring: tools, resources (hot memory files, each SKILL.md), the task_context
               prompt, the client's model through sampling, stdio or streamable HTTP (Host and
               Origin checked against DNS rebinding, a bearer token)

The SDK (the ``mcp`` extra) is imported by ``server`` only, which only ``kenning mcp`` imports,
over stdio behind ``front``; everything ``front`` needs before that stays light (no numpy, no store).
"""
