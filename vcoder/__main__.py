from vcoder.cli import main

raise SystemExit(main())
