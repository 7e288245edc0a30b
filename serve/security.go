//go:build !js

package serve

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
)

// The security model of the local server (docs/serve.md):
//
//   - every request carries the random token of the printed URL: in the
//     URL (?token=), in the X-Pbl-Token header (the page's API calls), or
//     in the cookie the server sets when the page is opened with it;
//   - the Host header names the server by a loopback name or the address
//     it listens on, with its port: a page of another site that a DNS
//     rebinding points at 127.0.0.1 sends its own host name;
//   - an Origin header, if any, is the server's own (a cross-site page
//     can send requests, but not with the server's origin), and a
//     Sec-Fetch-Site of cross-site is refused;
//
// each refused with 403 Forbidden before anything is read or answered.

// tokenHeader is the header the page's API calls carry the token in.
const tokenHeader = "X-Pbl-Token"

// newToken returns a random token of 128 bits, in hex.
func newToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// cookieName is the token's cookie for a server listening on port: the
// port is part of the name, as cookies are shared by the ports of a host.
func cookieName(port string) string { return "pbl-token-" + port }

// guard is the handler that checks every request before h.
type guard struct {
	token string
	port  string
	hosts []string // the host names the Host header may give
	h     http.Handler
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if reason := g.refuse(r); reason != "" {
		http.Error(w, "forbidden: "+reason, http.StatusForbidden)
		return
	}
	g.h.ServeHTTP(w, r)
}

// refuse returns why r is refused, or "".
func (g *guard) refuse(r *http.Request) string {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, "80" // a Host without a port names port 80
	}
	if port != g.port || !g.hostAllowed(host) {
		return "the Host header does not name this server"
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		return "a request from another origin"
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return "a request from another site"
	}
	if !g.tokenOK(r) {
		return "no token, or a wrong one: open the URL that pbl serve printed"
	}
	return ""
}

func (g *guard) hostAllowed(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, h := range g.hosts {
		if host == h {
			return true
		}
	}
	return false
}

func (g *guard) tokenOK(r *http.Request) bool {
	for _, t := range []string{r.URL.Query().Get("token"), r.Header.Get(tokenHeader)} {
		if t != "" {
			return g.equal(t)
		}
	}
	if c, err := r.Cookie(cookieName(g.port)); err == nil {
		return g.equal(c.Value)
	}
	return false
}

func (g *guard) equal(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(g.token)) == 1
}

// allowedHosts returns the host names a request may give for a server
// listening on host: the loopback names, and host itself.
func allowedHosts(host string) []string {
	hosts := []string{"127.0.0.1", "localhost", "::1", "[::1]"}
	if host != "" {
		hosts = append(hosts, strings.Trim(strings.ToLower(host), "[]"))
	}
	return hosts
}
