// Cross-checks of package tlcp against gotlcp (gitee.com/Trisia/gotlcp, the
// implementation tlcp.md calls GO). A separate module, so that the main
// module never depends on it. See doc.go for how to run it.
module github.com/shangmi-go/shangmi/tlcp/internal/interop

go 1.26.0

require (
	gitee.com/Trisia/gotlcp v0.0.0-20260714024307-912b3a976033
	github.com/emmansun/gmsm v0.44.1
	github.com/shangmi-go/shangmi v0.0.0
)

replace github.com/shangmi-go/shangmi => ../../..
