package serve

import (
	"embed"
	"io/fs"
)

// The page: index.html, app.js and app.css, built from web/ (npm run
// build) and committed, so that go build needs no Node.js.
//
//go:embed assets
var assets embed.FS

// Assets returns the page's files (index.html, app.js, app.css), for the
// static build.
func Assets() fs.FS {
	sub, _ := fs.Sub(assets, "assets")
	return sub
}
