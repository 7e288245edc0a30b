package figure_test

import (
	"fmt"
	"image/color"
	"os"
	"strings"

	"github.com/pbl-lang/pbl/internal/figure"
)

func ExampleDefaultTicks() {
	for _, r := range [][2]float64{{-3.2, 6.2}, {-4.43, -3.13}} {
		var labels []string
		for _, t := range (figure.DefaultTicks{}).Ticks(r[0], r[1]) {
			if t.Label != "" {
				labels = append(labels, t.Label)
			}
		}
		fmt.Println(strings.Join(labels, " "))
	}
	// Output:
	// -2 0 2 4 6
	// -4.25 -4.00 -3.75 -3.50 -3.25
}

func ExampleSVG() {
	c := figure.NewSVG(100, 50)
	c.Circle(figure.Point{X: 20, Y: 25}, 3, color.NRGBA{0x1f, 0x77, 0xb4, 0xb0})
	c.Stroke([]figure.Point{{X: 30, Y: 25}, {X: 90, Y: 25}}, figure.LineStyle{Color: color.Black, Width: 1.5, Dashes: []float64{5, 3}})
	c.Text("x < 1", figure.Point{X: 50, Y: 45}, figure.TextStyle{Size: 10, Align: figure.AlignCenter})
	c.WriteTo(os.Stdout)
	// Output:
	// <?xml version="1.0"?>
	// <svg width="100pt" height="50pt" viewBox="0 0 100 50" xmlns="http://www.w3.org/2000/svg" font-family="Go, Helvetica, Arial, sans-serif">
	// <circle cx="20" cy="25" r="3" fill="#1f77b4" fill-opacity="0.690"/>
	// <path d="M30 25L90 25" fill="none" stroke="#000000" stroke-width="1.5" stroke-linejoin="round" stroke-linecap="butt" stroke-dasharray="5 3"/>
	// <text text-anchor="middle" x="50" y="45" font-size="10">x &lt; 1</text>
	// </svg>
}
