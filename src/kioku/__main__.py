from kioku.cli import main

raise SystemExit(main())
