"""The MCP servers a case declares, for one run: resolved into launches (`resolve`), served
when mocked (`mock`, our own stdio server), and connected for the SDK loop (`client`, through
the `mcp` SDK, imported only when a case has servers; `servers.open_servers` is the entry)."""
