from graphbench.cli import main

raise SystemExit(main())
