package plots

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/outfile"
	"github.com/limbo-toolkit/limbo/sandbox"
	"gonum.org/v1/plot/vg"
)

// Numbers are the figures this package draws.
var Numbers = []int{1, 2, 3, 4, 5, 6}

// Formats are the output formats.
var Formats = []string{"png", "svg", "pdf"}

// Figure is one figure ready to be written in any format.
type Figure struct {
	Number int
	Name   string // file stem: "figure3"
	Width  vg.Length
	Height vg.Length
	f      figure
}

// Write renders the figure to w as png (300 dpi), svg or pdf.
func (f *Figure) Write(w io.Writer, format string) error { return f.f.write(w, format) }

// Build prepares figure n (1–6) from the analysis results: the figure data
// of Figures 2, 3 and 6 (res.Figures) and Tables 6 and 7 for Figures 4 and
// 5; Figure 1 draws the sandbox's traces (sandbox.Figure1Traces) and reads
// nothing. It returns an error saying what is missing when the data cannot
// support the figure.
func Build(n int, res *paper.Results) (*Figure, error) {
	var f figure
	var err error
	switch n {
	case 1:
		var tr []sandbox.Figure1Trace
		if tr, err = sandbox.Figure1Traces(); err == nil {
			f = figure1(tr)
		}
	case 2:
		var h HeatMap
		if h, err = Figure2Data(figureOf(res, "figure2")); err == nil {
			f = figure2(h)
		}
	case 3:
		var d IntervalData
		if d, err = Figure3Data(figureOf(res, "figure3")); err == nil {
			f = figure3(d)
		}
	case 4:
		var d [2]TradeOff
		if d, err = Figure4Data(tableOf(res, 6)); err == nil {
			f = figure4(d)
		}
	case 5:
		var d BubbleData
		if d, err = Figure5Data(tableOf(res, 7)); err == nil {
			f = figure5(d)
		}
	case 6:
		var d StackData
		if d, err = Figure6Data(figureOf(res, "figure6")); err == nil {
			f = figure6(d)
		}
	default:
		return nil, fmt.Errorf("no figure %d (the paper's figures are 1–6)", n)
	}
	if err != nil {
		return nil, err
	}
	return &Figure{Number: n, Name: f.name, Width: f.w, Height: f.h, f: f}, nil
}

// figureOf returns the figure data table named name (nil if absent).
func figureOf(res *paper.Results, name string) *paper.Table {
	if res == nil {
		return nil
	}
	// Figure data is res.Figures, a set with Tables() (or a plain slice).
	var ts []*paper.Table
	switch f := any(res.Figures).(type) {
	case interface{ Tables() []*paper.Table }:
		ts = f.Tables()
	case []*paper.Table:
		ts = f
	}
	for _, t := range ts {
		if t != nil && t.ID() == name {
			return t
		}
	}
	return nil
}

func tableOf(res *paper.Results, n int) *paper.Table {
	if res == nil {
		return nil
	}
	return res.Table(n)
}

// RenderAll writes every figure the data supports into dir, an existing
// directory, as figureN.FORMAT for each of formats, all or none (package
// outfile: temporary files in dir, synced and renamed into place). It
// returns the paths written, in figure then format order, and one warning
// per figure it skipped for lack of data. An unknown format or a failed
// write is an error, and then no figure is written.
func RenderAll(res *paper.Results, dir string, formats []string) (files, skipped []string, err error) {
	if fi, err := os.Stat(dir); err != nil {
		return nil, nil, err
	} else if !fi.IsDir() {
		return nil, nil, fmt.Errorf("%s: not a directory", dir)
	}
	u := outfile.NewUnit()
	defer u.Abort() // no-op after Commit
	outs, skipped, err := RenderTo(u, res, dir, formats)
	if err != nil {
		return nil, skipped, err
	}
	if err := u.Commit(); err != nil {
		return nil, skipped, err
	}
	for _, o := range outs {
		files = append(files, o.Path)
	}
	return files, skipped, nil
}

// Output is one figure file rendered by RenderTo.
type Output struct {
	Path string
	Data []byte // the file's content (for embedding the PNGs in a report)
}

