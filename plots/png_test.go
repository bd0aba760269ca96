package plots

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// decodeRGBA decodes a PNG into an RGBA image.
func decodeRGBA(t *testing.T, b []byte) *image.RGBA {
	t.Helper()
	m, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewRGBA(m.Bounds())
	for y := m.Bounds().Min.Y; y < m.Bounds().Max.Y; y++ {
		for x := m.Bounds().Min.X; x < m.Bounds().Max.X; x++ {
			out.Set(x, y, m.At(x, y))
		}
	}
	return out
}

// encodePNG is lossless: an opaque image decodes (image/png) to the same
// pixels, as RGB, whatever its origin; one transparent pixel keeps the
// alpha channel (image/png's encoding).
func TestEncodePNGLossless(t *testing.T) {
	m := image.NewRGBA(image.Rect(3, 2, 40, 19)) // an origin not at 0,0
	for y := m.Rect.Min.Y; y < m.Rect.Max.Y; y++ {
		for x := m.Rect.Min.X; x < m.Rect.Max.X; x++ {
			m.SetRGBA(x, y, color.RGBA{uint8(x * 7), uint8(y * 13), uint8(x*y + 1), 0xFF})
		}
	}
	var b bytes.Buffer
	if err := encodePNG(&b, m); err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ColorModel != color.RGBAModel || cfg.Width != 37 || cfg.Height != 17 {
		t.Errorf("decoded as %dx%d %v, want 37x17 RGB", cfg.Width, cfg.Height, cfg.ColorModel)
	}
	got := decodeRGBA(t, b.Bytes())
	for y := range 17 {
		for x := range 37 {
			if g, w := got.RGBAAt(x, y), m.RGBAAt(x+3, y+2); g != w {
				t.Fatalf("pixel %d,%d: %v, want %v", x, y, g, w)
			}
		}
	}

	m.SetRGBA(20, 10, color.RGBA{0x10, 0x20, 0x30, 0x80})
	b.Reset()
	if err := encodePNG(&b, m); err != nil {
		t.Fatal(err)
	}
	var std bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&std, m); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), std.Bytes()) {
		t.Error("an image with a translucent pixel: not image/png's encoding")
	}
}

// A figure's PNG has the pixels of the figure drawn on gonum/plot's raster
// canvas over a white page (as the vector formats draw it) and encoded by
// image/png.
func TestFigurePNGPixels(t *testing.T) {
	_, res := sample(t)
	for _, n := range Numbers {
		fig, err := Build(n, res)
		if err != nil {
			t.Fatal(err)
		}
		// gonum/plot's own raster canvas, which canvasFor's reproduces.
		c := vgimg.NewWith(vgimg.UseWH(fig.Width, fig.Height), vgimg.UseDPI(300), vgimg.UseBackgroundColor(color.White))
		dc := draw.New(c)
		dc.FillPolygon(color.White, []vg.Point{dc.Min, {X: dc.Max.X, Y: dc.Min.Y}, dc.Max, {X: dc.Min.X, Y: dc.Max.Y}})
		fig.f.draw(dc)
		var want bytes.Buffer
		if err := png.Encode(&want, c.Image()); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := fig.Write(&got, "png"); err != nil {
			t.Fatal(err)
		}
		g, w := decodeRGBA(t, got.Bytes()), decodeRGBA(t, want.Bytes())
		if g.Rect != w.Rect || !bytes.Equal(g.Pix, w.Pix) {
			t.Errorf("figure %d's PNG differs from image/png's encoding of gonum/plot's canvas", n)
		}
	}
}
