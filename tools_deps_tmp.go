//go:build tools

package tools

import (
	_ "github.com/apache/arrow-go/v18/parquet/pqarrow"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "gonum.org/v1/gonum/mat"
	_ "gonum.org/v1/gonum/optimize"
	_ "gonum.org/v1/plot"
)