// RenderTo renders every figure the data supports as dir/figureN.FORMAT for
// each of formats into the unit u, which the caller commits with its other
// outputs. It returns the files, in figure then format order, and one
// warning per figure it skipped for lack of data; the files of a skipped
// figure that an earlier run left in dir are removed on commit.
func RenderTo(u *outfile.Unit, res *paper.Results, dir string, formats []string) (files []Output, skipped []string, err error) {
	r, err := NewRenderer(formats)
	if err != nil {
		return nil, nil, err
	}
	return r.RenderTo(u, res, dir)
}

// A Renderer draws the figures in a set of formats. The figures that read
// no results (Figure 1, the sandbox's traces) are drawn from the moment it
// is made, so that a caller that makes it before its analysis (a report,
// before it simulates) has them drawn by the time the results are.
type Renderer struct {
	formats []string
	early   map[int]*drawing // the figures that read no results
}

// drawing is one figure drawn in every format, in the background.
type drawing struct {
	done chan struct{}
	fig  *Figure
	data [][]byte // per format
	err  error    // from Build, or the first format's failure
	bad  string   // the path of the format that failed (its error's prefix)
}

// readsNoResults reports whether Build(n, res) ignores res.
func readsNoResults(n int) bool { return n == 1 }

// NewRenderer returns a Renderer of formats (png, svg, pdf) and starts
// drawing the figures that need no results.
func NewRenderer(formats []string) (*Renderer, error) {
	for _, f := range formats {
		if !slices.Contains(Formats, f) {
			return nil, fmt.Errorf("unknown figure format %q (want png, svg or pdf)", f)
		}
	}
	r := &Renderer{formats: slices.Clone(formats), early: map[int]*drawing{}}
	for _, n := range Numbers {
		if readsNoResults(n) {
			d := &drawing{done: make(chan struct{})}
			r.early[n] = d
			go func() {
				defer close(d.done)
				d.fig, d.err = Build(n, nil)
				if d.err != nil {
					return
				}
				d.data, d.bad, d.err = drawFormats(d.fig, r.formats)
			}()
		}
	}
	return r, nil
}

// drawFormats renders fig in each of formats; on a failure it returns the
// file name (figureN.FORMAT) of the format that failed.
func drawFormats(fig *Figure, formats []string) (data [][]byte, bad string, err error) {
	for _, format := range formats {
		var buf bytes.Buffer
		if err := fig.Write(&buf, format); err != nil {
			return nil, fig.Name + "." + format, err
		}
		data = append(data, buf.Bytes())
	}
	return data, "", nil
}

// RenderTo is the package's RenderTo in the Renderer's formats, using
// what it has drawn already.
func (r *Renderer) RenderTo(u *outfile.Unit, res *paper.Results, dir string) (files []Output, skipped []string, err error) {
	formats := r.formats
	// Figures are independent: draw them concurrently, report in order.
	type result struct {
		files []Output
		skip  string
		err   error
	}
	out := make([]result, len(Numbers))
	var wg sync.WaitGroup
	for i, n := range Numbers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var fig *Figure
			var data [][]byte
			var bad string
			var err error
			if d, ok := r.early[n]; ok {
				<-d.done
				fig, data, bad, err = d.fig, d.data, d.bad, d.err
			} else if fig, err = Build(n, res); err == nil {
				data, bad, err = drawFormats(fig, formats)
			}
			if fig == nil {
				out[i].skip = err.Error()
				// A figure an earlier run drew from other data is stale.
				for _, format := range formats {
					if err := u.Remove(filepath.Join(dir, "figure"+strconv.Itoa(n)+"."+format)); err != nil {
						out[i].err = err
					}
				}
				return
			}
			if err != nil {
				out[i].err = fmt.Errorf("%s: %w", filepath.Join(dir, bad), err)
				return
			}
			for j, format := range formats {
				path := filepath.Join(dir, fig.Name+"."+format)
				if err := u.WriteFile(path, data[j]); err != nil {
					out[i].err = err
					return
				}
				out[i].files = append(out[i].files, Output{Path: path, Data: data[j]})
			}
		}()
	}
	wg.Wait()
	for _, r := range out {
		files = append(files, r.files...)
		if r.skip != "" {
			skipped = append(skipped, r.skip)
		}
		if r.err != nil && err == nil {
			err = r.err
		}
	}
	if err != nil {
		return nil, skipped, err
	}
	return files, skipped, nil
}
