"""escoba: the executable specification of the card game Escoba and its regional variants."""

__version__ = "0.1.0"
