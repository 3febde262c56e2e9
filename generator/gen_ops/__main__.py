"""``python -m gen_ops`` is the ``gen-ops`` command."""

from gen_ops.cli import main

raise SystemExit(main())
