from flipgate.cli import main

raise SystemExit(main())
