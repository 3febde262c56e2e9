"""Node types the runtime creates or treats specially: one table, read by the
graph (its inputs), the engine (what needs no prototype) and gen-ops (which
refuses a custom op of one of these types, E308)."""

# Graph inputs: a node of one of these types is an input, ordered by its
# ``index`` attr.
DATA_NODE_TYPES = frozenset({"Data", "RefData", "AippData", "AnyData"})

# Every type a custom op may not take: the inputs above, GE's other data
# node (AnnData), constants, the graph's output node and variables.
RESERVED_NODE_TYPES = DATA_NODE_TYPES | frozenset(
    {"AnnData", "Const", "Constant", "NetOutput", "Variable"}
)
