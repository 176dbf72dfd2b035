"""The audience display as a web page: one aiohttp server follows the journal read-only and
serves the page (index.html, page.css, page.js, shipped here), /public.json and /events
(server-sent events) to any number of browsers. Nothing served can act on the game."""
