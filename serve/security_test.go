//go:build !js

package serve

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startServer serves the session of path on a free loopback port.
func startServer(t testing.TB, path string) (*Server, *Session) {
	t.Helper()
	s, err := NewSession(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	srv, err := Listen(s, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
		s.Close()
	})
	return srv, s
}

// modelDir writes a model that imports a file beside it, a secret file
// outside its folder and a symbolic link to the secret beside it.
func modelDir(t *testing.T) (model, secret string) {
	root := t.TempDir()
	dir := filepath.Join(root, "models")
	os.Mkdir(dir, 0o755)
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "base.pbl"), "var a: bool\nP(a) = [0.3, 0.7]\n")
	model = filepath.Join(dir, "model.pbl")
	write(model, "import \"base.pbl\"\nvar b: bool\na -> b\nP(b | a) = {\n    true: [0.9, 0.1]\n    false: [0.2, 0.8]\n}\n")
	secret = filepath.Join(root, "secret.txt")
	write(secret, "the secret\n")
	if err := os.Symlink(secret, filepath.Join(dir, "link.pbl")); err != nil {
		t.Fatal(err)
	}
	return model, secret
}

// TestRefusals checks the security model, one request per refusal, each
// beside a request that differs only in the refused respect and passes.
func TestRefusals(t *testing.T) {
	model, secret := modelDir(t)
	srv, _ := startServer(t, model)
	u, _ := url.Parse(srv.URL())
	base := "http://" + u.Host
	tok := srv.Token()
	file := func(p string) string { return base + "/api/file?path=" + url.QueryEscape(p) }
	tests := []struct {
		name   string
		method string
		url    string
		header map[string]string
		body   string
		want   int
	}{
		{"the page with the token", "GET", base + "/?token=" + tok, nil, "", 200},
		{"the page without a token", "GET", base + "/", nil, "", 403},
		{"the page with a wrong token", "GET", base + "/?token=" + strings.Repeat("0", len(tok)), nil, "", 403},
		{"an asset without a token", "GET", base + "/app.js", nil, "", 403},
		{"the API with the token", "POST", base + "/api/update", map[string]string{tokenHeader: tok}, `{"evidence":[]}`, 200},
		{"the API without a token", "POST", base + "/api/update", nil, `{"evidence":[]}`, 403},
		{"the API with a wrong token", "POST", base + "/api/update", map[string]string{tokenHeader: "x" + tok[1:]}, `{"evidence":[]}`, 403},
		{"a foreign Host (DNS rebinding)", "POST", base + "/api/update", map[string]string{tokenHeader: tok, "Host": "attacker.example:" + u.Port()}, `{}`, 403},
		{"localhost as Host", "POST", base + "/api/update", map[string]string{tokenHeader: tok, "Host": "localhost:" + u.Port()}, `{}`, 200},
		{"another port in Host", "POST", base + "/api/update", map[string]string{tokenHeader: tok, "Host": "127.0.0.1:1"}, `{}`, 403},
		{"a Host without the port", "POST", base + "/api/update", map[string]string{tokenHeader: tok, "Host": "127.0.0.1"}, `{}`, 403},
		{"a foreign Host without a port", "POST", base + "/api/update", map[string]string{tokenHeader: tok, "Host": "attacker.example"}, `{}`, 403},
		{"a cross-site Origin", "POST", base + "/api/update", map[string]string{tokenHeader: tok, "Origin": "http://attacker.example"}, `{}`, 403},
		{"the server's own Origin", "POST", base + "/api/update", map[string]string{tokenHeader: tok, "Origin": base}, `{}`, 200},
		{"Sec-Fetch-Site cross-site", "POST", base + "/api/update", map[string]string{tokenHeader: tok, "Sec-Fetch-Site": "cross-site"}, `{}`, 403},
		{"the model", "GET", file("model.pbl"), map[string]string{tokenHeader: tok}, "", 200},
		{"an import", "GET", file("base.pbl"), map[string]string{tokenHeader: tok}, "", 200},
		{"an import, without the token", "GET", file("base.pbl"), nil, "", 403},
		{"a path with ..", "GET", file("../secret.txt"), map[string]string{tokenHeader: tok}, "", 403},
		{"a path with .. back in", "GET", file("../models/base.pbl"), map[string]string{tokenHeader: tok}, "", 403},
		{"an absolute path", "GET", file(secret), map[string]string{tokenHeader: tok}, "", 403},
		{"an absolute path to the model", "GET", file(model), map[string]string{tokenHeader: tok}, "", 403},
		{"a symbolic link beside the model", "GET", file("link.pbl"), map[string]string{tokenHeader: tok}, "", 403},
		{"a file the model does not import", "GET", file("secret.txt"), map[string]string{tokenHeader: tok}, "", 403},
		{"a body over the limit", "POST", base + "/api/format", map[string]string{tokenHeader: tok}, `{"source":"` + strings.Repeat("x", maxBody) + `"}`, 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, tt.url, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.header {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.want, b)
			}
			if strings.Contains(string(b), "the secret") {
				t.Fatalf("the answer holds the secret file: %s", b)
			}
		})
	}
}

// TestSymlinkedImport: a model that imports a symbolic link reads it
// through the loader (the model's meaning), but the server does not serve
// the link's target.
func TestSymlinkedImport(t *testing.T) {
	model, _ := modelDir(t)
	src, _ := os.ReadFile(model)
	os.WriteFile(model, []byte(strings.Replace(string(src), `"base.pbl"`, `"link.pbl"`, 1)), 0o644)
	srv, _ := startServer(t, model)
	req, _ := http.NewRequest("GET", strings.Replace(srv.URL(), "/?token=", "/api/file?path=link.pbl&token=", 1), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("status %d, want 403", resp.StatusCode)
	}
}

// TestSaveAtomic saves through the API: the file holds the new text, its
// mode is kept, no temporary file is left, and only the model is written.
func TestSaveAtomic(t *testing.T) {
	model, _ := modelDir(t)
	os.Chmod(model, 0o600)
	srv, s := startServer(t, model)
	text := s.Source() + "// saved\n"
	req, _ := http.NewRequest("POST", strings.Replace(srv.URL(), "/?token=", "/api/save?token=", 1), strings.NewReader(`{"source":`+jsonString(text)+`}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	got, _ := os.ReadFile(model)
	if string(got) != text {
		t.Errorf("file holds %q, want %q", got, text)
	}
	if fi, _ := os.Stat(model); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(model))
	if len(entries) != 3 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the folder holds %v, want model.pbl, base.pbl and link.pbl", names)
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
