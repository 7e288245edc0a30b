package figure

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"io"
)

// encodePNG writes img as a PNG file (ISO/IEC 15948): 8 bits a channel,
// RGB when every pixel is opaque, else RGBA with the colours divided by
// alpha (PNG's alpha is not premultiplied), not interlaced, each row
// filtered by whichever of PNG's five filters leaves the smallest sum of
// absolute bytes, as the PNG specification suggests and libpng and
// image/png do.
func encodePNG(w io.Writer, img *image.RGBA) error {
	b := img.Bounds()
	width, height := b.Dx(), b.Dy()
	if width <= 0 || height <= 0 || int64(width) >= 1<<31 || int64(height) >= 1<<31 {
		return fmt.Errorf("cannot encode a %d×%d image as PNG", width, height)
	}
	opaque := true
	for y := b.Min.Y; y < b.Max.Y && opaque; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):][:4*width]
		for i := 3; i < len(row); i += 4 {
			if row[i] != 0xff {
				opaque = false
				break
			}
		}
	}
	bpp, colourType := 4, byte(6)
	if opaque {
		bpp, colourType = 3, 2
	}

	bw := bufio.NewWriter(w)
	bw.WriteString("\x89PNG\r\n\x1a\n")
	var hdr [13]byte
	binary.BigEndian.PutUint32(hdr[0:], uint32(width))
	binary.BigEndian.PutUint32(hdr[4:], uint32(height))
	hdr[8], hdr[9] = 8, colourType // compression, filter and interlace methods 0
	writeChunk(bw, "IHDR", hdr[:])

	var data bytes.Buffer
	z, _ := zlib.NewWriterLevel(&data, zlib.DefaultCompression)
	n := bpp * width
	prev := make([]byte, n) // the row above the first is zeros
	cur := make([]byte, n)
	var filtered [5][]byte
	for f := range filtered {
		filtered[f] = make([]byte, 1+n)
		filtered[f][0] = byte(f)
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):][:4*width]
		for x := 0; x < width; x++ {
			p, q := row[4*x:4*x+4], cur[bpp*x:bpp*x+bpp]
			if opaque {
				copy(q, p[:3])
				continue
			}
			unpremultiply(q, p)
		}
		filterRow(&filtered, cur, prev, bpp)
		best, bestSum := 0, -1
		for f := range filtered {
			sum := 0
			for _, c := range filtered[f][1:] {
				x := int(int8(c)) // |c| as a signed byte, without a branch
				sum += (x ^ x>>63) - x>>63
			}
			if bestSum < 0 || sum < bestSum {
				best, bestSum = f, sum
			}
		}
		if _, err := z.Write(filtered[best]); err != nil {
			return err
		}
		prev, cur = cur, prev
	}
	if err := z.Close(); err != nil {
		return err
	}
	writeChunk(bw, "IDAT", data.Bytes())
	writeChunk(bw, "IEND", nil)
	return bw.Flush()
}

// filterRow sets out[f] to PNG filter f (none, sub, up, average, Paeth)
// of the row cur, given the row above, prev, and the bytes a pixel, bpp.
// out[f][0] is the filter's number, already set.
func filterRow(out *[5][]byte, cur, prev []byte, bpp int) {
	none, sub, up, avg, pth := out[0][1:], out[1][1:], out[2][1:], out[3][1:], out[4][1:]
	copy(none, cur)
	for i := range bpp { // no pixel on the left: it counts as zeros
		sub[i] = cur[i]
		up[i] = cur[i] - prev[i]
		avg[i] = cur[i] - prev[i]/2
		pth[i] = cur[i] - prev[i] // paeth(0, up, 0) is up
	}
	for i := bpp; i < len(cur); i++ {
		left, above, upLeft := cur[i-bpp], prev[i], prev[i-bpp]
		sub[i] = cur[i] - left
		up[i] = cur[i] - above
		avg[i] = cur[i] - byte((int(left)+int(above))/2)
		pth[i] = cur[i] - paeth(left, above, upLeft)
	}
}

// writeChunk writes a PNG chunk: length, type, data and the CRC-32 of type
// and data.
func writeChunk(w *bufio.Writer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	w.Write(n[:])
	w.WriteString(typ)
	w.Write(data)
	crc := crc32.Update(crc32.ChecksumIEEE([]byte(typ)), crc32.IEEETable, data)
	binary.BigEndian.PutUint32(n[:], crc)
	w.Write(n[:])
}

// unpremultiply sets q to the non-premultiplied 8-bit colour of the
// premultiplied pixel p, as color.NRGBAModel converts it.
func unpremultiply(q, p []byte) {
	a := uint32(p[3])
	switch a {
	case 0:
		copy(q, []byte{0, 0, 0, 0})
		return
	case 0xff:
		copy(q, p)
		return
	}
	a |= a << 8
	for i := range 3 {
		x := uint32(p[i])
		x |= x << 8
		q[i] = byte((x * 0xffff / a) >> 8)
	}
	q[3] = p[3]
}

// paeth is PNG's Paeth predictor: whichever of a (left), b (up) and c
// (up left) is closest to a+b−c, preferring them in that order.
func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
