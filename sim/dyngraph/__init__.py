"""The host side of the dynamic graph unit: its memory image and its checked RTL runs."""
