"""How large a ruleset text may be: the bounds that keep a hostile rule file from costing time
or memory, checked while it is read (`yamlload`) and while it is parsed (`yamlparse`)."""

MAX_BYTES = 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 100_000
# Text after expanding aliases: an alias of a long string counts as that string again, so a
# small file cannot grow into gigabytes of values (and of messages quoting them).
MAX_CHARS = 4 * MAX_BYTES
MAX_DIGITS = 15  # a number in a ruleset counts cards and points; 16 digits is no longer exact in a float

BOM = "\ufeff"
