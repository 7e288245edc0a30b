//go:build !js

package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// maxBody bounds a request's body: a source of maxSource bytes as JSON,
// with room for its escapes.
const maxBody = 2*maxSource + 64<<10

// A Server serves one session's page on a listener.
type Server struct {
	session *Session
	token   string
	ln      net.Listener
	srv     *http.Server
}

// Listen starts listening on addr (HOST:PORT; port 0 chooses one) for the
// session's page. Serve serves it.
func Listen(s *Session, addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	srv := &Server{session: s, token: newToken(), ln: ln}
	lhost, _, _ := net.SplitHostPort(addr)
	g := &guard{token: srv.token, port: port, hosts: allowedHosts(lhost), h: srv.mux()}
	if ip := net.ParseIP(host); ip != nil && !ip.IsUnspecified() {
		g.hosts = append(g.hosts, ip.String())
	}
	srv.srv = &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	return srv, nil
}

// URL returns the page's address with its token.
func (s *Server) URL() string {
	host, port, _ := net.SplitHostPort(s.ln.Addr().String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() || ip.IsLoopback() {
		host = "127.0.0.1"
	}
	u := url.URL{Scheme: "http", Host: net.JoinHostPort(host, port), Path: "/", RawQuery: "token=" + s.token}
	return u.String()
}

// Token returns the server's token.
func (s *Server) Token() string { return s.token }

// Serve serves until Shutdown.
func (s *Server) Serve() error {
	err := s.srv.Serve(s.ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops the server.
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }

func (s *Server) mux() http.Handler {
	mux := http.NewServeMux()
	static := http.FileServerFS(Assets())
	mux.HandleFunc("GET /{$}", s.index)
	mux.Handle("GET /app.js", noCache(static))
	mux.Handle("GET /app.css", noCache(static))
	mux.HandleFunc("POST /api/{method}", s.api)
	mux.HandleFunc("GET /api/file", s.file)
	return mux
}

func noCache(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// index serves the page and gives it the token's cookie, which its
// assets' requests carry.
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	_, port, _ := net.SplitHostPort(s.ln.Addr().String())
	http.SetCookie(w, &http.Cookie{Name: cookieName(port), Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	b, _ := fs.ReadFile(Assets(), "index.html")
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	w.Write(b)
}

type saveRequest struct {
	Source string `json:"source"`
}

// api answers POST /api/METHOD: a session's method, or save.
func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, err)
		return
	}
	method := r.PathValue("method")
	if method == "save" {
		var req saveRequest
		if err := decode(body, &req); err != nil {
			writeError(w, http.StatusBadRequest, err)
			return
		}
		if err := s.session.Save(req.Source); err != nil {
			writeError(w, statusOf(err), err)
			return
		}
		writeJSON(w, map[string]bool{"saved": true})
		return
	}
	out, err := s.session.Call(r.Context(), method, body)
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	writeJSON(w, out)
}

// file answers GET /api/file?path=REL: the text of one of the model's
// files (files.go).
func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	text, err := s.session.ReadFile(r.URL.Query().Get("path"))
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	writeJSON(w, map[string]string{"text": text})
}

func statusOf(err error) int {
	switch {
	case errors.Is(err, ErrForbiddenPath):
		return http.StatusForbidden
	case errors.Is(err, os.ErrNotExist):
		return http.StatusNotFound
	case errors.Is(err, ErrNoModel):
		return http.StatusConflict
	case errors.Is(err, context.Canceled):
		return 499 // the page moved on: nobody reads the answer
	case isClientError(err):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	msg := err.Error()
	if errors.Is(err, ErrForbiddenPath) {
		msg = ErrForbiddenPath.Error() // never echo a path that was refused
	}
	json.NewEncoder(w).Encode(map[string]string{"error": strings.TrimSpace(msg)})
}
