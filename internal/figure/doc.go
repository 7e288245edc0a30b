// Package figure draws simple statistical figures, axes with ticks,
// scatter glyphs, polylines and legends, to SVG or PNG, with the standard
// library and golang.org/x/image only.
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
//   - PNG rasterizes into an image.RGBA, antialiased by the exact area
//     each pixel has inside the outline (raster.go), and writes it with its
//     own encoder (pngenc.go, with compress/zlib). A line is a polygon (a
//     quadrilateral per segment and a disc per joint, all wound the same
//     way so that their overlaps do not cancel), a circle a polygon of
//     enough sides to look round at its size in pixels, and a letter its
//     glyph's outline, filled the same way.
//
// The PNG canvas does not use golang.org/x/image/vector, font/opentype or
// image/png: linking them cost every run of pbl about 0.03 ms at start (a
// CPUID probe, package set-up and code to page in; docs/performance.md
// "Start-up"), for a figure few runs draw.
//
// # Text
//
// Both canvases measure text with the metrics of the Go Regular font
// (golang.org/x/image/font/gofont/goregular), which the PNG canvas also
// draws with (golang.org/x/image/font/sfnt reads its metrics and
// outlines). The font is parsed the first time a figure needs it, never
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
