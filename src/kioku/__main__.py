from kioku.cli.main import main

raise SystemExit(main())
