package plots

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"io"
)

// encodePNG writes m as an 8-bit RGB PNG (W3C, PNG Specification, 2nd ed.,
// 2003) with every row unfiltered (filter type 0) and deflated at the
// fastest level. The figures are flat colours on white, for which deflate's
// matches alone compress as well as image/png's per-row choice among the
// five filters, which is most of that encoder's time. An image with any
// transparent pixel (none of ours: they are drawn over an opaque white
// canvas) is left to image/png, which keeps the alpha channel.
func encodePNG(w io.Writer, m *image.RGBA) error {
	b := m.Bounds()
	width, height := b.Dx(), b.Dy()
	var idat bytes.Buffer
	zw, err := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	if err != nil {
		return err
	}
	row := make([]byte, 1+3*width) // the filter byte, then RGB
	for y := b.Min.Y; y < b.Max.Y; y++ {
		pix := m.Pix[m.PixOffset(b.Min.X, y):][:4*width]
		opaque := byte(0xFF)
		for i, j := 0, 1; i < len(pix); i, j = i+4, j+3 {
			p, q := pix[i:i+4:i+4], row[j:j+3:j+3]
			q[0], q[1], q[2] = p[0], p[1], p[2]
			opaque &= p[3]
		}
		if opaque != 0xFF {
			return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(w, m)
		}
		if _, err := zw.Write(row); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8] = 8 // bit depth
	ihdr[9] = 2 // colour type: truecolour; compression, filter, interlace 0
	var out bytes.Buffer
	out.Grow(8 + 3*12 + len(ihdr) + idat.Len())
	out.WriteString("\x89PNG\r\n\x1a\n")
	writeChunk(&out, "IHDR", ihdr[:])
	writeChunk(&out, "IDAT", idat.Bytes())
	writeChunk(&out, "IEND", nil)
	_, err = w.Write(out.Bytes())
	return err
}

// writeChunk appends a PNG chunk: length, type, data and the CRC-32 of
// type and data.
func writeChunk(b *bytes.Buffer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	b.Write(n[:])
	start := b.Len()
	b.WriteString(typ)
	b.Write(data)
	binary.BigEndian.PutUint32(n[:], crc32.ChecksumIEEE(b.Bytes()[start:]))
	b.Write(n[:])
}
