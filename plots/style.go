package plots

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"git.sr.ht/~sbinet/gg"
	xdraw "golang.org/x/image/draw"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// OkabeIto is the Okabe & Ito (2008) colour-blind-safe palette, extended by
// a mid grey for a ninth series; yellow comes last (least visible on white).
var OkabeIto = []color.Color{
	rgb(0xE6, 0x9F, 0x00), // orange
	rgb(0x56, 0xB4, 0xE9), // sky blue
	rgb(0x00, 0x9E, 0x73), // bluish green
	rgb(0x00, 0x72, 0xB2), // blue
	rgb(0xD5, 0x5E, 0x00), // vermillion
	rgb(0xCC, 0x79, 0xA7), // reddish purple
	rgb(0x00, 0x00, 0x00), // black
	rgb(0x99, 0x99, 0x99), // grey
	rgb(0xF0, 0xE4, 0x42), // yellow: last, faint on white
}

// lightGrey is for grid lines.
var lightGrey = color.Gray{Y: 0xD0}

func rgb(r, g, b uint8) color.Color { return color.NRGBA{R: r, G: g, B: b, A: 0xFF} }

// colour returns the i-th series colour (cycling).
func colour(i int) color.Color { return OkabeIto[i%len(OkabeIto)] }

// shapes pair with colours so that series stay distinct in grey print.
var shapes = []draw.GlyphDrawer{
	draw.CircleGlyph{}, outline{4}, outline{3}, draw.PyramidGlyph{},
	outline{0}, draw.BoxGlyph{}, outline{6}, draw.CrossGlyph{},
}

func shape(i int) draw.GlyphDrawer { return shapes[i%len(shapes)] }

// Font sizes: nothing under 7 pt at print size.
const (
	tickSize  = 7
	labelSize = 8
	titleSize = 8
)

// sans is the figures' typeface (Liberation Sans, embedded by gonum/plot).
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Page widths.
const (
	columnWidth = 3.3 * vg.Inch
	pageWidth   = 6.9 * vg.Inch
)

func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(sans, size),
		XAlign:  draw.XLeft,
		YAlign:  draw.YBottom,
		Handler: plot.DefaultTextHandler,
	}
}

// newPlot is a plot with the package's fonts and light grid-free axes.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, titleSize)
	p.Title.Padding = 3
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, labelSize)
		a.Tick.Label.Font = font.From(sans, tickSize)
		a.Label.Padding = 2
		a.Padding = 2
		a.Tick.Length = 3
	}
	p.Legend.TextStyle.Font = font.From(sans, tickSize)
	return p
}

// percentTicks are ticks at 0, 25, …, 100 labelled without decimals.
type percentTicks struct{}

func (percentTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for v := 0.0; v <= 100; v += 25 {
		if v >= min-1e-9 && v <= max+1e-9 {
			ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprintf("%.0f", v)})
		}
	}
	return ts
}

// niceTicks labels about n round values between min and max.
type niceTicks struct{ n int }

func (t niceTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) {
		return []plot.Tick{{Value: min, Label: fmtNum(min)}}
	}
	raw := (max - min) / float64(max1(t.n, 2))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ts []plot.Tick
	for v := math.Ceil(min/step-1e-9) * step; v <= max+1e-9*step; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: fmtNum(v)})
	}
	return ts
}

func max1(a, b int) int {
	if a > b {
		return a
	}
	return b
}

func fmtNum(v float64) string {
	v += 0 // no "-0"
	if v == 0 {
		return "0"
	}
	if math.Abs(v-math.Round(v)) < 1e-9 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%g", math.Round(v*100)/100)
}

// canvasFor makes a vector or raster canvas of the format.
func canvasFor(format string, w, h vg.Length) (vg.CanvasWriterTo, error) {
	switch format {
	case "png":
		return fastPNG{rasterCanvas(w, h, 300)}, nil
	case "svg":
		return vgsvg.New(w, h), nil
	case "pdf":
		return vgpdf.New(w, h), nil
	}
	return nil, fmt.Errorf("unknown figure format %q (want png, svg or pdf)", format)
}

// rasterCanvas is vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi)): a
// white canvas of w×h at dpi, the same pixels, without the copy of its
// image that NewWith makes for the graphics context it creates (a second
// image of the figure's size, and its memory's page faults).
func rasterCanvas(w, h vg.Length, dpi int) *vgimg.Canvas {
	pw, ph := w/vg.Inch*vg.Length(dpi), h/vg.Inch*vg.Length(dpi)
	img := image.NewRGBA(image.Rect(0, 0, int(pw+0.5), int(ph+0.5)))
	ctx := gg.NewContextForRGBA(img)
	// What NewWith sets up on the context it makes.
	ctx.SetLineCapButt()
	ctx.InvertY()
	// The context draws each glyph's mask (and any image; the figures
	// have none) through its interpolator, here at a whole-pixel offset,
	// upright or turned a quarter: bilinear sampling there gives the
	// nearest pixel's value, in a fifth more of the figures' time than
	// nearest-neighbour sampling. TestFigurePNGPixels checks that the
	// pixels are gonum/plot's.
	ctx.SetInterpolator(xdraw.NearestNeighbor)
	return vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(dpi))
}

// fastPNG encodes with encodePNG: unfiltered rows at the fastest deflate
// level, a third of image/png's time at its fastest level for figures no
// larger.
type fastPNG struct{ *vgimg.Canvas }

