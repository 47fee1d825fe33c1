from pylucene_mcp.cli import main

raise SystemExit(main())
