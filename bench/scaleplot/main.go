// Command scaleplot draws how CPU time and peak memory grow with the ledger
// size, on log-log axes, from the Markdown table bench/scale.sh prints.
//
// Usage:
//
//	bench/scale.sh > /tmp/scale.md
//	go run ./bench/scaleplot --in /tmp/scale.md --out docs/scale.png
package main

import (
	"bufio"
	"flag"
	"fmt"
	"image/color"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/limbo-toolkit/limbo/outfile"
)

// sizes maps the ledger names bench/scale.sh uses to their row counts.
var sizes = map[string]float64{"26k.parquet": 25930, "1m.parquet": 1e6, "10m.parquet": 1e7}

type point struct{ rows, cpu, rss float64 }

func main() {
	in := flag.String("in", "", "Markdown table from bench/scale.sh")
	out := flag.String("out", "docs/scale.png", "PNG to write")
	flag.Parse()
	if *in == "" {
		fmt.Fprintln(os.Stderr, "usage: scaleplot --in TABLE.md [--out docs/scale.png]")
		os.Exit(2)
	}
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "scaleplot:", err)
		os.Exit(1)
	}
}

// parse reads rows "| command | ledger | wall | cpu | rss | load |".
func parse(path string) (map[string][]point, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	series := map[string][]point{}
	var order []string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		c := strings.Split(sc.Text(), "|")
		if len(c) != 8 {
			continue
		}
		for i := range c {
			c[i] = strings.TrimSpace(c[i])
		}
		rows, ok := sizes[c[2]]
		if !ok {
			continue
		}
		cpu, err1 := strconv.ParseFloat(c[4], 64)
		rss, err2 := strconv.ParseFloat(c[5], 64)
		if err1 != nil || err2 != nil {
			return nil, nil, fmt.Errorf("%s:%d: want numbers in the CPU and RSS columns", path, line)
		}
		if _, ok := series[c[1]]; !ok {
			order = append(order, c[1])
		}
		series[c[1]] = append(series[c[1]], point{rows, cpu, rss})
	}
	if len(order) == 0 {
		return nil, nil, fmt.Errorf("%s: no rows for %v", path, []string{"26k.parquet", "1m.parquet", "10m.parquet"})
	}
	return series, order, sc.Err()
}

func panel(title, ylabel string, series map[string][]point, order []string, y func(point) float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "episodes"
	p.Y.Label.Text = ylabel
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	// Okabe–Ito colours, distinguishable under colour-vision deficiency.
	pal := []color.RGBA{{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255}, {230, 159, 0, 255}, {86, 180, 233, 255}}
	for k, name := range order {
		pts := slices.Clone(series[name])
		slices.SortFunc(pts, func(a, b point) int { return int(a.rows - b.rows) })
		xy := make(plotter.XYs, len(pts))
		for i, q := range pts {
			xy[i].X, xy[i].Y = q.rows, max(y(q), 1e-3)
		}
		l, s, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		l.Color, s.Color = pal[k%len(pal)], pal[k%len(pal)]
		s.Shape = draw.CircleGlyph{}
		p.Add(l, s)
		p.Legend.Add(name, l, s)
	}
	return p, nil
}

func run(in, out string) error {
	series, order, err := parse(in)
	if err != nil {
		return err
	}
	cpu, err := panel("CPU time", "seconds (user+sys)", series, order, func(q point) float64 { return q.cpu })
	if err != nil {
		return err
	}
	rss, err := panel("Peak memory", "MiB (max RSS)", series, order, func(q point) float64 { return q.rss })
	if err != nil {
		return err
	}
	img := vgimg.New(11*vg.Inch, 4.5*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	for j, p := range []*plot.Plot{cpu, rss} {
		p.Draw(tiles.At(dc, j, 0))
	}
	return outfile.Write(out, func(w io.Writer) error {
		_, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w)
		return err
	})
}
