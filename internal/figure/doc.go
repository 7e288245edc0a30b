// Package figure draws simple statistical figures, axes with ticks,
// scatter glyphs, polylines and legends, to SVG or PNG.
//
// # Canvases
//
// A Canvas draws filled polygons, circles, stroked polylines and text in
// points (1/72 inch), with the origin at the top left and y growing
// downwards, as in SVG. Two canvases implement it, and each is an
// io.WriterTo that writes the finished figure:
//
//   - SVG writes XML text: shapes as <path>, <polyline> and <circle>
//     elements, text as <text> elements naming the font by family, so that
//     the viewer draws the letters.
//   - PNG draws with gonum.org/v1/plot's image back end (vg/vgimg, which
//     antialiases paths and glyphs with git.sr.ht/~sbinet/gg) and writes
//     the image with image/png. (Until issue 28 the package rasterized and
//     encoded PNG itself, to spare every run of pbl the libraries'
//     start-up: docs/performance.md "Start-up since issue 28".)
//
// # Text
//
// Both canvases measure text with the metrics of the Go Regular font
// (golang.org/x/image/font/gofont/goregular), which the PNG canvas also
// draws with. The font is parsed the first time a figure needs it, never
// at package initialization: a program that links this package but draws
// nothing pays nothing for it.
//
// # Plots
//
// A Plot is one panel: a title, two Axes, each with a label and a Ticker,
// a grid at the major ticks, and Items (Scatter, Line) drawn in data
// coordinates. Plot.Draw lays the panel out in a rectangle of a canvas.
// DefaultTicks labels "nice" values, 1, 2, 2.5 or 5 times a power of ten,
// inside the axis's range, with unlabelled minor ticks between them. A
// Legend lists entries with a thumbnail of their glyph or line.
//
// Nothing in the package allocates or computes at initialization.
package figure
