"""The test world: corpus makers and renderers, fed from the printed PDFs (law 8)."""
