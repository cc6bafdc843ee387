"""The online battleground: students' agents play each other through a server without sharing code.

:mod:`.server` referees (asyncio, WebSocket and the web pages on one port),
:mod:`.store` keeps players and games in SQLite, :mod:`.client` plays a
student's sealed agent from their machine, :mod:`.protocol` is the wire
format both speak and :mod:`.web` the pages and the JSON API
(docs/battleground.md).
"""