func (c fastPNG) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	var err error
	if m, ok := c.Image().(*image.RGBA); ok {
		err = encodePNG(cw, m)
	} else {
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(cw, c.Image())
	}
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// figure is a drawable figure of a fixed print size.
type figure struct {
	name string // file stem: "figure2"
	w, h vg.Length
	draw func(c draw.Canvas)
}

// write renders f to w in format.
func (f figure) write(w io.Writer, format string) error {
	c, err := canvasFor(format, f.w, f.h)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	// A white page under the figure; a raster canvas starts white
	// (canvasFor), so only the vector formats need it drawn.
	if format != "png" {
		dc.FillPolygon(color.White, []vg.Point{dc.Min, {X: dc.Max.X, Y: dc.Min.Y}, dc.Max, {X: dc.Min.X, Y: dc.Max.Y}})
	}
	f.draw(dc)
	_, err = c.WriteTo(w)
	return err
}

// legendEntry is one line of a hand-laid legend: a thumbnail and a text.
type legendEntry struct {
	text  string
	thumb func(c *draw.Canvas, at vg.Point, size vg.Length)
	// height is the line height the entry needs (0: one text line).
	height vg.Length
}

// legendSection is a titled block of entries.
type legendSection struct {
	title   string
	entries []legendEntry
}

// glyphThumb draws a glyph.
func glyphThumb(g draw.GlyphStyle) func(*draw.Canvas, vg.Point, vg.Length) {
	return func(c *draw.Canvas, at vg.Point, size vg.Length) {
		c.DrawGlyphNoClip(g, vg.Point{X: at.X + size/2, Y: at.Y + size/2})
	}
}

// boxThumb draws a filled square.
func boxThumb(col color.Color) func(*draw.Canvas, vg.Point, vg.Length) {
	return func(c *draw.Canvas, at vg.Point, size vg.Length) {
		d := size * 0.8
		o := (size - d) / 2
		c.FillPolygon(col, rect(at.X+o, at.Y+o, at.X+o+d, at.Y+o+d))
	}
}

func rect(x0, y0, x1, y1 vg.Length) []vg.Point {
	return []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
}

// drawLegend lays sections out top-down from the top-left of c and returns
// the height used.
func drawLegend(c draw.Canvas, secs []legendSection) vg.Length {
	ts := textStyle(tickSize)
	hs := textStyle(tickSize)
	line := vg.Length(tickSize) * 1.45
	thumb := vg.Length(tickSize) * 1.2
	y := c.Max.Y
	for k, s := range secs {
		if k > 0 {
			y -= line * 0.4
		}
		if s.title != "" {
			y -= line
			c.FillText(hs, vg.Point{X: c.Min.X, Y: y + line*0.2}, s.title)
		}
		for _, e := range s.entries {
			h := max(line, e.height)
			y -= h
			base := vg.Point{X: c.Min.X, Y: y + (h-thumb)/2}
			e.thumb(&c, base, thumb)
			c.FillText(ts, vg.Point{X: c.Min.X + max(thumb, e.height) + 3, Y: y + (h-line)/2 + line*0.2}, e.text)
		}
	}
	return c.Max.Y - y
}

// legendWidth is the width drawLegend needs.
func legendWidth(secs []legendSection) vg.Length {
	ts := textStyle(tickSize)
	var w vg.Length
	thumb := vg.Length(tickSize)*1.2 + 3
	for _, s := range secs {
		w = max(w, ts.Width(s.title)*1.1)
		for _, e := range s.entries {
			w = max(w, max(thumb, e.height+3)+ts.Width(e.text))
		}
	}
	return w + 2 // so that anti-aliasing never clips the last glyph at the figure's edge
}

// splitRight divides c into a left part and a right strip of width w.
func splitRight(c draw.Canvas, w vg.Length) (left, right draw.Canvas) {
	left = draw.Crop(c, 0, -w, 0, 0)
	right = draw.Crop(c, c.Size().X-w, 0, 0, 0)
	return left, right
}

// logTicks labels 1–2–5 decades.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v >= min && v <= max {
				ts = append(ts, plot.Tick{Value: v, Label: fmtNum(v)})
			}
		}
	}
	return ts
}

// outline is a glyph drawn as a thick outline (gonum's outline glyphs use a
// 0.5 pt stroke, too faint for light palette colours at print size).
type outline struct{ sides int } // 0: circle; 3, 4: polygon (4 = square)

func (o outline) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: 1.1})
	r := sty.Radius
	var p vg.Path
	switch o.sides {
	case 0:
		p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
		p.Arc(pt, r, 0, 2*math.Pi)
	case 4:
		r *= vg.Length(math.Sqrt(math.Pi) / 2) // same area as the circle
		p.Move(vg.Point{X: pt.X - r, Y: pt.Y - r})
		p.Line(vg.Point{X: pt.X + r, Y: pt.Y - r})
		p.Line(vg.Point{X: pt.X + r, Y: pt.Y + r})
		p.Line(vg.Point{X: pt.X - r, Y: pt.Y + r})
	default:
		// A regular polygon with a vertex up, scaled to the circle's area.
		k := float64(o.sides)
		s := vg.Length(math.Sqrt(2 * math.Pi / (k * math.Sin(2*math.Pi/k))))
		for i := 0; i < o.sides; i++ {
			a := math.Pi/2 + 2*math.Pi*float64(i)/k
			q := vg.Point{X: pt.X + r*s*vg.Length(math.Cos(a)), Y: pt.Y + r*s*vg.Length(math.Sin(a))}
			if i == 0 {
				p.Move(q)
			} else {
				p.Line(q)
			}
		}
	}
	p.Close()
	c.Stroke(p)
}
